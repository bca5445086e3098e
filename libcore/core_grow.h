/* SPDX-License-Identifier: BSD-2-Clause */
/* core_: what jeattach and libjeheap both need, written once (an internal
 * convenience library linked into both; libjeheap exports none of it).
 * core_grow: the one way arrays grow. */
#ifndef CORE_GROW_H
#define CORE_GROW_H

#include <stddef.h>

/* Make room for need elements of elem bytes in *v (capacity *cap),
 * doubling from 16. New elements are not initialized (zeroing them would
 * touch pages a large profile may never use). 0 or -ENOMEM; on failure *v
 * and *cap are unchanged. */
int core_grow(void **v, size_t *cap, size_t need, size_t elem);

/* The same, and the room added is zeroed: for tables indexed by an id
 * that grows as ids appear, where 0 means "nothing yet". */
int core_grow_zeroed(void **v, size_t *cap, size_t need, size_t elem);

/* For typed arrays: CORE_GROW(&a, &cap, n + 1). */
#define CORE_GROW(vp, capp, need) core_grow((void **)(vp), (capp), (need), sizeof(**(vp)))

#endif
