/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_report: one target's outcome, as human text or one JSON line. */
#ifndef JEATTACH_CLI_REPORT_H
#define JEATTACH_CLI_REPORT_H

#include <stdio.h>
#include "cli_run.h"


/* The steps not told yet, up to step upto (excluded), flushed: a run that
 * waits tells each hold's results as they come. */
void cli_report_steps(FILE *out, struct cli_run *run, int upto);
/* What is left to tell, and after an interruption one line on stderr for
 * what was done and what skipped. */
void cli_report_text(FILE *out, const struct options *o, struct cli_run *run);
void cli_report_json(FILE *out, const struct cli_run *run);
/* A run that failed before any target was touched (--all found none, a
 * dump's directory is not writable): with --json, one object of the same
 * keys, pid null, so that a fleet's JSON Lines have a line for this host. */
void cli_report_json_run_failed(FILE *out, enum ja_exit code, const char *msg, int64_t wall_us);
/* The one-line error on stderr: "jeattach: PID: message". */
void cli_report_error(const struct cli_run *run);

#endif
