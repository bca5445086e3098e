/* SPDX-License-Identifier: BSD-2-Clause */
/* The command line, parsed and validated before any target is touched. */
#ifndef JEATTACH_OPTIONS_H
#define JEATTACH_OPTIONS_H

#include <stdio.h>
#include <sys/types.h>
#include "act.h"

#define OPT_MAX_ACTIONS 64 /* as given on the command line */
#define OPT_MAX_COUNT 1000 /* --count */
#define OPT_MAX_PIDS 4096

struct options {
	pid_t pids[OPT_MAX_PIDS];
	int npids;
	const char *all_name; /* --all NAME: the CLI fills pids */
	/* The actions as given, in order; plan_build expands them (--for,
	 * --every) into the steps jeattach runs. */
	struct act *actions;
	int nactions;
	int64_t for_us, every_us; /* --for, --every; 0 if not given */
	long count;               /* --count */
	int baseline;             /* --baseline */
	int symbolize;            /* --symbolize */
	const char *prefix; /* --prefix, or NULL: try the known ones */
	pid_t tid;          /* --tid: borrow this thread (0: any at a safe point) */
	double timeout_s;   /* --timeout, per target */
	int json, verbose, quiet;
	int help, version;
};

/* 0, or -1 with a one-line message (no program name) in err. */
int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen);
void options_free(struct options *o);
/* "30s", "5m", "1h", "250ms", or plain seconds; -1 if not a duration. */
int64_t options_duration_us(const char *text);
void options_usage(FILE *f);

#endif
