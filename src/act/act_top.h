/* SPDX-License-Identifier: BSD-2-Clause */
/* --top, --prometheus: what one refresh reads from jemalloc (act_top.c).
 * The CLI (cli_top*.c) decides when to hold, which thread to borrow, and
 * how to show the figures. */
#ifndef JEATTACH_ACT_TOP_H
#define JEATTACH_ACT_TOP_H

#include <stdint.h>
#include "act.h"
#include "act_counters.h"

/* jemalloc's summary statistics, in this order (stats.<name>). */
enum { ACT_TOP_ALLOCATED, ACT_TOP_ACTIVE, ACT_TOP_RESIDENT, ACT_TOP_MAPPED, ACT_TOP_RETAINED,
       ACT_TOP_METADATA, ACT_TOP_NSTATS };
#define ACT_TOP_MAX_ARENAS 256

extern const char *const act_top_stat_names[ACT_TOP_NSTATS];

struct act_top_stats {
	uint64_t v[ACT_TOP_NSTATS];
	/* Learnt in the first hold: the page size and, per arena, the
	 * address of its active page counter (0: none: an arena not yet
	 * initialized, or a jemalloc before 5.2.1). */
	int known;
	char version[64]; /* "version", or "" */
	uint64_t page;
	unsigned narenas;
	uint64_t pactivep[ACT_TOP_MAX_ARENAS];
	struct act_counters counters; /* where each thread's counters are */
};

/* Under a hold: epoch, then stats.*; the first time (s->known 0) also
 * config.stats, arenas.page, each arena's pactivep and where the threads'
 * counters are. */
enum ja_exit act_top_stats(struct target *t, struct act_result *r, struct act_top_stats *s);
#endif
