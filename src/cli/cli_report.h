/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_report: one target's outcome, as human text or one JSON line. */
#ifndef JEATTACH_CLI_REPORT_H
#define JEATTACH_CLI_REPORT_H

#include <stdio.h>
#include "cli_run.h"


void cli_report_text(FILE *out, const struct options *o, const struct cli_run *run);
void cli_report_json(FILE *out, const struct cli_run *run);
/* The one-line error on stderr: "jeattach: PID: message". */
void cli_report_error(const struct cli_run *run);

#endif
