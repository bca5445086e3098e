/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_scratch: the scratch mapping a run kept for holds that follow
 * (rcall_keep_scratch), removed when none will. */
#ifndef JEATTACH_CLI_SCRATCH_H
#define JEATTACH_CLI_SCRATCH_H

#include <stddef.h>

struct target;

/* Remove the kept mapping of t now, with one more hold if need be
 * (within timeout_s). 0 when none stays; 1 when one stays (no thread
 * could be held), why then saying where, why, and that the next attach
 * removes it. */
int cli_scratch_drop(struct target *t, double timeout_s, char *why, size_t len);

#endif
