/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef JEATTACH_CLI_SIGNAL_H
#define JEATTACH_CLI_SIGNAL_H

/* SIGINT, SIGTERM or SIGHUP if one is pending (they are blocked), else 0. */
int cli_pending_signal(void);

#endif
