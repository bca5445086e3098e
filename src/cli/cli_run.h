/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_run: one target through the plan, segment by segment (plan.h): open
 * once, then one hold per PLAN_HOLD segment (hold, run, release, finish the
 * files), so during a PLAN_WAIT no thread is held and no tracer attached. */
#ifndef JEATTACH_CLI_RUN_H
#define JEATTACH_CLI_RUN_H

#include "cli_event.h"
#include "core_clock.h"
#include "options.h"
#include "plan.h"
#include "rcall.h"

/* --every without --count: the holds --json's "held" keeps, the last ones. */
#define CLI_RUN_HELD_MAX 256

struct cli_run {
	pid_t pid;
	struct target *t;
	struct act_session sess;
	int opened;               /* target_open succeeded */
	int located;              /* jemalloc was found */
	int done;                 /* failed: no further segment runs */
	const struct plan *plan;
	struct act_result *res;   /* one per step of the plan, in order */
	int nsteps;
	enum ja_exit code;        /* the target's outcome */
	char msg[1024];           /* "what happened: why; what to do" if not OK */
	core_usec_t start, wall_us;
	int verbose;              /* -v: progress also when stderr is no terminal */
	int current;              /* the step running now */
	int64_t progress_s;       /* the last second of a running call said */
	int said_cannot_leave;
	/* The search for a thread may end at a Ctrl-C (rcall_set_quit): only
	 * while nothing of the hold's steps puts the target back. */
	int quittable;
	int skipped_by;           /* the signal that skipped steps, or 0 */
	int told;                 /* steps already reported (cli_report_steps) */
	long rounds_dumped;       /* dumps made in the rounds rewound (cli_run_rewind) */
	pid_t said_unsafe;        /* the thread whose calls were said not crash-safe */
	int keep_scratch;         /* the scratch mapping stays for a hold soon after */
	int said_leftovers;       /* what killed jeattach runs left was told */
	/* The thread each hold borrowed, in order (--json's "held"). */
	struct rcall_hold_info *held;
	int nheld, held_cap;
	cli_event_fn on_event;    /* what happens as it happens (cli_progress.c) */
	void *event_arg;
};

/* After the run's last segment, before its report: what it kept goes. */
void cli_run_end(struct cli_run *run, const struct options *o);
/* Open the target and find jemalloc, for plan p (kept until cli_run_close). */
enum ja_exit cli_run_open(struct cli_run *run, const struct options *o, const struct plan *p);
/* Run a PLAN_HOLD segment's steps in one hold. */
enum ja_exit cli_run_segment(struct cli_run *run, const struct options *o,
			     const struct plan_seg *seg);
/* Record a PLAN_WAIT segment all targets went through. */
void cli_run_waited(struct cli_run *run, const struct plan_seg *seg, int64_t waited_us,
		    int interrupted);
/* Mark a segment's steps skipped (after an interruption by signal sig). */
void cli_run_skip(struct cli_run *run, const struct plan_seg *seg, int sig);
/* Before another round of a series until stopped (plan_repeat): the
 * results of steps first.. made empty, as if they had not run yet. */
void cli_run_rewind(struct cli_run *run, int first);
/* After reporting: free everything. */
void cli_run_close(struct cli_run *run);

#endif
