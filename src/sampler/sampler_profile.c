/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "sampler_profile.h"

static int by_stack(const void *a, const void *b)
{
	const struct sampler_sample *x = a, *y = b;
	if (x->nframes != y->nframes)
		return x->nframes < y->nframes ? -1 : 1;
	for (int i = 0; i < x->nframes; i++)
		if (x->ips[i] != y->ips[i])
			return x->ips[i] < y->ips[i] ? -1 : 1;
	return 0;
}

struct group {
	size_t first, count;
	uint64_t bytes;
};

static int by_bytes(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->first < y->first ? -1 : x->first > y->first;
}

int sampler_profile_write(FILE *f, struct sampler_sample *v, size_t n, uint64_t mean)
{
	if (n)
		qsort(v, n, sizeof(*v), by_stack);
	struct group *g = calloc(n ? n : 1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	size_t ng = 0;
	uint64_t total = 0;
	for (size_t i = 0; i < n; i++) {
		if (!ng || by_stack(&v[g[ng - 1].first], &v[i]))
			g[ng++] = (struct group){ .first = i };
		g[ng - 1].count++;
		g[ng - 1].bytes += v[i].usize;
		total += v[i].usize;
	}
	qsort(g, ng, sizeof(*g), by_bytes);
	/* "t*" is every thread's total; jemalloc adds one line per thread,
	 * which the sampler does not keep apart. */
	fprintf(f, "heap_v2/%" PRIu64 "\n  t*: %zu: %" PRIu64 " [0: 0]\n", mean, n, total);
	for (size_t k = 0; k < ng; k++) {
		const struct sampler_sample *s = &v[g[k].first];
		fputc('@', f);
		for (int i = 0; i < s->nframes; i++)
			fprintf(f, " 0x%" PRIx64, s->ips[i]);
		fprintf(f, "\n  t*: %zu: %" PRIu64 " [0: 0]\n", g[k].count, g[k].bytes);
	}
	free(g);
	return ferror(f) ? -EIO : 0;
}
