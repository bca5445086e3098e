/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_run: one target through the plan. The plan is cut at its waits into
 * segments; each segment is one hold (open once, hold, run, release, finish
 * the files), so between segments no thread is held and no tracer attached. */
#ifndef JEATTACH_CLI_RUN_H
#define JEATTACH_CLI_RUN_H

#include "options.h"

struct cli_run {
	pid_t pid;
	struct target t;
	struct act_session sess;
	int opened;               /* target_open succeeded */
	int located;              /* jemalloc was found */
	int done;                 /* failed: no further segment runs */
	struct act_result *res;   /* one per action of the plan, in order */
	int nactions;
	enum je_exit code;        /* the target's outcome */
	char msg[1024];           /* "what happened: why; what to do" if not OK */
	pt_usec_t start, wall_us;
};

/* Open the target and find jemalloc. */
enum je_exit cli_run_open(struct cli_run *run, const struct options *o);
/* Run actions [first, last) of the plan (no ACT_WAIT among them) in one hold. */
enum je_exit cli_run_segment(struct cli_run *run, const struct options *o, int first, int last);
/* Record a wait all targets went through (the ACT_WAIT at index i). */
void cli_run_waited(struct cli_run *run, int i, int64_t waited_us, int interrupted);
/* Mark actions [first, last) skipped (after an interruption). */
void cli_run_skip(struct cli_run *run, int first, int last);
/* After reporting: free everything. */
void cli_run_close(struct cli_run *run);

#endif
