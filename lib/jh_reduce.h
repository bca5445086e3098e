/* SPDX-License-Identifier: BSD-2-Clause */
/* The reducer: stacks of addresses -> stacks of function names, as jeprof
 * reduces them (caller addresses minus one, allocator frames pruned), with
 * --focus/--ignore filters. Shared by top and collapsed. Internal. */
#ifndef JH_REDUCE_H
#define JH_REDUCE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include "jh_index.h"
#include "jh_internal.h"

struct jh_name {
	const char *name;
	char *owned;   /* for addresses without a symbol */
	int focus, ignore; /* -1 not yet matched, 0 or 1 */
};

/* What one address reduces to: n entries (inlined frames innermost first,
 * then the containing function) from pc_ent[first]. */
struct jh_pcinfo {
	uint64_t addr; /* as looked up: a caller's return address minus one */
	uint32_t first, n;
	uint32_t ffirst, nframes; /* its frames in frames[], when keep_frames */
	int skip; /* the containing function is an allocator entry point */
};

struct jh_reducer {
	struct jh_name *e;
	size_t n, cap;
	struct jh_strindex names; /* name -> entry */
	struct jh_u64map pcs; /* address -> pcinfo, for the current profile */
	struct jh_pcinfo *pcinfo;
	size_t npcinfo, pcinfo_cap;
	uint32_t *pc_ent;
	size_t npc_ent, pc_ent_cap;
	int granularity; /* enum jeheap_granularity */
	/* Set by a writer that needs each address's frames themselves (pprof):
	 * kept from the one symbolization instead of asked for again. */
	int keep_frames;
	struct jeheap_frame *frames;
	size_t nframes, frames_cap;
	jeheap_symbolizer *sym;
	regex_t focus_re, ignore_re;
	int have_focus, have_ignore;
	uint32_t *path;
	size_t path_cap;
	uint32_t *apath; /* the addresses kept by jh_reduce: pcinfo indices, leaf first */
	size_t napath, apath_cap;
};

/* focus, ignore and granularity from q. */
int jh_reducer_init(struct jh_reducer *r, const struct jeheap_query *q);
void jh_reducer_free(struct jh_reducer *r);
/* Switch to another profile's addresses (the base of a diff). */
void jh_reducer_use(struct jh_reducer *r, jeheap_symbolizer *sym);
/* Reduce one stack: *path gets entry indices, leaf first (an address with
 * inlined frames gives several); *n 0 when the stack is filtered out or
 * empty. */
int jh_reduce(struct jh_reducer *r, const uint64_t *pcs, size_t npcs, const uint32_t **path,
	      size_t *n);

/* Walk the stacks of p, then of each q->more[i], then of q->base, pointing
 * the reducer at each one's symbolizer; *which tells the callback whose
 * stack it has: 0 for p, i + 1 for more[i], -1 for the base. */
int jh_foreach_input(struct jh_reducer *r, const jeheap_profile *p, jeheap_symbolizer *s,
		     const struct jeheap_query *q, jeheap_stack_cb cb, void *arg, long *which);
/* The query's metric is one of enum jeheap_metric, and more is whole. */
int jh_query_valid(const struct jeheap_query *q);

#endif
