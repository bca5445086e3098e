/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_report: one target's outcome, as human text or one JSON line. */
#ifndef JEATTACH_CLI_REPORT_H
#define JEATTACH_CLI_REPORT_H

#include <stdio.h>
#include "options.h"

struct cli_run {
	pid_t pid;
	struct target t;
	int opened;                  /* target_open succeeded */
	int located;                 /* jemalloc was found */
	struct act_result res[OPT_MAX_ACTIONS];
	int nres;
	enum je_exit code;           /* the target's outcome */
	char msg[1024];              /* "what happened: why; what to do" if not OK */
	pt_usec_t wall_us;
};

void cli_report_text(FILE *out, const struct options *o, const struct cli_run *run);
void cli_report_json(FILE *out, const struct cli_run *run);
/* The one-line error on stderr: "jeattach: PID: message". */
void cli_report_error(const struct cli_run *run);

#endif
