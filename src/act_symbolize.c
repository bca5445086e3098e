/* SPDX-License-Identifier: BSD-2-Clause */
/* --dump --symbolize: the profile in jeprof's symbolized form ("--- symbol"
 * section, then "--- heap" and the profile), named from the target's own
 * binaries read through /proc/PID/root (its mount namespace; a binary
 * deleted since it was mapped is not found there and its addresses stay
 * unnamed). Such a file can be analysed anywhere, by jeheap or by jeprof
 * itself, without the binaries. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "act.h"
#include "jeheap.h"

struct collect {
	jeheap_symbolizer *s;
	FILE *out;
	uint64_t *seen;
	size_t nseen, cap;
};

static int add_addr(struct collect *c, uint64_t a)
{
	if (c->nseen == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4096;
		uint64_t *n = realloc(c->seen, cap * sizeof(*n));
		if (!n)
			return JEHEAP_ENOMEM;
		c->seen = n;
		c->cap = cap;
	}
	c->seen[c->nseen++] = a;
	return 0;
}

/* jeprof looks symbols up by the leaf address and by each caller's return
 * address minus one (FixCallerAddresses): name exactly those. */
static int collect(const uint64_t *pcs, size_t n, const struct jeheap_counts *counts, void *arg)
{
	(void)counts;
	for (size_t i = 0; i < n; i++) {
		int e = add_addr(arg, i ? pcs[i] - 1 : pcs[i]);
		if (e)
			return e;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int act_write_symbolized(pid_t pid, const char *text, size_t len, FILE *out)
{
	jeheap_profile *p;
	struct jeheap_error_info ei;
	int e = jeheap_profile_read_memory(text, len, &p, &ei);
	if (e)
		return -EBADMSG;
	char root[64], exe[4096] = "";
	snprintf(root, sizeof(root), "/proc/%d/root", (int)pid);
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	char target[4096];
	ssize_t n = readlink(exe, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = 0;
	struct collect c = { NULL, out, NULL, 0, 0 };
	e = jeheap_symbolizer_new(p, root, &c.s);
	if (!e)
		e = jeheap_profile_foreach_stack(p, JEHEAP_RAW, collect, &c);
	if (!e) {
		if (c.nseen)
			qsort(c.seen, c.nseen, sizeof(*c.seen), cmp_u64);
		fprintf(out, "--- symbol\nbinary=%s\n", target);
		for (size_t i = 0; i < c.nseen; i++) {
			if (i && c.seen[i] == c.seen[i - 1])
				continue;
			const char *name = jeheap_symbolize(c.s, c.seen[i]);
			if (name)
				fprintf(out, "0x%016llx %s\n", (unsigned long long)c.seen[i], name);
		}
		fputs("---\n--- heap\n", out);
		fwrite(text, 1, len, out);
	}
	free(c.seen);
	jeheap_symbolizer_free(c.s);
	jeheap_profile_free(p);
	if (e)
		return e == JEHEAP_ENOMEM ? -ENOMEM : -EIO;
	return ferror(out) ? -EIO : 0;
}
