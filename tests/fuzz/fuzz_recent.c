/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer harness: the reader of the record of recent allocations
 * (core_jpull under jh_recent_read.c) and every view over what it
 * accepts, addresses only (the record's maps name files of this machine,
 * which a fuzzer should not make the symbolizer open). */
#include <stddef.h>
#include <stdint.h>
#include "jeheap.h"

static int record(size_t i, const struct jeheap_recent_record *rec, void *arg)
{
	*(size_t *)arg += i + (rec->alloc_thread_name != NULL);
	return 0;
}

static int group(const struct jeheap_recent_group *g, void *arg)
{
	struct jeheap_recent_lifetimes lt;
	return jeheap_recent_lifetimes(arg, g->alloc_stack, &lt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	jeheap_recent *r;
	struct jeheap_error_info ei;
	if (jeheap_recent_read_memory(data, size, &r, &ei))
		return 0;
	struct jeheap_recent_info in;
	jeheap_recent_get_info(r, &in);
	size_t n = 0;
	if (!jeheap_recent_symbolize(r, NULL, JEHEAP_ADDRESSES)) {
		jeheap_recent_live(r, 0, JEHEAP_RECENT_BY_SIZE, record, &n);
		jeheap_recent_live(r, 1000, JEHEAP_RECENT_BY_AGE, record, &n);
		jeheap_recent_groups(r, JEHEAP_RECENT_BY_STACK, group, r);
		jeheap_recent_groups(r, JEHEAP_RECENT_CROSS_THREAD, group, r);
		for (size_t k = 0; k < jeheap_recent_stack_count(r); k++) {
			const char *const *f;
			size_t m = jeheap_recent_stack(r, k, &f);
			for (size_t j = 0; j < m; j++)
				n += f[j][0] != 0;
		}
	}
	struct jeheap_recent_lifetimes lt;
	jeheap_recent_lifetimes(r, JEHEAP_RECENT_NONE, &lt);
	jeheap_recent_free(r);
	return (int)(n & 0);
}
