/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_event: what the running of the plan tells as it happens (a wait's
 * time left, a dump that landed, a long prof.dump's progress), through one
 * callback. The runner (main.c, cli_run.c) only calls it; cli_progress.c
 * decides what the operator sees: a redrawn terminal line, JSON lines, or
 * nothing. */
#ifndef JEATTACH_CLI_EVENT_H
#define JEATTACH_CLI_EVENT_H

#include <stdint.h>
#include <sys/types.h>
#include "act.h"

enum cli_event_kind {
	CLI_EV_WAIT,         /* a wait runs: remaining_us of total_us; then: what follows */
	CLI_EV_WAIT_END,     /* it ended: elapsed_us, interrupted */
	CLI_EV_DUMP,         /* a dump landed: r (file, bytes, samples), seq, count */
	CLI_EV_DUMP_RUNNING, /* prof.dump still runs in pid: elapsed_us, bytes so far */
	CLI_EV_RUNNING,      /* another call (r->action) still runs: elapsed_us */
	CLI_EV_WARNING,      /* r->warning, as it is found */
	CLI_EV_DONE,         /* all waits and holds are over: the report follows */
};

struct cli_event {
	enum cli_event_kind kind;
	pid_t pid;                   /* 0: all targets (a wait) */
	int64_t remaining_us, total_us, elapsed_us;
	uint64_t bytes;
	const char *then;            /* CLI_EV_WAIT: what happens at its end */
	int interrupted;             /* CLI_EV_WAIT_END */
	const struct act_result *r;  /* CLI_EV_DUMP, _WARNING, _RUNNING */
	unsigned seq;                /* CLI_EV_DUMP: %n of the dump */
	long count;                  /* CLI_EV_DUMP: how many the series makes (1: one; 0: until stopped) */
};

typedef void (*cli_event_fn)(void *arg, const struct cli_event *e);

#endif
