/* SPDX-License-Identifier: BSD-2-Clause */
/* --dump --symbolize: the profile in jeprof's symbolized form ("--- symbol"
 * section, then "--- heap" and the profile), named from the target's own
 * binaries read through /proc/PID/map_files (the very files it mapped, even
 * if upgraded or deleted on disk since), else /proc/PID/root (its mount
 * namespace). Each address gets its inline chain as jeprof writes one,
 * "outer--...--inner". Such a file can be analysed anywhere, by jeheap or
 * by jeprof itself, without the binaries. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core_grow.h"
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
	if (CORE_GROW(&c->seen, &c->cap, c->nseen + 1))
		return JEHEAP_ENOMEM;
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

/* jeprof's PrintSymbolizedProfile: "0xADDRESS outer--...--inner". */
static void write_symbol(FILE *out, jeheap_symbolizer *s, uint64_t a)
{
	struct jeheap_frame f[64];
	size_t n = jeheap_symbolize_frames(s, a, f, 64);
	if (n > 64)
		n = 64;
	if (!n || !f[n - 1].function)
		return;
	fprintf(out, "0x%016llx ", (unsigned long long)a);
	for (size_t i = n; i-- > 0;)
		if (f[i].function)
			fprintf(out, "%s%s", f[i].function, i ? "--" : "\n");
		else if (!i)
			fputc('\n', out);
}

int act_write_symbolized(pid_t pid, const char *text, size_t len, FILE *out)
{
	jeheap_profile *p;
	struct jeheap_error_info ei;
	int e = jeheap_profile_read_memory(text, len, &p, &ei);
	if (e)
		return -EBADMSG;
	char exe[64];
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	char target[4096];
	ssize_t n = readlink(exe, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = 0;
	struct collect c = { NULL, out, NULL, 0, 0 };
	e = jeheap_symbolizer_new_pid(p, (int)pid, &c.s);
	if (!e)
		e = jeheap_profile_foreach_stack(p, JEHEAP_RAW, collect, &c);
	if (!e) {
		if (c.nseen)
			qsort(c.seen, c.nseen, sizeof(*c.seen), cmp_u64);
		fprintf(out, "--- symbol\nbinary=%s\n", target);
		for (size_t i = 0; i < c.nseen; i++) {
			if (i && c.seen[i] == c.seen[i - 1])
				continue;
			write_symbol(out, c.s, c.seen[i]);
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
