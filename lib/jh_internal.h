/* SPDX-License-Identifier: BSD-2-Clause */
/* Internal to libjeheap: the profile model shared by its files. */
#ifndef JH_INTERNAL_H
#define JH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "core_grow.h"
#include "jeheap.h"

#define JH_EXPORT __attribute__((visibility("default")))

struct jh_stack {
	size_t pc_off;  /* index of the first pc in profile->pcs */
	uint32_t npcs;
	uint64_t raw[4]; /* curobjs, curbytes, accumobjs, accumbytes of the t*: line */
};

struct jh_thread_line {
	size_t stack; /* index into stacks; SIZE_MAX for the header totals */
	uint64_t tid;
	uint64_t raw[4];
	char *name; /* header lines only: what thread.prof.name set, or NULL */
};

struct jeheap_profile {
	int format;
	uint64_t period;
	struct jh_stack *stacks;
	size_t nstacks, stacks_cap;
	uint64_t *pcs;
	size_t npcs, pcs_cap;
	struct jh_thread_line *threads;
	size_t nthreads, threads_cap;
	char *maps;
	size_t maps_len, maps_cap;
	/* jeprof's symbolized form: the symbols that came with the profile,
	 * keyed by the addresses jeprof looks up (callers already minus one). */
	struct jh_symbol *syms;
	size_t nsyms, syms_cap;
	char *binary;
	/* When the file it was read from was last written (seconds since the
	 * epoch); 0: read from memory or a stream. */
	int64_t written;
	long written_nsec; /* its nanoseconds (jeheap_profile_time's fallback) */
};

struct jh_symbol {
	uint64_t addr;
	char *name;
};

/* core_grow (the one way arrays grow, core/core_grow.c) in the library's
 * error vocabulary: 0, or JEHEAP_ENOMEM. */
static inline int jh_grow(void **v, size_t *cap, size_t need, size_t elem)
{
	return core_grow(v, cap, need, elem) ? JEHEAP_ENOMEM : 0;
}
static inline int jh_grow_zeroed(void **v, size_t *cap, size_t need, size_t elem)
{
	return core_grow_zeroed(v, cap, need, elem) ? JEHEAP_ENOMEM : 0;
}

/* jeprof's un-sampling of one line (AdjustSamples, algorithm 2). */
void jh_unsample(uint64_t period, uint64_t n, uint64_t s, double *on, double *os);
void jh_counts(const jeheap_profile *p, const uint64_t raw[4], int scale, struct jeheap_counts *c);
double jh_metric(const struct jeheap_counts *c, int metric);
/* Every stack with the counts a query asks for: its t*: line, or the
 * tN: line of one thread (stacks that thread has none of are skipped);
 * under q->drop_negative, less the base's same stack. */
int jh_foreach_query(const jeheap_profile *p, const struct jeheap_query *q, jeheap_stack_cb cb,
		     void *arg);
/* The same, without --drop_negative's subtraction: what a query's stacks
 * hold in p alone. */
int jh_foreach_query_stacks(const jeheap_profile *p, const struct jeheap_query *q,
			    jeheap_stack_cb cb, void *arg);
/* jh_foreach_query under q->drop_negative (jh_negative.c): p's stacks
 * minus the base's same stacks, at least 0; nothing for the base itself. */
int jh_foreach_dropping_negative(const jeheap_profile *p, const struct jeheap_query *q,
				 jeheap_stack_cb cb, void *arg);
/* Every tN: line under a stack, one call each, *thread set to its N
 * before the call: the stacks broken down by thread, each line's share of
 * its stack's un-sampled counts, so that the threads add up to it. */
int jh_foreach_thread_line(const jeheap_profile *p, uint64_t *thread, jeheap_stack_cb cb,
			   void *arg);
/* Does any thread of p carry a name? */
int jh_has_thread_names(const jeheap_profile *p);

#endif
