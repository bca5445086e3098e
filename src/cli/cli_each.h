/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_each: the per-thread pass (cli_each.c), run between holds. */
#ifndef JEATTACH_CLI_EACH_H
#define JEATTACH_CLI_EACH_H

#include "cli_run.h"

/* If the last hold's actions asked for it (run->sess.pass_*), borrow each
 * thread in turn and report on the step that asked (threads_rearmed,
 * threads_named, threads_missed...). Nothing is held before or after. */
void cli_each_pass(struct cli_run *run, const struct options *o);

#endif
