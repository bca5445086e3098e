/* SPDX-License-Identifier: BSD-2-Clause */
/* The signals the user stops jeattach with (SIGINT, SIGTERM, SIGHUP) stay
 * blocked for the whole run (main.c), so that no restore is ever skipped;
 * the places that may stop early ask here whether one is pending. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "cli_signal.h"

int cli_pending_signal(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t p;
	sigpending(&p);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigismember(&p, sigs[i]))
			return sigs[i];
	return 0;
}

/* The live views (--top, the exporter) wait on a poll(2) between
 * refreshes: the signals come through a signalfd there, still blocked so
 * that none ends jeattach while a thread is held. */
int cli_signal_fd(int winch)
{
	sigset_t set;
	sigemptyset(&set);
	int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGWINCH };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]) - !winch; i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

int cli_signal_take(int fd)
{
	struct signalfd_siginfo si;
	return read(fd, &si, sizeof(si)) == sizeof(si) ? (int)si.ssi_signo : 0;
}
