/* SPDX-License-Identifier: BSD-2-Clause */
/* A signal that the held thread will handle the moment it is let go (it
 * came during the hold, where every call runs with all signals blocked, or
 * was pending already) must end the thread's interrupted system call as the
 * kernel would have ended it unheld: handle_signal (arch/.../signal.c)
 * turns -ERESTARTNOHAND and -ERESTART_RESTARTBLOCK into EINTR, and
 * -ERESTARTSYS too unless the handler has SA_RESTART; a call whose EINTR
 * jeattach undid (rcall_stop.c) would have returned it. But the thread is
 * let go rewound to re-execute its call (arm64 always: orig_x0 cannot be
 * written back; x86_64 after crash-safe calls: rt_sigreturn forgets the
 * syscall): the kernel no longer knows one was interrupted, runs the
 * handler and makes the call again, so pause() would not return for that
 * signal. The decision is made as do_signal makes it, from /proc (here, at
 * the stop) and the handler's flags (rcall_signal_ends.c, at release),
 * while the thread is still held. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include "kernel_restart.h"
#include "rcall_internal.h"

/* Calls that carry their own signal mask (sigsuspend, and the p- waits
 * given one): re-executed, they install that mask again and the kernel
 * delivers the signal under it and ends them with EINTR itself, which is
 * exact where the decision here could not be (it would see the thread's
 * ordinary mask). */
static int carries_mask(long nr, const arch_gpregs_t *r)
{
	switch (nr) {
	case SYS_rt_sigsuspend:
		return 1;
	case SYS_ppoll:
		return arch_syscall_arg(r, 3) != 0;
	case SYS_pselect6:
		return arch_syscall_arg(r, 5) != 0;
	case SYS_epoll_pwait:
		return arch_syscall_arg(r, 4) != 0;
#ifdef SYS_epoll_pwait2
	case SYS_epoll_pwait2:
		return arch_syscall_arg(r, 4) != 0;
#endif
#ifdef SYS_io_pgetevents
	case SYS_io_pgetevents:
		return arch_syscall_arg(r, 5) != 0;
#endif
	default:
		return 0;
	}
}

void rcall_signal_note(struct rcall_held *h, const arch_gpregs_t *r, int eintr_undone)
{
	h->on_signal = RCALL_SIG_RESTART;
	if (!arch_in_syscall(r) || carries_mask(arch_syscall_nr(r), r))
		return;
	long ret = arch_syscall_ret(r);
	if (eintr_undone || ret == -ERESTARTNOHAND || ret == -ERESTART_RESTARTBLOCK)
		h->on_signal = RCALL_SIG_EINTR;
	else if (ret == -ERESTARTSYS)
		h->on_signal = RCALL_SIG_EINTR_UNLESS_RESTART;
	else
		return;
	h->eintr_regs = *r;
	arch_set_syscall_result(&h->eintr_regs, -EINTR);
}

static int is_sync(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGTRAP ||
	       sig == SIGFPE || sig == SIGSYS;
}

/* Dropped by get_signal when not caught: ignored, or ignored by default
 * (sig_kernel_ignore), or a stop the thread comes back from (the loop goes
 * on after SIGCONT). */
static int passed_over(int sig, uint64_t ign)
{
	return (ign >> (sig - 1) & 1) || sig == SIGCHLD || sig == SIGURG || sig == SIGWINCH ||
	       sig == SIGCONT || sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN ||
	       sig == SIGTTOU;
}

/* The next signal of set that dequeue_signal takes: the synchronous ones
 * first (next_signal's SYNCHRONOUS_MASK), then the lowest; 0 if none. */
static int next_signal(uint64_t set)
{
	for (int sig = 1; sig <= 64; sig++)
		if ((set >> (sig - 1) & 1) && is_sync(sig))
			return sig;
	return set ? __builtin_ctzll(set) + 1 : 0;
}

int rcall_signal_handled_next(pid_t pid, pid_t tid, uint64_t blocked)
{
	static const char *const keys[4] = { "SigPnd", "ShdPnd", "SigIgn", "SigCgt" };
	uint64_t v[4];
	if (target_thread_hex_fields(pid, tid, keys, 4, v))
		return 0;
	uint64_t queues[2] = { v[0] & ~blocked, v[1] & ~blocked };
	for (int q = 0; q < 2; q++) {
		int sig;
		while ((sig = next_signal(queues[q])) != 0) {
			queues[q] &= ~(1ULL << (sig - 1));
			if (v[3] >> (sig - 1) & 1)
				return sig;
			if (!passed_over(sig, v[2]))
				return 0; /* its default action ends the process */
		}
	}
	return 0;
}
