/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_diag: why jeattach may not trace a process, and what to do about it. */
#ifndef JEATTACH_CLI_DIAG_H
#define JEATTACH_CLI_DIAG_H

#include <stddef.h>
#include "target.h"

/* A "why; what to do" text for a refused PTRACE_SEIZE. */
void cli_diag_ptrace_denied(const struct target *t, char *buf, size_t len);
/* The same as a ja_err_ctx's denied hook (arg: the struct target): the
 * tracer looked for first (another jeattach, gdb, strace holds one of its
 * threads), so that every refusal names it, --status's and --top's. */
void cli_diag_denied(void *arg, char *buf, size_t len);

#endif
