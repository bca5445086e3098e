/* SPDX-License-Identifier: BSD-2-Clause */
/* Stopping a thread, and letting it go again at its first stop: seize and
 * interrupt, a budget to stop in, the EINTR the interrupt caused undone,
 * and threads slow to stop (a vfork parent, D state) remembered and let go
 * as soon as they do stop (rcall_sweep). Used by the hold (rcall_hold.c)
 * and by calls that are left (rcall.c). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include "core_grow.h"
#include "rcall_internal.h"
#include "rcall_reads.h"

/* How long a thread may take to stop after PTRACE_INTERRUPT before it is
 * passed over: microseconds normally, longer only on a saturated machine;
 * a thread in an uninterruptible wait (vfork, D state) stops when the wait
 * ends, whenever that is. */
#define STOP_BUDGET_US 100000

static int is_stop_signal(int sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* Is a signal pending for tid that it does not block (then an EINTR it got
 * is the signal's doing, not ours)? Unknown counts as yes. */
static int signal_deliverable(pid_t pid, pid_t tid)
{
	static const char *const keys[3] = { "SigPnd", "ShdPnd", "SigBlk" };
	uint64_t mask[3];
	if (target_thread_hex_fields(pid, tid, keys, 3, mask))
		return 1;
	return ((mask[0] | mask[1]) & ~mask[2]) != 0;
}

/* PTRACE_INTERRUPT wakes a thread blocked in a syscall the way a signal
 * does (signal_wake_up sets TIF_SIGPENDING). Most syscalls then return
 * -ERESTART*, which the kernel restarts itself when we let go; but some
 * return a plain -EINTR on signal_pending(): epoll_wait (ep_poll),
 * semtimedop, io_getevents, sigtimedwait... That EINTR would reach the
 * program although no signal came (seen here: one EINTR in a victim's
 * epoll_wait(-1) per stop). When no deliverable signal is pending, the
 * EINTR is ours alone: make the thread re-issue the syscall, exactly as the
 * kernel does for -ERESTARTNOHAND. Nothing was consumed: these syscalls
 * return EINTR only when they have nothing to report. */
int rcall_held_gpregs(const struct rcall_held *h, pid_t tid, arch_gpregs_t *r)
{
	int e = pt_get_gpregs(tid, r);
	if (!e)
		arch_at_interrupt_stop(r, &h->blocked);
	return e;
}

static int undo_spurious_eintr(struct target *t, pid_t tid, struct rcall_held *h)
{
	arch_gpregs_t r;
	int e = rcall_held_gpregs(h, tid, &r);
	if (e)
		return e;
	if (ARCH_SYSCALL_FORGOTTEN_AT_STOP && !arch_in_syscall(&r) && !h->blocked.valid &&
	    !signal_deliverable(t->io_pid, tid) && rcall_wait_forgotten(t, h, &r)) {
		/* arm64, caught on its way out of a timed wait (rcall_wait.c):
		 * it returns timed out now, nothing for a signal to end. */
		rcall_signal_note(h, &r, 0);
		return pt_set_gpregs(tid, &r);
	}
	if (!arch_in_syscall(&r) || arch_syscall_ret(&r) != -EINTR ||
	    signal_deliverable(t->io_pid, tid)) {
		rcall_signal_note(h, &r, 0);
		return 0;
	}
	rcall_signal_note(h, &r, 1);
	/* A timed wait restarts with what is left of its timeout, or returns
	 * as timed out (rcall_wait.c), when its start is known. */
	if (rcall_wait_resume(t, h, &r))
		h->on_signal = RCALL_SIG_RESTART; /* it returns now: nothing to end */
	return pt_set_gpregs(tid, &r);
}

static int first_stop(struct target *t, pid_t tid, struct rcall_held *h, int status);

int rcall_add_straggler(struct target *t, pid_t tid, const struct rcall_held *h)
{
	struct rcall_ctx *c = t->rc;
	if (CORE_GROW(&c->stragglers, &c->stragglers_cap, c->nstragglers + 1))
		return -ENOMEM;
	struct rcall_straggler s = { .tid = tid };
	if (h) {
		s.wait_began = h->wait_began;
		s.blocked = h->blocked;
		s.before = h->before;
	}
	c->stragglers[c->nstragglers++] = s;
	return 0;
}

int rcall_sweep(struct target *t)
{
	struct rcall_ctx *c = t->rc;
	if (!c)
		return 0;
	size_t kept = 0;
	for (size_t i = 0; i < c->nstragglers; i++) {
		struct rcall_straggler s = c->stragglers[i];
		pid_t tid = s.tid;
		int status;
		pid_t r = waitpid(tid, &status, WNOHANG | __WALL);
		if (r == 0) { /* still in its wait */
			c->stragglers[kept++] = s;
			continue;
		}
		if (r == tid && WIFSTOPPED(status)) {
			/* Its first stop: as for any thread found unsafe, undo
			 * our EINTR and let it go (giving a signal back). */
			struct rcall_held h = { .tid = tid, .wait_began = s.wait_began,
						.blocked = s.blocked, .before = s.before };
			if (first_stop(t, tid, &h, status) == 0)
				pt_detach(tid, 0);
		}
	}
	c->nstragglers = kept;
	return (int)kept;
}

void rcall_sweep_wait(struct target *t, core_usec_t budget_us)
{
	/* A straggler merely slow to stop (a loaded machine: runnable, or
	 * woken from its wait by our interrupt) will stop soon, and its EINTR
	 * must be undone at that stop: left to the kernel's detach at
	 * jeattach's exit, the EINTR would reach the program. One in an
	 * uninterruptible wait (vfork, D) was not woken: it may stay. */
	core_usec_t end = core_now_us() + budget_us;
	while (rcall_sweep(t) > 0 && core_now_us() < end) {
		struct rcall_ctx *c = t->rc;
		int slow = 0;
		for (size_t i = 0; i < c->nstragglers && !slow; i++)
			slow = target_thread_state(t->io_pid, c->stragglers[i].tid) != 'D';
		if (!slow)
			break;
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

int rcall_stop_thread(struct target *t, pid_t tid, struct rcall_held *h)
{
	int e = pt_seize(tid);
	if (e == -ESRCH)
		return 1; /* the thread ended meanwhile */
	if (e)
		return e;
	/* Read as late as possible: the thread may still leave that call
	 * before the interrupt lands (arch_at_interrupt_stop sees it). In
	 * none (running: /proc tells no more of a thread in TASK_RUNNING,
	 * task_current_syscall), it may be on its way out of a timed wait
	 * its timer has just ended: its counters tell at the stop
	 * (rcall_wait_resume). Then /proc is looked at again: a thread that
	 * blocked in a call before the counters were read would have that
	 * sleep counted already and pass for woken; the second look shows
	 * it in the call, and one that blocks after it has slept twice by
	 * the stop. A thread in a call (the common case) costs one read. */
	if (pt_blocked_call(tid, &h->blocked) == 0 && !h->blocked.valid) {
		struct rcall_sched before;
		rcall_sched_read(t, tid, &before);
		if (pt_blocked_call(tid, &h->blocked) == 0 && !h->blocked.valid)
			h->before = before;
	}
	/* The hold begins with the interrupt: seized, the thread ran on. */
	h->since = core_now_us();
	if (h->wait_began < 0)
		h->wait_began = h->since; /* no later than the interrupt */
	e = pt_interrupt(tid);
	if (e == -ESRCH)
		return 1;
	/* Once interrupted, the thread will stop, and must be seen stopped
	 * before it can be let go: PTRACE_DETACH needs a stopped tracee, and
	 * the spurious EINTR must be undone at that stop. One that does not
	 * stop within its budget is remembered and let go when it does
	 * (rcall_sweep); meanwhile other threads are tried. */
	int status;
	e = pt_wait(tid, core_now_us() + STOP_BUDGET_US, &status);
	if (e == -ECHILD || e == -ESRCH)
		return 1;
	if (e == -ETIMEDOUT)
		return rcall_add_straggler(t, tid, h) ? -ENOMEM : 1;
	if (e)
		return e;
	return first_stop(t, tid, h, status);
}

/* The first stop of an interrupted thread: 0 held, 1 let go again. */
static int first_stop(struct target *t, pid_t tid, struct rcall_held *h, int status)
{
	int e;
	if (!WIFSTOPPED(status))
		return 1; /* exited */
	int sig = WSTOPSIG(status), event = status >> 16;
	if (event == PTRACE_EVENT_STOP) {
		/* Interrupt stop (SIGTRAP) or group-stop (the stop signal): the
		 * latter means the process is stopped (state T) and must stay so. */
		h->group_stop = is_stop_signal(sig);
		/* A thread only looked at in its group stop was not woken by
		 * us: an EINTR it has is the stop's, the program's to see. */
		e = h->look_only && h->group_stop ? 0 : undo_spurious_eintr(t, tid, h);
		if (e) {
			pt_detach(tid, 0);
			return e == -ESRCH ? 1 : e;
		}
		return 0;
	}
	/* A signal-delivery-stop came first: this thread is about to run a
	 * handler. Give the signal back untouched and look elsewhere. A
	 * syscall stop (a thread let go in PTRACE_SYSCALL mode, caught by
	 * rcall_sweep) carries no signal: giving SIGTRAP|0x80 back fails. */
	pt_detach(tid, sig == (SIGTRAP | 0x80) ? 0 : sig);
	return 1;
}

/* A thread with children is not borrowed while the process has another
 * (alone: it has none): while a thread is traced, the SIGCHLD its children
 * raise is no longer ignored (kernel/signal.c sig_ignored: "Tracers may want
 * to know about even ignored signal"), so it is queued to the process and
 * wakes another thread (complete_signal), whose epoll_wait or sigtimedwait
 * then fails with EINTR (victim_fork: a 1 s sigtimedwait ended with EINTR
 * after 0.12 s). Alone, the thread keeps it pending until it is let go,
 * where it is ignored as ever. 1 (why in reason) or 0. */
int rcall_has_children(struct target *t, pid_t tid, int alone, char *reason, size_t rlen)
{
	if (alone)
		return 0;
	/* /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN): the ids of the
	 * processes it forked; unreadable is taken as none, as before. */
	char *text = rcall_reads.task_file(t->io_pid, tid, "children");
	int some = 0;
	for (const char *p = text; p && *p && !some; p++)
		some = *p >= '0' && *p <= '9';
	free(text);
	if (!some)
		return 0;
	snprintf(reason, rlen,
		 "thread %d has child processes, whose signals would interrupt the process's "
		 "other threads while it is traced",
		 (int)tid);
	return 1;
}
