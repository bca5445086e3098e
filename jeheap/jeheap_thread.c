/* SPDX-License-Identifier: BSD-2-Clause */
/* --thread NAME. jeattach --name-threads names a thread comm/TID, so the
 * name an operator knows (the comm: top -H, ps -L) is only the first part
 * of the one in the profile; a name not found lists the names the profile
 * has, which is what the operator needs to pick one. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "core_list.h"
#include "core_text.h"
#include "jeheap_thread.h"

/* The names listed in a message: enough to recognise the threads, one
 * line still. */
enum { LISTED = 6 };

struct names {
	const char *want; /* NULL: every named thread */
	size_t n;         /* matched */
	uint64_t first;   /* the first match's number */
	char list[512];   /* the first LISTED matches' names, escaped */
	const char *shown[LISTED];
};

/* NAME/TID, TID all digits. */
static int is_comm_of(const char *name, const char *comm)
{
	size_t k = strlen(comm);
	if (strncmp(name, comm, k) || name[k] != '/' || !name[k + 1])
		return 0;
	return strspn(name + k + 1, "0123456789") == strlen(name + k + 1);
}

static int collect(uint64_t thread, const char *name, const struct jeheap_counts *c, void *arg)
{
	struct names *w = arg;
	(void)c;
	if (!name || (w->want && !is_comm_of(name, w->want)))
		return 0;
	if (!w->n)
		w->first = thread;
	if (w->n < LISTED)
		w->shown[w->n] = name;
	w->n++;
	return 0;
}

/* "a, b and c", or "a, ..., f and K more", of the names collected. */
static const char *listed(struct names *w)
{
	size_t k = w->n < LISTED ? w->n : LISTED;
	w->list[0] = '\0';
	for (size_t i = 0; i < k; i++) {
		char one[96];
		core_text_escape(w->shown[i], one, sizeof(one));
		core_list_add_some(w->list, sizeof(w->list), i, k, w->n, one);
	}
	return w->list;
}

int thread_resolve(const jeheap_profile *p, const char *path, const char *name, uint64_t *thread)
{
	if (!jeheap_profile_thread_by_name(p, name, thread))
		return 0;
	char shown[96];
	core_text_escape(name, shown, sizeof(shown));
	struct names w = { .want = name };
	jeheap_profile_foreach_thread(p, JEHEAP_RAW, collect, &w);
	if (w.n == 1) {
		*thread = w.first;
		return 0;
	}
	if (w.n > 1) {
		fprintf(stderr, "jeheap: --thread '%s': %zu threads of %s are %s/TID (%s); give one "
				"of their names\n",
			shown, w.n, path, shown, listed(&w));
		return -1;
	}
	w.want = NULL;
	jeheap_profile_foreach_thread(p, JEHEAP_RAW, collect, &w);
	if (w.n)
		fprintf(stderr, "jeheap: --thread '%s': no thread of %s has that name; its named "
				"threads are %s (jeheap json %s lists them all)\n",
			shown, path, listed(&w), path);
	else
		fprintf(stderr, "jeheap: --thread '%s': the threads of %s have no names; name them "
				"with jeattach --name-threads before dumping, or give jemalloc's "
				"thread number (jeheap json %s lists them)\n",
			shown, path, path);
	return -1;
}
