/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <string.h>
#include "core_search.h"

size_t core_count_at_or_below(const void *base, size_t n, size_t stride, uint64_t key)
{
	const unsigned char *b = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint64_t k;
		memcpy(&k, b + mid * stride, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
