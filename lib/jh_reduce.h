/* SPDX-License-Identifier: BSD-2-Clause */
/* The reducer: stacks of addresses -> stacks of function names, as jeprof
 * reduces them (caller addresses minus one, allocator frames pruned), with
 * --focus/--ignore filters. Shared by top and collapsed. Internal. */
#ifndef JH_REDUCE_H
#define JH_REDUCE_H

#include <regex.h>
#include <stddef.h>
#include <stdint.h>
#include "jh_internal.h"

/* An open-addressing index of strings kept elsewhere (an array): slots
 * hold the element's index + 1, 0 is empty; the load stays under 1/2. */
typedef const char *(*jh_key_fn)(const void *arg, size_t i);
struct jh_strindex {
	uint32_t *slots;
	size_t cap;
};
uint64_t jh_hash_str(const char *s);
/* Room for one more key; rebuilds from key(arg, 0..n-1) when it grows. */
int jh_strindex_reserve(struct jh_strindex *x, size_t n, jh_key_fn key, const void *arg);
/* The slot of s: holding the index + 1 of an equal key, or 0 (free). */
uint32_t *jh_strindex_slot(const struct jh_strindex *x, const char *s, jh_key_fn key,
			   const void *arg);

struct jh_name {
	const char *name;
	char *owned;   /* for addresses without a symbol */
	int skip;      /* an allocator entry point: frames up to it are dropped */
	int focus, ignore; /* -1 not yet matched, 0 or 1 */
	double flat, cum;   /* top's sums */
	double bflat, bcum; /* ... of the base, kept apart so equal sums cancel exactly */
	uint64_t mark;    /* top: counted in this stack already */
};

struct jh_reducer {
	struct jh_name *e;
	size_t n, cap;
	struct jh_strindex names; /* name -> entry */
	uint64_t *pc_keys;    /* address -> entry, for the current profile */
	uint32_t *pc_vals;
	size_t pc_cap, pc_n;
	jeheap_symbolizer *sym;
	regex_t focus_re, ignore_re;
	int have_focus, have_ignore;
	uint32_t *path;
	size_t path_cap;
};

int jh_reducer_init(struct jh_reducer *r, const char *focus, const char *ignore);
void jh_reducer_free(struct jh_reducer *r);
/* Switch to another profile's addresses (the base of a diff). */
void jh_reducer_use(struct jh_reducer *r, jeheap_symbolizer *sym);
/* Reduce one stack: *path gets entry indices, leaf first; *n 0 when the
 * stack is filtered out or empty. */
int jh_reduce(struct jh_reducer *r, const uint64_t *pcs, size_t npcs, const uint32_t **path,
	      size_t *n);

#endif
