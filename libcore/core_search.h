/* SPDX-License-Identifier: BSD-2-Clause */
/* core_search: "which sorted entry does this address fall after?", the
 * question both a symbol table (libjeheap's nearest symbol) and a range
 * list (jeattach's unsafe code) ask. */
#ifndef CORE_SEARCH_H
#define CORE_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/* base: n elements of stride bytes, each beginning with a uint64_t key,
 * sorted by it. Returns how many keys are <= key: the element at or below
 * key is the one before that index (none when 0). */
size_t core_count_at_or_below(const void *base, size_t n, size_t stride, uint64_t key);

#endif
