/* SPDX-License-Identifier: BSD-2-Clause */
/* A query's stacks before any reduction: the one place that chooses how
 * an input is walked (as it is, one thread's lines, or with the base
 * subtracted stack by stack for --drop_negative), and their sum (what
 * jeprof's "Total:" line shows). */
#include "config.h"

#include "jh_internal.h"

int jh_foreach_query(const jeheap_profile *p, const struct jeheap_query *q, jeheap_stack_cb cb,
		     void *arg)
{
	if (q->drop_negative && q->base)
		return jh_foreach_dropping_negative(p, q, cb, arg);
	return jh_foreach_query_stacks(p, q, cb, arg);
}

static int add_metric(const uint64_t *pcs, size_t n, const struct jeheap_counts *c, void *arg)
{
	double *sum = arg;
	(void)pcs;
	(void)n;
	sum[0] += jh_metric(c, (int)sum[1]);
	return 0;
}

/* Each input's stacks as the reducer would see them (jh_foreach_query:
 * one thread, --drop_negative), summed before any reduction. */
JH_EXPORT int jeheap_query_total(const jeheap_profile *p, const struct jeheap_query *q,
				 double *out)
{
	if (!p || !out || !q || q->metric < JEHEAP_INUSE_SPACE || q->metric > JEHEAP_ALLOC_OBJECTS ||
	    (q->nmore && !q->more))
		return JEHEAP_EINVAL;
	double sum[2] = { 0, q->metric }, base[2] = { 0, q->metric };
	int e = jh_foreach_query(p, q, add_metric, sum);
	for (size_t i = 0; !e && i < q->nmore; i++)
		e = q->more[i] ? jh_foreach_query(q->more[i], q, add_metric, sum) : JEHEAP_EINVAL;
	if (!e && q->base)
		e = jh_foreach_query(q->base, q, add_metric, base);
	*out = e ? 0 : sum[0] - base[0];
	return e;
}
