/* SPDX-License-Identifier: BSD-2-Clause */
/* The record of recent allocations as libjeheap holds it: shared by its
 * reader (jh_recent_read.c), its model (jh_recent.c) and its views
 * (jh_recent_views.c). Internal. */
#ifndef JH_RECENT_H
#define JH_RECENT_H

#include <stddef.h>
#include <stdint.h>
#include "jh_internal.h"
#include "jh_names.h"
#include "jh_reduce.h"
#include "jh_seqset.h"

/* Bounds on what a record may ask for. jemalloc keeps at most
 * prof_recent_alloc_max records (jeattach --recent takes up to 10^6) of
 * at most PROF_BT_MAX (128) frames; a thread's name is short. More is a
 * forged or damaged file, refused before it costs memory. */
#define JH_RECENT_MAX_RECORDS ((size_t)4 << 20)
#define JH_RECENT_MAX_FRAMES 1024
#define JH_RECENT_MAX_NAME 4096
#define JH_RECENT_MAX_MAPS ((size_t)64 << 20) /* act_recent_file's RECENT_MAPS_MAX */
#define JH_RECENT_MAX_FILE ((size_t)2 << 30)
/* A record nests 4 deep (record, array, object, trace); a later jemalloc's
 * keys, skipped, may nest more, within reason. */
#define JH_RECENT_MAX_DEPTH 32

#define JH_NO_ID UINT32_MAX

struct jh_rrec {
	uint64_t size, usize, alloc_thread, free_thread, alloc_time, free_time;
	uint32_t alloc_trace, free_trace; /* ids in traces; JH_NO_ID: none */
	const char *alloc_name, *free_name; /* thread names (pool), or NULL */
	unsigned char released, free_known;
};

struct jeheap_recent {
	uint64_t sample_interval;
	int64_t recent_alloc_max;
	struct jh_rrec *recs;
	size_t nrecs, recs_cap;
	struct jh_seqset traces; /* of uint64_t return addresses, leaf first */
	struct jh_pool pool;     /* thread names, the clock's name */
	struct jh_strindex names; /* thread name -> tnames[] */
	const char **tnames;
	size_t ntnames, tnames_cap;
	int has_jeattach;
	long pid;
	double time;
	const char *clock;
	uint64_t now;
	/* The maps and stamps as a profile, for jeheap_symbolizer_new. */
	jeheap_profile *profile;
	/* After jeheap_recent_symbolize: each trace's stack (ids in stacks),
	 * the stacks as entry ids (in entries), and their names. */
	uint32_t *trace_stack;
	struct jh_seqset stacks; /* of uint32_t entry ids, leaf first */
	struct jh_entries entries;
	const char **frames; /* stacks' names, by the stacks' element offsets */
	size_t frames_cap;
	/* The records allocated at each stack: those of stack k are
	 * by_stack[stack_first[k] .. stack_first[k + 1]), in record order (a
	 * view of one stack reads its records only). */
	size_t *stack_first, *by_stack;
	int symbolized;
};

/* The record's stack id of a trace id (JEHEAP_RECENT_NONE before
 * symbolizing, or for none). */
size_t jh_recent_stack_of(const jeheap_recent *r, uint32_t trace);
/* Record i as the public struct. */
void jh_recent_record(const jeheap_recent *r, size_t i, struct jeheap_recent_record *out);
/* The thread name interned: the pool's copy (one per distinct name). */
const char *jh_recent_name(jeheap_recent *r, const char *s);

#endif
