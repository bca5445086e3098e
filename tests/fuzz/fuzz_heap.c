/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer harness: the heap profile reader and everything that walks the
 * model it builds (totals, top, collapsed), on arbitrary bytes. */
#include <stddef.h>
#include <stdint.h>
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
	struct jeheap_query q = { .metric = JEHEAP_INUSE_SPACE, .base = p };
	jeheap_collapsed(p, NULL, &q, sink, NULL);
	jeheap_profile_free(p);
	return 0;
}
