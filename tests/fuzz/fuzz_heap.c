/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer harness: the heap profile reader and everything that walks the
 * model it builds (totals, top, collapsed, flame, dot, pprof; a symbolized
 * profile's own names through the symbolizer), on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "jeheap.h"

static int sink(const char *stack, double v, double b, void *arg)
{
	(void)stack, (void)v, (void)b, (void)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	jeheap_profile *p;
	struct jeheap_error_info ei;
	if (jeheap_profile_read_memory(data, size, &p, &ei))
		return 0;
	struct jeheap_counts c;
	jeheap_profile_totals(p, JEHEAP_UNSAMPLED, &c);
	jeheap_top *t;
	for (int m = JEHEAP_INUSE_SPACE; m <= JEHEAP_ALLOC_OBJECTS; m++)
		if (!jeheap_top_new(p, NULL, m, &t))
			jeheap_top_free(t);
	jeheap_symbolizer *s = NULL;
	jeheap_symbolizer_new(p, "/nonexistent", &s); /* the profile's own names only */
	struct jeheap_query q = { .metric = JEHEAP_INUSE_SPACE, .base = p, .base_symbolizer = s };
	jeheap_collapsed(p, s, &q, sink, NULL);
	FILE *null = fopen("/dev/null", "w");
	if (null) {
		q.granularity = JEHEAP_ADDRESSES;
		jeheap_flamegraph_svg(p, s, &q, "fuzz", null);
		jeheap_dot(p, s, &q, "fuzz", 0, null);
		q.granularity = JEHEAP_LINES;
		jeheap_pprof(p, s, &q, null);
		fclose(null);
	}
	jeheap_symbolizer_free(s);
	jeheap_profile_free(p);
	return 0;
}
