/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_diag: why jeattach may not trace a process, and what to do about it. */
#ifndef JEATTACH_CLI_DIAG_H
#define JEATTACH_CLI_DIAG_H

#include <stddef.h>
#include "target.h"

/* A "why; what to do" text for a refused PTRACE_SEIZE. */
void cli_diag_ptrace_denied(const struct target *t, char *buf, size_t len);

#endif
