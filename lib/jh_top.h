/* SPDX-License-Identifier: BSD-2-Clause */
/* The flat/cumulative table (jeheap_top) and, for the dot writer, the call
 * graph's edges. Internal to libjeheap. */
#ifndef JH_TOP_H
#define JH_TOP_H

#include "jh_reduce.h"

/* What top sums for one reducer entry. The base's sums are kept apart so
 * that equal sums cancel exactly (a - b, not a running difference). */
struct jh_sums {
	double flat, cum;
	double bflat, bcum;
	uint64_t mark; /* the last stack (gen) that counted it: once per stack */
};

struct jh_edge {
	uint32_t from, to; /* reducer entries: caller, callee */
	double value, bvalue;
};

struct jh_edges {
	struct jh_edge *e;
	size_t n, cap;
	struct jh_u64map index; /* from << 32 | to -> edge */
};

struct jeheap_top {
	struct jh_entries names; /* the rows' names point into it */
	struct jh_sums *sums; /* by entry id; zeroed up to nsums */
	size_t nsums, sums_cap;
	double total, btotal;
	struct jeheap_top_entry *sorted;
	size_t nsorted;
	uint64_t gen;
	int want_edges;
	struct jh_edges edges;
};

int jh_edges_add(struct jh_edges *g, uint32_t from, uint32_t to, double v, int base);
/* jeheap_top_query, with the edges when want_edges. */
int jh_top_build(const jeheap_profile *p, jeheap_symbolizer *s, const struct jeheap_query *q,
		 int want_edges, jeheap_top **out);

#endif
