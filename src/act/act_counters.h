/* SPDX-License-Identifier: BSD-2-Clause */
/* Where every thread's jemalloc byte counters are, learnt from one borrowed
 * thread (act_counters.c). */
#ifndef JEATTACH_ACT_COUNTERS_H
#define JEATTACH_ACT_COUNTERS_H

#include <stdint.h>
#include "sym_maps.h"

struct target;

struct act_counters {
	/* 0 not learnt yet; 2 learnt from a held thread, not checked yet;
	 * 1 known; -1 not here (why says why) */
	int state;
	/* Each counter's distance from the thread pointer: the same for every
	 * thread when jemalloc's tsd is in static TLS. */
	int64_t alloc_off, dealloc_off;
	uint64_t tp; /* the thread pointer they were learnt from */
	pid_t tid;   /* the thread they were learnt from */
	/* glibc's list of thread descriptors (act_tplist.c): list 1 when
	 * node_off (a descriptor's list node minus its thread pointer) is
	 * known, walk_tp the thread pointer whose node walks start from. */
	int list;
	int64_t node_off;
	uint64_t walk_tp;
	char why[160];
};

/* Under a hold: the held thread's own counter addresses (thread.allocatedp,
 * thread.deallocatedp), as jemalloc hands them out. */
int act_counters_held(struct target *t, uint64_t *allocp, uint64_t *deallocp, char *why,
		      size_t whylen);
/* Under a hold, once: learn the offsets from the held thread (state 2, or
 * -1). */
void act_counters_learn(struct target *t, struct act_counters *k);
/* After the release, with the process's maps read then (that takes
 * milliseconds with thousands of threads: not while a thread is held):
 * check that the learnt counters lie in static TLS, next to the thread
 * pointer; state 1 or -1. */
void act_counters_check(struct act_counters *k, const struct sym_maps *maps);
/* Thread with thread pointer tp: its counters' addresses (out[0] allocated,
 * out[1] deallocated). 0, or -1 when they would not lie in tp's own
 * mapping (a thread without glibc's TLS, or one created after maps was
 * read). */
int act_counters_at(const struct act_counters *k, const struct sym_maps *maps, uint64_t tp,
		    uint64_t out[2]);

#endif
