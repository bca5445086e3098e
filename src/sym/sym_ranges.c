/* SPDX-License-Identifier: BSD-2-Clause */
/* Sorted address ranges, for "is this pc inside jemalloc or ld.so?". */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include "core_grow.h"
#include "core_search.h"
#include "sym.h"

int sym_ranges_add(struct sym_ranges *r, uint64_t start, uint64_t end)
{
	int e = CORE_GROW(&r->v, &r->cap, r->n + 1);
	if (e)
		return e;
	r->v[r->n].start = start;
	r->v[r->n].end = end;
	r->n++;
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct sym_range *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

void sym_ranges_sort(struct sym_ranges *r)
{
	if (r->n)
		qsort(r->v, r->n, sizeof(r->v[0]), cmp_range);
}

int sym_ranges_contains(const struct sym_ranges *r, uint64_t addr)
{
	/* Ranges may overlap (a function inside a mapping); find the last range
	 * starting at or before addr, then look back over overlapping ones. */
	_Static_assert(offsetof(struct sym_range, start) == 0, "core_search's key comes first");
	size_t lo = core_count_at_or_below(r->v, r->n, sizeof(r->v[0]), addr);
	for (size_t i = lo; i-- > 0;) {
		if (addr < r->v[i].end)
			return 1;
		if (lo - i > 64)
			break;
	}
	return 0;
}

void sym_ranges_free(struct sym_ranges *r)
{
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}
