/* SPDX-License-Identifier: BSD-2-Clause */
/* At release: a wait planned at the first stop (rcall_wait.c,
 * rcall_wait_plan) made again, its timeout what is left of it. Above the
 * stop level: a thread that does not reach its signal stop in time is left
 * to the straggler sweep (rcall_stop.c). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "kernel_restart.h"
#include "rcall_internal.h"

/* After crash-safe calls the thread is at rt_sigreturn's syscall-exit stop,
 * from which the kernel applies no restart code (exit_to_user_mode_loop
 * calls arch_do_signal_or_restart only with TIF_SIGPENDING): an interrupt
 * takes it on to a stop inside get_signal (do_jobctl_trap comes before any
 * signal is dequeued), where one is. 0 there (a signal-delivery stop there
 * too: its signal is given back at release), <0 not. */
static int to_signal_stop(struct rcall_held *h)
{
	int e = pt_interrupt(h->tid);
	if (!e)
		e = pt_cont(h->tid, 0);
	while (!e) {
		int status;
		if ((e = pt_wait(h->tid, core_now_us() + 1000000, &status)))
			break;
		if (!WIFSTOPPED(status))
			return -ESRCH;
		int sig = WSTOPSIG(status), event = status >> 16;
		if (event == PTRACE_EVENT_STOP)
			return 0; /* the interrupt's, or a group stop's: both in get_signal */
		if (event || sig == (SIGTRAP | 0x80)) {
			e = pt_cont(h->tid, 0);
			continue;
		}
		h->release_sig = sig;
		return 0;
	}
	return e;
}

int rcall_remake(struct target *t, struct rcall_held *h)
{
	const struct rcall_reissue *p = &h->reissue;
	arch_gpregs_t r;
	int e;
	rcall_wait_reissue_regs(h, &r);
	if (ARCH_RESTART_AT_STOP && h->ran && !h->dirty && (e = to_signal_stop(h))) {
		if (e != -ETIMEDOUT)
			return e;
		/* Running on (frozen on its way out, say) with the frame's
		 * registers, the call made again whole: let go at its stop. */
		rcall_add_straggler(t, h->tid, NULL);
		return 1;
	}
	core_usec_t left = p->ends - core_now_us();
	if (left < 0)
		left = 0; /* up: made with no time, it returns as timed out by itself */
	if (p->how == RCALL_REISSUE_MS) {
		arch_set_rewound_arg(&r, p->arg, (uint64_t)((left + 999) / 1000));
	} else if (p->how == RCALL_REISSUE_TIMESPEC || p->how == RCALL_REISSUE_URING) {
		/* Below the red zone, where a signal frame would go: memory the
		 * thread does not use, written, never saved or written back;
		 * after the last call (the scratch mapping's munmap ran its
		 * frame there). The kernel copies it at the call's entry
		 * (get_timespec64; io_get_ext_arg), so once the call is made
		 * again nothing reads it any more. A handler's frame may
		 * overwrite it before that: the call is entered as interrupted
		 * with -ERESTARTNOHAND, which a handler turns into EINTR
		 * without making the call again. */
		uint64_t buf[6], at = (arch_sp(&r) - ARCH_RED_ZONE - sizeof(buf)) & ~(uint64_t)15;
		size_t len = 16;
		uint64_t ts = at;
		if (p->how == RCALL_REISSUE_URING) {
			/* sigmask, sigmask_sz as the program's; ts pointing here */
			memcpy(buf, p->uring, URING_ARG_SIZE);
			ts = at + 32;
			buf[2] = ts;
			buf[3] = 0;
			len = 48;
		}
		buf[(ts - at) / 8] = (uint64_t)(left / 1000000);
		buf[(ts - at) / 8 + 1] = (uint64_t)(left % 1000000) * 1000;
		if ((e = pt_write(h->tid, at, buf, len)))
			return e;
		arch_set_rewound_arg(&r, p->arg, at);
	}
	arch_syscall_interrupted(&r, ERESTARTNOHAND);
	h->regs = r;
	return 0;
}
