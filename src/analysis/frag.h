/* SPDX-License-Identifier: BSD-2-Clause */
/* frag_: where the gap between allocated and resident memory comes from,
 * worked out from jemalloc's own JSON report (malloc_stats_print "J").
 * Pure analysis: no ptrace, no target, no printing; it reads text and
 * fills structs, so it is tested on saved reports (tests/check_frag.c).
 * --frag (act_frag.c) collects the report in one hold; the CLI shows the
 * result (cli_frag_*.c).
 *
 * The arithmetic (doc/jeattach.1, FRAGMENTATION), from jemalloc 5.x's
 * ctl.c (ctl_refresh, ctl_arena_stats_sdmerge) and arena.c
 * (arena_stats_merge):
 *   allocated = sum over small classes of curregs * size
 *             + sum over large classes of curlextents * size
 *   active    = allocated
 *             + small free regions: (curslabs * nregs - curregs) * size
 *             + slab tails: curslabs * (slab_size - nregs * size)
 *             + large padding: curlextents * page with opt.cache_oblivious
 *               (arena.c, arena_extent_alloc_large: usize + sz_large_pad)
 *   resident  = active + pdirty * page + the base allocator's resident pages
 * jemalloc does not print the base's resident pages; its allocated bytes
 * ("base", the metadata less "internal", which lives in the arenas'
 * slabs and is part of allocated) stand for them, so the sum of the
 * categories differs from resident by the base's unused page tails, and
 * by whatever moved between jemalloc's reads of its counters. */
#ifndef JEATTACH_FRAG_H
#define JEATTACH_FRAG_H

#include <stddef.h>
#include <stdint.h>

#define FRAG_MAX_CLASSES 1024 /* jemalloc has 36 to ~232 bins, ~200 large classes */

/* One small size class, as the merged arena reports it. */
struct frag_bin {
	unsigned index;
	uint64_t size, nregs, slab_size;
	uint64_t curregs, curslabs, nonfull_slabs;
	/* opt.prof_stats (5.3+): requested bytes and count of the live
	 * *sampled* objects of this class (prof.stats.bins.<i>.live) */
	int has_prof;
	uint64_t prof_req, prof_count;
};

/* What the report says, as read. */
struct frag_stats {
	char version[96];
	uint64_t page;
	int cache_oblivious; /* opt.cache_oblivious (5.3), else config.cache_oblivious */
	uint64_t allocated, active, metadata, resident, mapped, retained;
	uint64_t pactive, pdirty, pmuzzy;
	uint64_t base, internal, tcache_bytes;
	int64_t dirty_decay_ms, muzzy_decay_ms; /* arenas.*: the default of new arenas */
	int opt_background_thread;               /* the start-up option */
	uint64_t bg_threads;                     /* background threads running */
	int prof_stats;                          /* the report has prof_live_* per bin */
	struct frag_bin *bins;
	size_t nbins;
	uint64_t large_allocated, large_extents; /* sums over the large classes */
	uint64_t min_large;                      /* the smallest large class */
	uint64_t prof_small_live;                /* sum of the bins' prof_count */
	/* opt.prof_stats for the large classes: their rounding up, estimated */
	int large_prof;
	uint64_t large_unrequested;
};

/* Parse jemalloc's JSON report (text of len bytes). 0, or -1 with a
 * one-line reason in why (not JSON, or a figure missing). */
int frag_stats_read(const char *text, size_t len, struct frag_stats *st, char *why, size_t whylen);
void frag_stats_free(struct frag_stats *st);
/* The small class a usable size falls in (the smallest bin at least
 * that large), or -1 past the small classes. */
int frag_class_of(const struct frag_stats *st, double size);

/* The categories that make up resident, in this order. */
enum frag_cat {
	FRAG_ALLOCATED,  /* in use by the program (and in thread caches) */
	FRAG_BIN_FREE,   /* free regions in slabs that hold live objects */
	FRAG_SLAB_TAIL,  /* slab bytes no region fits in */
	FRAG_LARGE_PAD,  /* the page each large extent carries (cache_oblivious) */
	FRAG_DIRTY,      /* freed pages not yet returned to the system */
	FRAG_METADATA,   /* jemalloc's base allocator */
	FRAG_NCATS,
};
const char *frag_cat_name(enum frag_cat c);

/* A size class in the ranking (small ones only: large extents waste at
 * most their pad, counted as a category). */
struct frag_class {
	const struct frag_bin *bin;
	uint64_t wasted;   /* free regions + tail, bytes */
	double util;       /* curregs / (curslabs * nregs) */
	/* From opt.prof_stats: the share of usable bytes not requested,
	 * and that share of the class's allocated bytes (an estimate from
	 * sampled objects); -1 when unknown. */
	double req_frag;
	int64_t req_waste;
};

enum frag_advice_kind {
	FRAG_ADV_PURGE,       /* dirty pages: --purge / --decay */
	FRAG_ADV_BACKGROUND,  /* background_thread off */
	FRAG_ADV_NO_DECAY,    /* dirty_decay_ms -1: never purged */
	FRAG_ADV_SMALL,       /* small-bin fragmentation: the classes named */
	FRAG_ADV_LARGE_PAD,   /* opt.cache_oblivious */
	FRAG_ADV_MUZZY,       /* MADV_FREE'd pages the kernel still counts */
};

struct frag_advice {
	enum frag_advice_kind kind;
	char text[400];
};

struct frag_report {
	struct frag_stats st;
	uint64_t cat[FRAG_NCATS];
	uint64_t sum;          /* of the categories */
	int64_t unexplained;   /* resident - sum */
	int64_t active_gap;    /* active - (allocated + free + tail + pad): a race if not 0 */
	uint64_t dirty, muzzy; /* bytes */
	/* Profiling's cost: jemalloc 5.3 gives each sampled small object a
	 * large extent of the smallest large class (imalloc_sample bumps its
	 * usize to SC_LARGE_MINCLASS), counted under the large classes.
	 * Known with opt.prof_stats only (the bins' live sampled counts). */
	uint64_t promoted_objects, promoted_bytes;
	/* Inside allocated: usable bytes not requested (sizes rounded up to
	 * their class), estimated from opt.prof_stats' sampled objects; -1
	 * unknown. */
	int64_t unrequested_small, unrequested_large;
	struct frag_class *classes; /* worst first, only classes with slabs */
	size_t nclasses;
	struct frag_advice advice[8];
	size_t nadvice;
	/* --frag-profile: filled by frag_sites_map, else NULL */
	struct frag_sites *sites;
};

/* Build the report from what frag_stats_read filled (taken over: the
 * report frees it). 0 or -ENOMEM. */
int frag_report_build(struct frag_stats *st, struct frag_report **out);
void frag_report_free(struct frag_report *r);

/* ---- the allocation sites that fill the worst classes (frag_sites.c) */
struct frag_site {
	int bin;            /* index into st.bins; -1: the average is past them */
	double bytes, objects; /* un-sampled, from the heap profile */
	char *stack;        /* "caller;...;allocating function", allocator frames pruned */
};

struct frag_sites {
	struct frag_site *v;
	size_t n;
	char source[256];   /* the profile's file */
	double unmapped_bytes; /* stacks whose average size is past the small classes */
};

/* Read the heap profile at path (a profile of process pid, symbolized
 * through its /proc entries; pid 0: through the profile's own maps) and
 * attach to r every site holding memory, with the small class its
 * average usable size (bytes / objects of the stack) falls in, most
 * bytes first. 0, or a libjeheap error
 * code (jeheap_strerror) with the reason in why. */
int frag_sites_map(struct frag_report *r, const char *path, int pid, char *why, size_t whylen);
void frag_sites_free(struct frag_sites *s);
/* Was the heap profile at path written by process pid (frag_owner.c)? 0,
 * or -1 with why (the cause, without the fix). */
int frag_profile_owned(const char *path, int pid, char *why, size_t whylen);

#endif
