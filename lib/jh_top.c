/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof --text, computed the way jeprof computes it (jeprof.in:
 * ReadThreadedHeapProfile, ReduceProfile, FlatProfile, CumulativeProfile,
 * PrintText): each stack's t*: line un-sampled on its own, reduced (see
 * jh_reduce.c), a function counted once per stack (recursion), flat to the
 * first; sorted by flat value, then name. With a base, the base's values
 * are subtracted (jeprof --base). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "jh_top.h"

/* Sums for every entry the reducer has made so far: entries appear as
 * stacks are reduced, and new ones start at zero. */
static int cover_entries(jeheap_top *t, size_t n)
{
	if (n <= t->nsums)
		return 0;
	if (jh_grow_zeroed((void **)&t->sums, &t->sums_cap, n, sizeof(*t->sums)))
		return JEHEAP_ENOMEM;
	t->nsums = n; /* past nsums nothing was ever added: still zero */
	return 0;
}

static int add_stack(void *arg, const struct jh_reduced *rs)
{
	jeheap_top *t = arg;
	const uint32_t *path = rs->path;
	size_t n = rs->n;
	double v = rs->value;
	int base = rs->which < 0;
	if (cover_entries(t, t->names.n))
		return JEHEAP_ENOMEM;
	t->gen++;
	for (size_t i = 0; i < n; i++) {
		struct jh_sums *en = &t->sums[path[i]];
		if (en->mark == t->gen)
			continue; /* recursion: once per stack */
		en->mark = t->gen;
		if (i == 0)
			*(base ? &en->bflat : &en->flat) += v;
		*(base ? &en->bcum : &en->cum) += v;
	}
	*(base ? &t->btotal : &t->total) += v;
	/* The call graph's edges, caller -> callee, as jeprof's PrintDot
	 * counts them: every adjacent pair of every stack. */
	for (size_t i = 0; t->want_edges && i + 1 < n; i++)
		if (jh_edges_add(&t->edges, path[i + 1], path[i], v, base))
			return JEHEAP_ENOMEM;
	return 0;
}

int jh_edges_add(struct jh_edges *g, uint32_t from, uint32_t to, double v, int base)
{
	uint32_t *slot = jh_u64map_slot(&g->index, (uint64_t)from << 32 | to);
	if (!slot)
		return -1;
	if (*slot == UINT32_MAX) {
		if (jh_grow((void **)&g->e, &g->cap, g->n + 1, sizeof(*g->e)))
			return -1;
		g->e[g->n] = (struct jh_edge){ from, to, 0, 0 };
		*slot = (uint32_t)g->n++;
	}
	*(base ? &g->e[*slot].bvalue : &g->e[*slot].value) += v;
	return 0;
}

static int cmp_top(const void *a, const void *b)
{
	const struct jeheap_top_entry *x = a, *y = b;
	if (x->flat != y->flat)
		return x->flat > y->flat ? -1 : 1;
	return strcmp(x->name, y->name);
}

int jh_top_build(const jeheap_profile *p, jeheap_symbolizer *s, const struct jeheap_query *q,
		 int want_edges, jeheap_top **out)
{
	if (!p || !out || !jh_query_valid(q))
		return JEHEAP_EINVAL;
	*out = NULL;
	jeheap_top *t = calloc(1, sizeof(*t));
	if (!t)
		return JEHEAP_ENOMEM;
	t->want_edges = want_edges;
	static const struct jh_sink sink = { .stack = add_stack };
	int r = jh_reduce_run(p, s, q, &sink, t, &t->names);
	if (!r)
		r = cover_entries(t, t->names.n); /* also entries no kept stack counted */
	if (!r && !(t->sorted = calloc(t->names.n ? t->names.n : 1, sizeof(*t->sorted))))
		r = JEHEAP_ENOMEM;
	if (r) {
		jeheap_top_free(t);
		return r;
	}
	size_t k = 0;
	t->total -= t->btotal;
	for (size_t i = 0; i < t->names.n; i++) {
		const struct jh_sums *e = &t->sums[i];
		double flat = e->flat - e->bflat, cum = e->cum - e->bcum;
		if (flat == 0 && cum == 0)
			continue;
		t->sorted[k].name = t->names.e[i].name;
		t->sorted[k].flat = flat;
		t->sorted[k].cum = cum;
		k++;
	}
	qsort(t->sorted, k, sizeof(*t->sorted), cmp_top);
	t->nsorted = k;
	*out = t;
	return 0;
}

JH_EXPORT int jeheap_top_query(const jeheap_profile *p, jeheap_symbolizer *s,
			       const struct jeheap_query *q, jeheap_top **out)
{
	return jh_top_build(p, s, q, 0, out);
}

JH_EXPORT int jeheap_top_new(const jeheap_profile *p, jeheap_symbolizer *s, int metric,
			     jeheap_top **out)
{
	struct jeheap_query q = { .metric = metric };
	return jeheap_top_query(p, s, &q, out);
}

JH_EXPORT void jeheap_top_free(jeheap_top *t)
{
	if (!t)
		return;
	jh_entries_free(&t->names);
	free(t->sums);
	free(t->sorted);
	free(t->edges.e);
	jh_u64map_free(&t->edges.index);
	free(t);
}

JH_EXPORT double jeheap_top_total(const jeheap_top *t)
{
	return t ? t->total : 0;
}

JH_EXPORT size_t jeheap_top_count(const jeheap_top *t)
{
	return t ? t->nsorted : 0;
}

JH_EXPORT const struct jeheap_top_entry *jeheap_top_entry(const jeheap_top *t, size_t i)
{
	return t && i < t->nsorted ? &t->sorted[i] : NULL;
}
