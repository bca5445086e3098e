/* SPDX-License-Identifier: BSD-2-Clause */
/* plan_: what jeattach does to every target, decided before any target is
 * touched. The actions given, expanded by --for and --every, become steps;
 * the steps are cut into explicit segments: a run of actions done under one
 * hold, or a wait during which no thread is held and no tracer attached.
 * Each step carries all it needs to run and to finish (a dump its file
 * pattern, sequence number and form), so no action invents anything. */
#ifndef JEATTACH_PLAN_H
#define JEATTACH_PLAN_H

/* --recent without --for: how long the record is kept before it is taken. */
#define PLAN_RECENT_WINDOW_US 10000000

#include <stddef.h>
#include "act.h"
#include "options.h"

enum plan_seg_kind {
	PLAN_HOLD, /* steps [first, last), none a wait, under one hold */
	PLAN_WAIT, /* one ACT_WAIT step: the target is let go meanwhile */
};

struct plan_seg {
	enum plan_seg_kind kind;
	int first, last; /* the plan's steps [first, last) */
	int64_t wait_us; /* PLAN_WAIT: how long */
};

struct plan {
	/* In order, waits included: every step has its own result (a wait
	 * reports how long it lasted). */
	struct act *steps;
	int nsteps;
	struct plan_seg *segs; /* cover the steps, in order, none empty */
	int nsegs;
	char *baseline; /* --baseline's file pattern, FILE.base; a step points at it */
	long ndumps;    /* ACT_DUMP steps: a series' length, for "dump 2 of 3" */
	/* --every without --count: the segments from repeat_seg to the last
	 * (a wait, a dump) are run again until jeattach is stopped
	 * (plan_repeat between rounds); repeat_seg -1 otherwise */
	int repeat;
	int repeat_seg;
};

/* The plan for o (its actions, --for, --every, --count, --baseline,
 * --symbolize, --json). 0, or -1 with a one-line message (no program name)
 * in err for a combination that makes no sense. plan_free afterwards
 * either way. */
int plan_build(struct plan *p, const struct options *o, char *err, size_t errlen);
void plan_free(struct plan *p);
/* Before another round of a series without --count: its dumps numbered
 * one more (%n, and a directory's SEQ). */
void plan_repeat(struct plan *p);

#endif
