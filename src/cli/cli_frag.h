/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_frag: --frag's analysis (frag.h) shown: as text under the target's
 * report, as the "frag" object of its JSON line, as a file (--frag-out
 * FILE.json, FILE.svg). */
#ifndef JEATTACH_CLI_FRAG_H
#define JEATTACH_CLI_FRAG_H

#include <stdio.h>
#include "act.h"
#include "cli_run.h"
#include "frag.h"

/* Lines indented by two, after the "PID (comm) frag" line; the advice's
 * commands name pid. */
void cli_frag_text(FILE *out, const struct act_result *r, int pid);
/* One JSON object, compact, no newline. */
void cli_frag_json(FILE *out, const struct act_result *r);
/* A self-contained SVG bar chart: the categories of resident memory and
 * the worst size classes. */
void cli_frag_svg(FILE *out, const struct frag_report *f, int pid, const char *comm);
/* Before any target is touched: --frag-profile names a readable regular
 * file (else JA_EXIT_USAGE), and each --frag-out file could be written for
 * each target: its directory writable, no file there unless --force (else
 * JA_EXIT_OUTPUT). JA_EXIT_OK, or the code with a one-line message in err.
 * The rename that publishes each file checks again (act_publish). */
enum ja_exit cli_frag_check(const struct options *o, char *err, size_t len);
/* Step i's --frag-out files, written (temp file + rename): JA_EXIT_OK, or
 * JA_EXIT_OUTPUT with the step's result failed and its message set. */
enum ja_exit cli_frag_write(struct cli_run *run, const struct options *o, int i);

#endif
