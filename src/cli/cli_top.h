/* SPDX-License-Identifier: BSD-2-Clause */
/* --top and --prometheus: live views of allocators. A target's refresh
 * (cli_top_target.c) holds one thread once for the aggregate figures;
 * per-thread counters come from cli_top_threads.c without any stop. --top
 * (cli_top.c) shows one target: cli_top_screen.c (a terminal),
 * cli_top_json.c (one JSON line per refresh); the exporter (cli_export.c)
 * follows every target given, and cli_prom_write.c writes the figures in
 * node_exporter's textfile format. */
#ifndef JEATTACH_CLI_TOP_H
#define JEATTACH_CLI_TOP_H

#include <stdio.h>
#include "act_top.h"
#include "options.h"
#include "core_clock.h"
#include "target_ident.h"

struct top_thread {
	pid_t tid;
	unsigned long long start; /* field 22 of its stat: a reused tid differs */
	char comm[17];            /* as /proc says: the program chose it, escape it */
	uint64_t allocp, deallocp; /* counter addresses; 0 until located */
	uint64_t tp;              /* the thread pointer they were located from */
	int tries;                /* attempts to locate them that failed */
	int valid;                /* counters read at this refresh */
	uint64_t alloc, dealloc;  /* bytes, since the thread began */
	double alloc_rate, dealloc_rate; /* bytes/s over the last interval */
};

struct top_threads {
	struct top_thread *v;
	int n;
	pid_t *tids;     /* the listing's buffer, kept across refreshes */
	int pending;     /* threads still to locate */
	int located;     /* threads whose counters were found, since the start */
	int peeked;      /* stops for a thread pointer (rcall_peek), since the start */
	int missed;      /* peeks that failed, since the start */
	int64_t peek_us_max;
	pid_t last_tid;  /* the last thread tried: the next refresh goes on after it */
};

enum top_sort { TOP_SORT_ALLOC, TOP_SORT_FREE, TOP_SORT_TOTAL, TOP_SORT_TID, TOP_NSORTS };

/* What every output shows for one refresh. */
struct top_view {
	pid_t pid;
	char comm[64];
	int64_t interval_us;
	unsigned seq;            /* refreshes so far, missed ones included */
	unsigned good;           /* refreshes that held a thread */
	unsigned missed;         /* refreshes that could not (cli_top.c) */
	core_usec_t at;          /* when the hold ended */
	double dt;             /* seconds since the previous refresh, 0 at the first */
	struct act_top_stats st;
	double rate[ACT_TOP_NSTATS];       /* bytes/s */
	uint64_t arena_active[ACT_TOP_MAX_ARENAS]; /* bytes */
	double arena_rate[ACT_TOP_MAX_ARENAS];
	int arena_ok[ACT_TOP_MAX_ARENAS];
	int64_t hold_us;       /* this refresh's hold */
	int holds;             /* stats holds so far */
	struct top_threads *th;
	enum top_sort sort;
	int paused;
};

extern const char *const top_sort_names[TOP_NSORTS];

/* One target of a live view (cli_top_target.c). */
struct target;
struct top_target {
	const struct options *o;
	struct target *t;
	int opened, prepared;
	unsigned long long start; /* its leader's start time: pid + start is the process */
	struct target_ident id;   /* exe, build id, cgroup: its series' labels */
	int held;                 /* the last refresh held a thread */
	struct top_view v;
	struct top_threads th;
	char msg[1024];           /* why the last step failed */
};

/* A refresh that held no thread in time: the view goes on. */
#define TOP_MISSED (-1)

/* Open pid, find jemalloc, prepare the remote calls: 0, or the exit code
 * with x->msg. x is zeroed by the caller; cli_top_target_close frees it
 * whatever this returned. */
int cli_top_target_open(struct top_target *x, const struct options *o, pid_t pid,
			int64_t interval_us);
/* One refresh (one hold; new threads located until locate_until): 0,
 * TOP_MISSED, 128 + a signal that came meanwhile, or the exit code with
 * x->msg. */
int cli_top_target_refresh(struct top_target *x, core_usec_t locate_until);
/* What became of the process (target_fate: TARGET_AS_WAS, 0, while it is
 * the one opened; TARGET_EXECED; TARGET_GONE), its fate in words. */
int cli_top_target_ended(const struct top_target *x, char *fate, size_t len);
/* Let go of threads that were slow to stop (rcall_sweep). */
void cli_top_target_sweep(struct top_target *x);
void cli_top_target_close(struct top_target *x);

/* When the refresh after one due at prev comes: on prev's cadence, skipping
 * the times already past (a late refresh is not followed by a catch-up). */
core_usec_t cli_top_next(core_usec_t prev, int64_t interval_us, core_usec_t now);

/* The whole --top run for o->pids[0]: the exit code. */
int cli_top_main(const struct options *o);
/* The exporter (--prometheus without --top): every target, the exit code. */
int cli_export_main(const struct options *o);
/* Is this run the exporter's? */
int cli_export_wanted(const struct options *o);

/* cli_top_threads.c: read every known counter with no stop, list the
 * target's threads, drop those gone or whose tid was reused, and locate
 * new ones' counters from their thread pointers (k) until deadline. */
void cli_top_threads_refresh(struct target *t, struct top_threads *th,
			     struct act_counters *k, core_usec_t deadline, double dt);
void cli_top_threads_sort(struct top_threads *th, enum top_sort how);
void cli_top_threads_free(struct top_threads *th);
/* "1.2 MiB" */
void cli_top_bytes(double b, char *buf, size_t len);

/* cli_top_screen.c */
int cli_top_screen_open(void);
void cli_top_screen_close(void);
void cli_top_screen_draw(const struct top_view *v, const char *note);

/* cli_top_json.c: 0, or -1 when f can no longer be written (a closed pipe) */
int cli_top_json_line(FILE *f, const struct top_view *v);
/* The line of a missed refresh (v->seq), and why. */
int cli_top_json_missed(FILE *f, const struct top_view *v, const char *why);

#endif
