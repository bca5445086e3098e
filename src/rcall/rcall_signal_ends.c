/* SPDX-License-Identifier: BSD-2-Clause */
/* At release: does a signal the thread will handle the moment it is let go
 * end its interrupted call with EINTR (rcall_signal.c says why that is
 * decided here)? Where the answer is the handler's SA_RESTART, the thread
 * is asked (rt_sigaction through a call): above the call level, as
 * rcall_signal.c's decisions at the stop are below it. */
#include "config.h"

#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include "rcall_internal.h"

#define SA_RESTART_FLAG 0x10000000UL /* SA_RESTART, the same on every Linux ABI */

/* Does sig's handler have SA_RESTART? rt_sigaction(sig, NULL, &old) made
 * by the thread, if its seccomp filters allow it: 1 yes, 0 no, <0
 * unknown. The kernel's struct sigaction has sa_flags second on every ABI. */
static int has_sa_restart(struct target *t, int sig)
{
	uint64_t old[4] = { 0, 0, 0, 0 }, addr;
	int e = rcall_push(t, old, sizeof(old), &addr);
	if (e)
		return e;
	uint64_t args[4] = { (uint64_t)sig, 0, addr, 8 };
	long ret;
	if ((e = rcall_syscall_allowed(t, SYS_rt_sigaction, args, 4, &ret)))
		return e;
	if (ret)
		return (int)ret;
	if ((e = rcall_read(t, addr, old, sizeof(old))))
		return e;
	return (old[1] & SA_RESTART_FLAG) != 0;
}

int rcall_signal_ends_call(struct target *t, struct rcall_held *h)
{
	if (h->on_signal == RCALL_SIG_RESTART || !h->mask_saved)
		return 0;
	int sig = rcall_signal_handled_next(t->io_pid, h->tid, h->sigmask);
	if (!sig)
		return 0;
	if (h->on_signal == RCALL_SIG_EINTR)
		return 1;
	/* Unknown (a seccomp filter refused the query, say): restarted, as
	 * before. */
	return has_sa_restart(t, sig) == 0;
}
