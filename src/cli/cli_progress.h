/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_progress: the events of a run (cli_event.h) as the operator sees
 * them while it works: one line on a terminal, redrawn with \r and cleared
 * at the end; with --json one JSON line per event on stdout, before the
 * per-target records; with -v on a non-terminal, a long dump's progress as
 * plain lines. Nothing else. */
#ifndef JEATTACH_CLI_PROGRESS_H
#define JEATTACH_CLI_PROGRESS_H

#include "cli_event.h"
#include "options.h"

struct cli_progress {
	int tty;        /* stderr is a terminal, not --quiet, and no JSON goes to
			 * that terminal too: the live line */
	int json;       /* --json: event lines on stdout */
	int verbose;    /* -v: a long dump's progress also off a terminal */
	int drawn;      /* the live line is on the terminal now */
	int64_t said_s; /* the whole second of the current wait last told; -1 none */
};

void cli_progress_init(struct cli_progress *p, const struct options *o);
/* A cli_event_fn; arg is the struct cli_progress. */
void cli_progress_event(void *arg, const struct cli_event *e);
/* A JSON array of n paths (a dump's removed_files, doc/json.md). */
void cli_progress_json_paths(FILE *out, char *const *paths, size_t n);

#endif
