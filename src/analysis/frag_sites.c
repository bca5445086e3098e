/* SPDX-License-Identifier: BSD-2-Clause */
/* The allocation sites behind each small size class, from a heap profile:
 * a stack's live bytes over its live objects is the average usable size
 * of what it holds (jemalloc records usize per sampled object,
 * prof_malloc_sample_object), and that size falls in one class. A stack
 * that allocates several sizes is counted in the class of its average:
 * said in jeattach(1). Stacks come from libjeheap's collapsed form, so
 * allocator frames are pruned as jeheap top prunes them. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "frag.h"
#include "jeheap.h"

struct gather {
	struct frag_sites *s;
	size_t cap, cursor;
	int objects; /* the second pass: objects, matched to the first's stacks */
};

/* jeheap_collapsed calls back in the byte order of the stack text, the
 * same order for both metrics: the second pass walks the first's list. */
static int on_stack(const char *stack, double value, double base, void *arg)
{
	(void)base;
	struct gather *g = arg;
	struct frag_sites *s = g->s;
	if (!g->objects) {
		if (CORE_GROW(&s->v, &g->cap, s->n + 1))
			return JEHEAP_ENOMEM;
		struct frag_site *f = &s->v[s->n];
		memset(f, 0, sizeof(*f));
		if (!(f->stack = strdup(stack)))
			return JEHEAP_ENOMEM;
		f->bytes = value;
		s->n++;
		return 0;
	}
	while (g->cursor < s->n && strcmp(s->v[g->cursor].stack, stack) < 0)
		g->cursor++;
	if (g->cursor < s->n && !strcmp(s->v[g->cursor].stack, stack))
		s->v[g->cursor].objects = value;
	return 0;
}

static int by_bytes(const void *a, const void *b)
{
	const struct frag_site *x = a, *y = b;
	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : strcmp(x->stack, y->stack);
}

/* Each stack's class. Those whose average is past the small classes
 * stay, with bin -1 (large objects, or a stack of mixed sizes whose
 * average is large: a server's one path for every value it stores); those
 * that hold nothing leave the list. */
static void assign(struct frag_sites *s, const struct frag_stats *st)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		struct frag_site *f = &s->v[i];
		if (!(f->objects > 0 && f->bytes > 0)) {
			free(f->stack);
			continue;
		}
		f->bin = frag_class_of(st, f->bytes / f->objects);
		if (f->bin < 0)
			s->unmapped_bytes += f->bytes;
		s->v[k++] = *f;
	}
	s->n = k;
	qsort(s->v, s->n, sizeof(*s->v), by_bytes);
}

static int collect(const jeheap_profile *p, jeheap_symbolizer *sym, struct gather *g)
{
	struct jeheap_query q = { .metric = JEHEAP_INUSE_SPACE };
	int e = jeheap_collapsed(p, sym, &q, on_stack, g);
	if (e)
		return e;
	q.metric = JEHEAP_INUSE_OBJECTS;
	g->objects = 1;
	return jeheap_collapsed(p, sym, &q, on_stack, g);
}

int frag_sites_map(struct frag_report *r, const char *path, int pid, char *why, size_t whylen)
{
	struct jeheap_error_info ei = { 0 };
	jeheap_profile *p = NULL;
	jeheap_symbolizer *sym = NULL;
	struct frag_sites *s = calloc(1, sizeof(*s));
	int e = s ? jeheap_profile_read_file(path, &p, &ei) : JEHEAP_ENOMEM;
	if (e) {
		snprintf(why, whylen, "cannot read the heap profile %s: %s", path,
			 ei.message[0] ? ei.message : jeheap_strerror(e));
		goto out;
	}
	snprintf(s->source, sizeof(s->source), "%s", path);
	e = pid > 0 ? jeheap_symbolizer_new_pid(p, pid, &sym) : jeheap_symbolizer_new(p, NULL, &sym);
	struct gather g = { .s = s };
	if (!e)
		e = collect(p, sym, &g);
	if (e) {
		snprintf(why, whylen, "cannot analyse the heap profile %s: %s", path,
			 jeheap_strerror(e));
		goto out;
	}
	assign(s, &r->st);
	r->sites = s;
	s = NULL;
out:
	frag_sites_free(s);
	jeheap_symbolizer_free(sym);
	jeheap_profile_free(p);
	return e;
}

void frag_sites_free(struct frag_sites *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].stack);
	free(s->v);
	free(s);
}
