/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef JEATTACH_CLI_SIGNAL_H
#define JEATTACH_CLI_SIGNAL_H

/* SIGINT, SIGTERM or SIGHUP if one is pending (they are blocked), else 0. */
int cli_pending_signal(void);
/* The live views' signals (SIGINT, SIGTERM, SIGHUP, SIGPIPE, and SIGWINCH
 * when winch) blocked and readable from the descriptor returned
 * (signalfd(2), non-blocking), or -errno. */
int cli_signal_fd(int winch);
/* The next signal read from that descriptor, or 0 if none is waiting. */
int cli_signal_take(int fd);

#endif
