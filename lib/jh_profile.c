/* SPDX-License-Identifier: BSD-2-Clause */
/* The profile model: accessors, un-sampling, iteration. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jh_internal.h"

JH_EXPORT void jeheap_profile_free(jeheap_profile *p)
{
	if (!p)
		return;
	free(p->stacks);
	free(p->pcs);
	for (size_t i = 0; i < p->nthreads; i++)
		free(p->threads[i].name);
	free(p->threads);
	free(p->maps);
	for (size_t i = 0; i < p->nsyms; i++)
		free(p->syms[i].name);
	free(p->syms);
	free(p->binary);
	free(p);
}

JH_EXPORT int jeheap_profile_format(const jeheap_profile *p)
{
	return p ? p->format : 0;
}

JH_EXPORT uint64_t jeheap_profile_sample_period(const jeheap_profile *p)
{
	return p ? p->period : 0;
}

JH_EXPORT size_t jeheap_profile_stack_count(const jeheap_profile *p)
{
	return p ? p->nstacks : 0;
}

JH_EXPORT const char *jeheap_profile_mappings(const jeheap_profile *p)
{
	return p && p->maps ? p->maps : "";
}

/* Each line separately, before any sum (jeprof's AdjustSamples, pprof's
 * scaleHeapSample): an allocation of size s is sampled with probability
 * 1 - exp(-s / period), so a line of n objects and s bytes stands for
 * n / (1 - exp(-(s/n)/period)) objects. */
void jh_unsample(uint64_t period, uint64_t n, uint64_t s, double *on, double *os)
{
	double dn = (double)n, ds = (double)s;
	/* Objects of no bytes (jemalloc records none; a hand-made or damaged
	 * profile may) would scale by 1/(1 - exp(0)): left as they are. */
	if (period && n && s) {
		double ratio = (ds / dn) / (double)period;
		double scale = 1.0 / (1.0 - exp(-ratio));
		dn *= scale;
		ds *= scale;
	}
	*on = dn;
	*os = ds;
}

void jh_counts(const jeheap_profile *p, const uint64_t raw[4], int scale, struct jeheap_counts *c)
{
	uint64_t period = scale == JEHEAP_UNSAMPLED ? p->period : 0;
	jh_unsample(period, raw[0], raw[1], &c->inuse_objects, &c->inuse_bytes);
	jh_unsample(period, raw[2], raw[3], &c->alloc_objects, &c->alloc_bytes);
}

double jh_metric(const struct jeheap_counts *c, int metric)
{
	switch (metric) {
	case JEHEAP_INUSE_OBJECTS:
		return c->inuse_objects;
	case JEHEAP_ALLOC_SPACE:
		return c->alloc_bytes;
	case JEHEAP_ALLOC_OBJECTS:
		return c->alloc_objects;
	default:
		return c->inuse_bytes;
	}
}

JH_EXPORT int jeheap_profile_totals(const jeheap_profile *p, int scale, struct jeheap_counts *out)
{
	if (!p || !out)
		return JEHEAP_EINVAL;
	struct jeheap_counts sum = { 0, 0, 0, 0 };
	for (size_t i = 0; i < p->nstacks; i++) {
		struct jeheap_counts c;
		jh_counts(p, p->stacks[i].raw, scale, &c);
		sum.inuse_objects += c.inuse_objects;
		sum.inuse_bytes += c.inuse_bytes;
		sum.alloc_objects += c.alloc_objects;
		sum.alloc_bytes += c.alloc_bytes;
	}
	*out = sum;
	return 0;
}

JH_EXPORT int jeheap_profile_foreach_stack(const jeheap_profile *p, int scale, jeheap_stack_cb cb,
					   void *arg)
{
	if (!p || !cb)
		return JEHEAP_EINVAL;
	for (size_t i = 0; i < p->nstacks; i++) {
		struct jeheap_counts c;
		const struct jh_stack *st = &p->stacks[i];
		jh_counts(p, st->raw, scale, &c);
		/* An empty stack (a bare '@') in a profile with no addresses at
		 * all: pcs is NULL, and NULL + 0 is undefined (found by
		 * tests/fuzz/fuzz_heap.c). */
		int r = cb(st->npcs ? p->pcs + st->pc_off : NULL, st->npcs, &c, arg);
		if (r)
			return r;
	}
	return 0;
}

/* One stack's un-sampled counts shared among its threads' lines in
 * proportion to each line's raw counts: the threads add up to the stack
 * exactly. Un-sampling each line on its own would not (it is not linear),
 * nor would a profile whose lines were counted while the process ran (a
 * dump taken under allocation can have tN: lines that do not add up to
 * their t*: line). */
static void share(const struct jeheap_counts *all, const uint64_t raw[4], const uint64_t sum[4],
		  struct jeheap_counts *c)
{
	const double whole[4] = { all->inuse_objects, all->inuse_bytes, all->alloc_objects,
				  all->alloc_bytes };
	double part[4];
	for (int k = 0; k < 4; k++)
		part[k] = sum[k] ? whole[k] * ((double)raw[k] / (double)sum[k]) : 0;
	*c = (struct jeheap_counts){ part[0], part[1], part[2], part[3] };
}

/* Each per-thread line's stack and counts (only thread tid's if only),
 * its thread id in *thread when thread is not NULL; each line un-sampled
 * on its own (jeprof --thread reads one thread as a profile of its own),
 * or, when split, its share of the stack (see share). A stack's lines are
 * consecutive, as the file lists them. */
static int thread_lines(const jeheap_profile *p, int only, uint64_t tid, uint64_t *thread,
			int split, jeheap_stack_cb cb, void *arg)
{
	uint64_t sum[4] = { 0 };
	struct jeheap_counts all = { 0 }; /* the stack's, once per stack */
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct jh_thread_line *tl = &p->threads[i];
		if (tl->stack == SIZE_MAX || (only && tl->tid != tid))
			continue;
		const struct jh_stack *st = &p->stacks[tl->stack];
		if (split && (i == 0 || p->threads[i - 1].stack != tl->stack)) {
			memset(sum, 0, sizeof(sum));
			for (size_t j = i; j < p->nthreads && p->threads[j].stack == tl->stack; j++)
				for (int k = 0; k < 4; k++)
					sum[k] += p->threads[j].raw[k];
			jh_counts(p, st->raw, JEHEAP_UNSAMPLED, &all);
		}
		struct jeheap_counts c;
		if (split)
			share(&all, tl->raw, sum, &c);
		else
			jh_counts(p, tl->raw, JEHEAP_UNSAMPLED, &c);
		if (thread)
			*thread = tl->tid;
		int r = cb(st->npcs ? p->pcs + st->pc_off : NULL, st->npcs, &c, arg);
		if (r)
			return r;
	}
	return 0;
}

int jh_foreach_query_stacks(const jeheap_profile *p, const struct jeheap_query *q,
			    jeheap_stack_cb cb, void *arg)
{
	if (!q->per_thread)
		return jeheap_profile_foreach_stack(p, JEHEAP_UNSAMPLED, cb, arg);
	return thread_lines(p, 1, q->thread, NULL, 0, cb, arg);
}

int jh_foreach_thread_line(const jeheap_profile *p, uint64_t *thread, jeheap_stack_cb cb,
			   void *arg)
{
	return thread_lines(p, 0, 0, thread, 1, cb, arg);
}

int jh_has_thread_names(const jeheap_profile *p)
{
	for (size_t i = 0; p && i < p->nthreads; i++)
		if (p->threads[i].name)
			return 1;
	return 0;
}

JH_EXPORT const char *jeheap_profile_thread_name(const jeheap_profile *p, uint64_t thread)
{
	for (size_t i = 0; p && i < p->nthreads; i++)
		if (p->threads[i].stack == SIZE_MAX && p->threads[i].tid == thread)
			return p->threads[i].name;
	return NULL;
}

JH_EXPORT int jeheap_profile_thread_by_name(const jeheap_profile *p, const char *name,
					    uint64_t *thread)
{
	if (!p || !name || !thread)
		return JEHEAP_EINVAL;
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct jh_thread_line *tl = &p->threads[i];
		if (tl->stack == SIZE_MAX && tl->name && !strcmp(tl->name, name)) {
			*thread = tl->tid;
			return 0;
		}
	}
	return JEHEAP_ENOENT;
}

JH_EXPORT int jeheap_profile_foreach_thread(const jeheap_profile *p, int scale,
					    jeheap_thread_cb cb, void *arg)
{
	if (!p || !cb)
		return JEHEAP_EINVAL;
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct jh_thread_line *tl = &p->threads[i];
		if (tl->stack != SIZE_MAX)
			continue;
		struct jeheap_counts c;
		jh_counts(p, tl->raw, scale, &c);
		int r = cb(tl->tid, tl->name, &c, arg);
		if (r)
			return r;
	}
	return 0;
}
