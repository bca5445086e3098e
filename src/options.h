/* SPDX-License-Identifier: BSD-2-Clause */
/* The command line, parsed and validated before any target is touched. */
#ifndef JEATTACH_OPTIONS_H
#define JEATTACH_OPTIONS_H

#include <stdio.h>
#include <sys/types.h>
#include "act.h"

#define OPT_MAX_ACTIONS 64
#define OPT_MAX_PIDS 1024

struct options {
	pid_t pids[OPT_MAX_PIDS];
	int npids;
	struct act actions[OPT_MAX_ACTIONS];
	int nactions;
	const char *prefix; /* --prefix, or NULL: try the known ones */
	pid_t tid;          /* --tid: borrow this thread (0: any at a safe point) */
	double timeout_s;   /* --timeout, per target */
	int json, verbose, quiet;
	int help, version;
};

/* 0, or -1 with a one-line message (no program name) in err. */
int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen);
void options_usage(FILE *f);

#endif
