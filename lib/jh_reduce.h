/* SPDX-License-Identifier: BSD-2-Clause */
/* The reducer: stacks of addresses -> stacks of names, as jeprof reduces
 * them (caller addresses minus one, allocator frames pruned), with
 * --focus/--ignore filters. It walks every input of a query itself and
 * hands each reduced stack to a writer's sink: the writers (top,
 * collapsed, flame, pprof; dot through top) only say what they do with
 * one stack. Internal. */
#ifndef JH_REDUCE_H
#define JH_REDUCE_H

#include <stddef.h>
#include <stdint.h>
#include "jh_index.h"
#include "jh_internal.h"

/* One name a reduced stack can hold (an "entry"): a function, a line or an
 * address, at the query's granularity, interned so that an entry id names
 * it. */
struct jh_name {
	const char *name;
	char *owned;   /* for names made here rather than the symbolizer's */
	int focus, ignore; /* the reducer's: -1 not yet matched, 0 or 1 */
};

/* The entries of one run. Filled by jh_reduce_run, owned by the writer:
 * names outlive the run (top's rows, the flame and dot labels point into
 * them). Entry ids are given in the order names first appear. */
struct jh_entries {
	struct jh_name *e;
	size_t n, cap;
	struct jh_strindex index; /* name -> entry */
};
void jh_entries_free(struct jh_entries *x);

struct jh_reducer;

/* One reduced stack, as a sink sees it. Stacks the filters drop or that
 * reduce to nothing are not handed on: n > 0. */
struct jh_reduced {
	const uint32_t *path; /* entry ids, leaf first (an address with inlined
			       * frames gives several) */
	size_t n;
	const uint32_t *addrs; /* the addresses kept, leaf first: address ids,
				* each one address of one input for the whole run */
	size_t naddrs;
	const struct jeheap_counts *counts;
	double value; /* counts' value of the query's metric */
	long which;   /* whose stack: 0 the first profile, i + 1 q->more[i], -1 the base */
	/* By thread (jh_sink.by_thread, or the query's one thread): jemalloc's
	 * thread number and its name (NULL: none); UINT64_MAX: all threads. */
	uint64_t thread;
	const char *thread_name;
	const struct jh_reducer *r; /* for jh_reduced_addr */
};

struct jh_sink {
	/* Once per reduced stack; a non-zero return stops the run and is
	 * returned. */
	int (*stack)(void *arg, const struct jh_reduced *rs);
	/* Non-zero: keep each address's frames for jh_reduced_addr (pprof's
	 * lines), from the reducer's one symbolization of it. */
	int want_frames;
	/* Non-zero: each stack once per thread that holds some of it (its tN:
	 * lines, each un-sampled on its own), where the profile has them. */
	int by_thread;
};

/* Reduce every stack of p (symbols from s), then of each q->more[i], then
 * of q->base, each input through its own symbolizer, and hand each to
 * sink->stack(arg, ...). Entries go to *names (zeroed by the caller, freed
 * with jh_entries_free even on error). The query is valid (jh_query_valid);
 * JEHEAP_EINVAL for a bad regex or granularity. */
int jh_reduce_run(const jeheap_profile *p, jeheap_symbolizer *s, const struct jeheap_query *q,
		  const struct jh_sink *sink, void *arg, struct jh_entries *names);

/* The reducer on its own, one stack at a time, outside any profile walk
 * (the record of recent allocations: its stacks are not a profile's). The
 * query gives the granularity and the filters (its inputs are not read);
 * names go to *names, which must outlive the reducer's use. NULL without
 * memory or for a bad regex or granularity. */
struct jh_reducer *jh_reducer_new(const struct jeheap_query *q, jeheap_symbolizer *s,
				  struct jh_entries *names);
/* One stack, leaf first as a profile holds it (return addresses): its
 * entry ids in *path (valid until the next call), *n of them (0: nothing
 * but the allocator's frames, or filtered out). 0 or JEHEAP_ENOMEM. */
int jh_reducer_stack(struct jh_reducer *r, const uint64_t *pcs, size_t npcs,
		     const uint32_t **path, size_t *n);
void jh_reducer_free(struct jh_reducer *r);

/* Address id k of the run (from rs->addrs): the address as it was looked up
 * (a caller's return address minus one) in *addr; returns its frames,
 * innermost first, *n of them (0: nothing known, or the sink did not ask
 * for frames). They live as long as the run. */
const struct jeheap_frame *jh_reduced_addr(const struct jh_reduced *rs, uint32_t k,
					   uint64_t *addr, size_t *n);

/* The query's metric is one of enum jeheap_metric, and more is whole. */
int jh_query_valid(const struct jeheap_query *q);

#endif
