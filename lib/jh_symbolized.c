/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof's symbolized form (PrintSymbolizedProfile): a "--- symbol"
 * section naming every address jeprof will look up, "binary=", then
 * "--- heap" and the profile itself. Such a file is analysed anywhere, by
 * jeheap or by jeprof, without the binaries. Each address gets its inline
 * chain as jeprof writes one, "outer--...--inner". */
#include "config.h"

#include <stdlib.h>
#include "jh_internal.h"

struct collect {
	uint64_t *seen;
	size_t nseen, cap;
};

/* jeprof looks symbols up by the leaf address and by each caller's return
 * address minus one (FixCallerAddresses): name exactly those. */
static int collect(const uint64_t *pcs, size_t n, const struct jeheap_counts *counts, void *arg)
{
	struct collect *c = arg;
	(void)counts;
	if (jh_grow((void **)&c->seen, &c->cap, c->nseen + n, sizeof(*c->seen)))
		return JEHEAP_ENOMEM;
	for (size_t i = 0; i < n; i++)
		c->seen[c->nseen++] = i ? pcs[i] - 1 : pcs[i];
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* "0xADDRESS outer--...--inner"; nothing for an address of no known
 * function (jeprof then shows the address, as without the line). */
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

JH_EXPORT int jeheap_write_symbolized(const jeheap_profile *p, jeheap_symbolizer *s,
				      const char *binary, const void *text, size_t len, FILE *out)
{
	if (!p || !s || !out || (!text && len))
		return JEHEAP_EINVAL;
	struct collect c = { NULL, 0, 0 };
	int e = jeheap_profile_foreach_stack(p, JEHEAP_RAW, collect, &c);
	if (e) {
		free(c.seen);
		return e;
	}
	if (c.nseen)
		qsort(c.seen, c.nseen, sizeof(*c.seen), cmp_u64);
	if (!binary)
		binary = p->binary;
	fputs("--- symbol\n", out);
	if (binary)
		fprintf(out, "binary=%s\n", binary);
	for (size_t i = 0; i < c.nseen; i++)
		if (!i || c.seen[i] != c.seen[i - 1])
			write_symbol(out, s, c.seen[i]);
	fputs("---\n--- heap\n", out);
	if (len)
		fwrite(text, 1, len, out);
	free(c.seen);
	return ferror(out) ? JEHEAP_EIO : 0;
}
