/* SPDX-License-Identifier: BSD-2-Clause */
/* Timed waits that an interrupt would stretch.
 *
 * PTRACE_INTERRUPT wakes a blocked thread as a signal does. Most system
 * calls then return -ERESTART*, and the kernel restarts them by itself,
 * with the time that was left (nanosleep, futex and poll keep it in the
 * restart block or in the caller's own timeout). A few return a plain
 * -EINTR instead: epoll_wait and epoll_pwait (ep_poll), rt_sigtimedwait,
 * semtimedop, io_getevents, and socket calls with SO_RCVTIMEO/SO_SNDTIMEO
 * (sock_intr_errno: -EINTR when the timeout is finite, -ERESTARTSYS
 * otherwise). A socket's timeout cannot be read from outside without
 * changing the socket (is_socket): a thread waiting on a socket is only
 * passed over while others can be borrowed, and rewound whole otherwise. rcall_stop.c
 * rewinds that EINTR so the program never sees it, and the call is made
 * again with its full relative timeout: a 3 s wait interrupted after
 * 2.5 s returned after 5.5 s.
 *
 * So the start of such a wait must be known. The kernel does not say when
 * a wait began, but a thread's voluntary context switches count each time
 * it goes to sleep (__schedule: prev->nvcsw): watched every 200 us, a new
 * sleep inside such a call dates its start to within that interval. Such
 * threads are passed over while others can be borrowed; then one is taken
 * right as its wait begins. At its first stop and again at release, a
 * timeout held in a register (epoll_wait's milliseconds) is set to what is
 * left of the original, rounded up: it ends when it would have, at most a
 * millisecond later. A timeout in the thread's memory is the program's
 * and is never written: at release the call is re-made instead
 * (rcall_remake.c), its timeout a copy of what is left, put below the
 * red zone, the pointer register set to it, entered as an interrupted call
 * the kernel restarts (-ERESTARTNOHAND).
 *
 * The same re-making gives sleeps the kernel restarts through the restart
 * block (nanosleep, a relative clock_nanosleep, poll, FUTEX_WAIT) crash-safe
 * calls: every crash-safe call ends in rt_sigreturn, which resets the
 * restart block, so the frame holds the call itself and release re-makes
 * it with what is left (dated by the same watch).
 *
 * The register changed is the one that carries the timeout (a pointer, or
 * poll's milliseconds), which the kernel preserves across a system call and
 * which a wrapper could read again after it. glibc 2.36's do not: in
 * Debian 12's libc.so.6, after the `syscall` of clock_nanosleep (which
 * glibc's nanosleep calls), ppoll, pselect, epoll_pwait2, sigtimedwait, semtimedop,
 * poll and syscall() only rax is read, and registers that are no argument
 * of that call (r8d, r9d or ebp: the saved cancellation state); the
 * argument registers are caller-saved for their callers. aarch64's
 * wrappers are the same C (INTERNAL_SYSCALL_CANCEL, the result in x0);
 * not disassembled here. Inline system calls (a static binary's own, a
 * liburing built without libc) may keep the pointer in its register and
 * pass it again: left open (doc/robustness.md). */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "core_read.h"
#include "kernel_restart.h"
#include "rcall_internal.h"
#include "rcall_reads.h"

/* How often a watched thread is looked at, and for how long at most (a
 * thread whose wait lasts longer is passed over). */
#define WATCH_STEP_NS 200000
#define WATCH_MAX_US 1500000
/* Waits longer than this are dated by the scheduler, not watched: the
 * choice of a thread then takes at most this long (issue: any waiting
 * process, at once). */
#define DATE_AFTER_US 400000
/* Two looks further apart than this (jeattach itself descheduled on a
 * loaded machine) date a new wait too loosely to be taken, for the first
 * half of the watch; after that the closest dating seen is good enough (a
 * wait then ends late by at most the gap, not by its whole timeout). */
#define WATCH_GAP_MAX_US 2000

/* ON_SOCKET: the socket's own SO_RCVTIMEO or SO_SNDTIMEO, not known here
 * (is_socket); its timed-out result is kept for the day it is. URING_ARG:
 * io_uring_enter's struct io_uring_getevents_arg, whose ts points at the
 * timespec (read_uring_arg). */
enum timeout_at { IN_REGISTER_MS, IN_MEMORY, ON_SOCKET, URING_ARG };

/* LATE_EINTR: a call that looks for a pending signal after its timer has
 * ended its sleep, so that an interrupt landing between the timer's
 * wake-up and the call's return turns its timeout into -EINTR:
 * sys_io_getevents ("if (!ret && signal_pending(current)) ret = -EINTR"),
 * unix_stream_read_generic (sock_intr_errno(0) once timeo is spent) and
 * inet_csk_wait_for_connect (the signal tested before the timeout). The
 * others test their timeout first (ep_poll's timed_out, do_sigtimedwait's
 * -EAGAIN, do_semtimedop's timed_out, tcp_recvmsg's and the datagram
 * receive's !timeo, sk_stream_wait_memory): their EINTR means the
 * interrupt, or something else, woke them in time. */
#define LATE_EINTR 1
/* FD_ANY: a call on any descriptor (read, write), a timed wait only on a
 * socket; the others here take sockets alone (ENOTSOCK otherwise). */
#define FD_ANY 2
/* RESTARTS: the interrupt makes the call return its own restart code, not
 * EINTR (the kernel would restart it by itself): -ERESTART_RESTARTBLOCK
 * for nanosleep, a relative clock_nanosleep (hrtimer_nanosleep, "Absolute
 * timers do not update the rmtp value and restart"), a FUTEX_WAIT with a
 * timeout (futex_wait: restart->fn = futex_wait_restart, its deadline kept
 * in the restart block) and poll (sys_poll: do_restart_poll), which
 * rt_sigreturn, the end of every crash-safe call, turns into EINTR
 * (restore_sigcontext's "restart_block.fn = do_no_restart_syscall");
 * -ERESTARTNOHAND for ppoll and pselect6 (poll_select_finish, after it wrote
 * the time left into the program's timespec). Such a call is re-made at
 * release (rcall_remake.c). */
#define RESTARTS 4
/* LEFT_WRITTEN: the kernel wrote the time left into the program's timespec
 * at the interrupt (poll_select_finish: put_timespec64): its deadline is
 * known from the first stop, no watch needed. */
#define LEFT_WRITTEN 8
/* NOT_SHORTENED: restarted by the kernel from the time left it wrote at the
 * interrupt, late by the hold's length, and not re-made with a shorter copy:
 * glibc's select() (which makes pselect6) copies the time left that the
 * kernel writes at the end into the program's timeval (Linux's select
 * semantics, "TIMESPEC_TO_TIMEVAL (timeout, pts64)" in __select64), and with
 * a copy that final write would miss it: a loop waiting out its timeval
 * would wait again. */
#define NOT_SHORTENED 16

/* What each call returns when PTRACE_INTERRUPT (or a signal) breaks its
 * wait, and how its timeout is held (Linux 6.1, Debian 12's, and 6.18):
 * - plain -EINTR, the timeout read once at entry into an absolute deadline
 *   (never written back): epoll_wait, epoll_pwait, epoll_pwait2 (ep_poll's
 *   "if (signal_pending(current)) return -EINTR"), rt_sigtimedwait
 *   (do_sigtimedwait), semtimedop (do_semtimedop), io_getevents and
 *   io_pgetevents (read_events), io_uring_enter with GETEVENTS|EXT_ARG
 *   (io_cqring_wait_schedule: task_sigpending -> -EINTR; io_get_ext_arg
 *   copies the struct and its timespec at entry, io_cqring_wait adds it
 *   to the clock once; time up: -ETIME). The kernel never restarts these:
 *   rcall_stop.c rewinds the EINTR, and at release they are re-made with
 *   what is left (a copy of the timespec below the red zone).
 * - RESTARTS (above): re-made at release as well, instead of relying on
 *   the restart block or the program's timespec.
 * - Absolute timeouts, which the kernel's own restart re-reads from the
 *   program's memory and so ends on time: clock_nanosleep with
 *   TIMER_ABSTIME (-ERESTARTNOHAND), FUTEX_WAIT_BITSET (-ERESTART_RESTARTBLOCK,
 *   re-made as is), futex_waitv (-ERESTARTSYS, futex_wait_multiple; its
 *   timeout goes through futex_init_timeout as FUTEX_WAIT_BITSET's, an
 *   absolute one), io_uring_enter with IORING_ENTER_ABS_TIMER (6.12+).
 *   Not timed waits here: nothing to watch or shorten.
 * Re-made calls are entered as interrupted with -ERESTARTNOHAND (what both
 * -EINTR and -ERESTART_RESTARTBLOCK amount to for a handler: EINTR; and no
 * handler restarts them); none re-made here has -ERESTARTSYS, whose
 * SA_RESTART case would make the call again after a handler that
 * overwrote the copy with its frame. */
static const struct timed_call {
	long nr;
	int arg; /* the timeout's argument, or the descriptor's for ON_SOCKET */
	enum timeout_at at;
	long timed_out; /* what the call returns when its time is up */
	int flags;
} timed_calls[] = {
#ifdef SYS_epoll_wait
	{ SYS_epoll_wait, 3, IN_REGISTER_MS, 0, 0 },
#endif
	{ SYS_epoll_pwait, 3, IN_REGISTER_MS, 0, 0 },
#ifdef SYS_epoll_pwait2
	{ SYS_epoll_pwait2, 3, IN_MEMORY, 0, 0 },
#endif
	{ SYS_rt_sigtimedwait, 2, IN_MEMORY, -EAGAIN, 0 },
	{ SYS_semtimedop, 3, IN_MEMORY, -EAGAIN, 0 },
	{ SYS_io_getevents, 4, IN_MEMORY, 0, LATE_EINTR },
	{ SYS_io_pgetevents, 4, IN_MEMORY, 0, LATE_EINTR },
	{ SYS_recvmmsg, 0, ON_SOCKET, -EAGAIN, LATE_EINTR },
#ifdef SYS_read
	{ SYS_read, 0, ON_SOCKET, -EAGAIN, LATE_EINTR | FD_ANY },
	{ SYS_write, 0, ON_SOCKET, -EAGAIN, FD_ANY },
#endif
	{ SYS_readv, 0, ON_SOCKET, -EAGAIN, LATE_EINTR | FD_ANY },
	{ SYS_writev, 0, ON_SOCKET, -EAGAIN, FD_ANY },
	{ SYS_recvfrom, 0, ON_SOCKET, -EAGAIN, LATE_EINTR },
	{ SYS_recvmsg, 0, ON_SOCKET, -EAGAIN, LATE_EINTR },
	{ SYS_sendto, 0, ON_SOCKET, -EAGAIN, 0 },
	{ SYS_sendmsg, 0, ON_SOCKET, -EAGAIN, 0 },
	{ SYS_sendmmsg, 0, ON_SOCKET, -EAGAIN, 0 },
#ifdef SYS_accept
	{ SYS_accept, 0, ON_SOCKET, -EAGAIN, LATE_EINTR },
#endif
	{ SYS_accept4, 0, ON_SOCKET, -EAGAIN, LATE_EINTR },
	/* __inet_stream_connect: a connect whose SO_SNDTIMEO ran out. */
	{ SYS_connect, 0, ON_SOCKET, -EINPROGRESS, 0 },
#ifdef SYS_io_uring_enter
	{ SYS_io_uring_enter, 4, URING_ARG, -ETIME, 0 },
#endif
#ifdef SYS_nanosleep
	{ SYS_nanosleep, 0, IN_MEMORY, 0, RESTARTS },
#endif
	{ SYS_clock_nanosleep, 2, IN_MEMORY, 0, RESTARTS },
	{ SYS_futex, 3, IN_MEMORY, -ETIMEDOUT, RESTARTS },
#ifdef SYS_poll
	{ SYS_poll, 2, IN_REGISTER_MS, 0, RESTARTS },
#endif
	{ SYS_ppoll, 2, IN_MEMORY, 0, RESTARTS | LEFT_WRITTEN },
	{ SYS_pselect6, 4, IN_MEMORY, 0, RESTARTS | LEFT_WRITTEN | NOT_SHORTENED },
};

#define TIMER_ABSTIME_FLAG 1 /* clock_nanosleep's TIMER_ABSTIME */
#define FUTEX_CMD(op) ((op) & ~(128u | 256u)) /* less PRIVATE and CLOCK_REALTIME */
#define FUTEX_WAIT_CMD 0
#define FUTEX_WAIT_BITSET_CMD 9
/* io_uring_enter's flags (include/uapi/linux/io_uring.h). */
#define URING_GETEVENTS 1u
#define URING_EXT_ARG 8u
#define URING_ABS_TIMER 32u   /* 6.12: ts is absolute */
#define URING_EXT_ARG_REG 64u /* 6.13: arg is an offset in a registered region */

static const struct timed_call *timed_call(long nr)
{
	for (size_t i = 0; i < sizeof(timed_calls) / sizeof(timed_calls[0]); i++)
		if (timed_calls[i].nr == nr)
			return &timed_calls[i];
	return NULL;
}

/* Does descriptor fd of pid name a socket? (Its SO_RCVTIMEO/SO_SNDTIMEO
 * stays unknown: reading it from outside needs a duplicate of the socket
 * (pidfd_getfd), and receiving one re-tags the target's socket with
 * jeattach's net_cls class and net_prio index (__receive_sock), a change
 * a v1 net_cls rule would see; closing the duplicate of a descriptor the
 * target swapped meanwhile could block in a FUSE flush.) */
#define is_socket(pid, fd) rcall_reads.is_socket(pid, fd)

/* A struct timespec at addr in t's memory, read, never written, in
 * microseconds rounded up: 0 if none, unreadable or invalid. */
static int64_t timespec_us(struct target *t, uint64_t addr)
{
	int64_t ts[2];
	if (!addr || rcall_reads.memory(t->io_pid, addr, ts, sizeof(ts)) || ts[0] < 0 || ts[1] < 0 ||
	    ts[1] >= 1000000000 || ts[0] > INT64_MAX / 2000000)
		return 0;
	return ts[0] * 1000000 + (ts[1] + 999) / 1000;
}

/* io_uring_enter's struct io_uring_getevents_arg, read (24 bytes, bounded)
 * only where the kernel reads it as such: GETEVENTS with EXT_ARG, argsz
 * its size (io_get_ext_arg: "if (*argsz != sizeof(arg)) return -EINVAL"),
 * and not a registered wait region (EXT_ARG_REG: arg is an offset). Its
 * timeout is relative unless ABS_TIMER; min_wait_usec (6.12, the pad
 * before) is a second relative time, which a copy would have to shorten
 * too: such a wait is treated as one whose timeout is not known. 1 read
 * (u: sigmask, sigmask_sz | min_wait_usec << 32, ts), 0 not a timed wait. */
static int read_uring_arg(struct target *t, const uint64_t *args, uint64_t u[3])
{
	unsigned flags = (unsigned)args[3];
	if ((flags & (URING_GETEVENTS | URING_EXT_ARG)) != (URING_GETEVENTS | URING_EXT_ARG) ||
	    (flags & (URING_ABS_TIMER | URING_EXT_ARG_REG)) || args[5] != URING_ARG_SIZE ||
	    rcall_reads.memory(t->io_pid, args[4], u, URING_ARG_SIZE))
		return 0;
	return (u[1] >> 32) == 0 && u[2] != 0;
}

/* The relative timeout, in microseconds, of call c made with args by a
 * thread of t: 0 if none (or it cannot be known, or it is absolute). */
static int64_t timeout_us(struct target *t, const struct timed_call *c, const uint64_t *args)
{
	uint64_t u[3];
	switch (c->at) {
	case IN_REGISTER_MS:
		/* An int: -1 waits for ever, 0 polls. */
		return (int)args[c->arg] > 0 ? (int64_t)(int)args[c->arg] * 1000 : 0;
	case IN_MEMORY:
		if (c->nr == SYS_clock_nanosleep &&
		    ((args[1] & TIMER_ABSTIME_FLAG) ||
		     /* hrtimer clocks only (REALTIME, MONOTONIC, BOOTTIME): a
		      * relative REALTIME sleep runs on the monotonic clock
		      * (__hrtimer_init); CPU-time and alarm clocks sleep
		      * otherwise. */
		     ((int)args[0] != 0 && (int)args[0] != 1 && (int)args[0] != 7)))
			return 0;
		if (c->nr == SYS_futex && FUTEX_CMD((unsigned)args[1]) != FUTEX_WAIT_CMD)
			return 0; /* FUTEX_WAIT_BITSET's is absolute; the rest wait untimed */
		return timespec_us(t, args[c->arg]);
	case URING_ARG:
		return read_uring_arg(t, args, u) ? timespec_us(t, u[2]) : 0;
	default:
		return 0; /* a socket's: unknown (is_socket) */
	}
}

/* What tid is doing now: is it asleep in a call whose interrupt would
 * stretch its timeout? Also its count of sleeps, and the call's timeout
 * (us, 0 none or unknown) if timeout_out. 1 yes, 0 no, <0 error. */
static int look_timeout(struct target *t, pid_t tid, unsigned long long *sleeps,
			int64_t *timeout_out)
{
	char *text = rcall_reads.task_file(t->io_pid, tid, "status");
	if (!text)
		return -ESRCH;
	const char *v = target_status_field(text, "voluntary_ctxt_switches");
	*sleeps = v ? strtoull(v, NULL, 10) : 0;
	free(text);
	/* The task's own file: a tid that is no longer this process's reads
	 * as gone. */
	if (!(text = rcall_reads.task_file(t->io_pid, tid, "syscall")))
		return -ESRCH;
	struct arch_blocked_call b;
	pt_parse_blocked_call(text, &b);
	free(text);
	const struct timed_call *c = b.valid ? timed_call(b.nr) : NULL;
	if (!c)
		return 0;
	if (c->at == ON_SOCKET)
		return is_socket(t->io_pid, b.args[c->arg]) ? RCALL_WAIT_SOCKET : 0;
	int64_t timeout = timeout_us(t, c, b.args);
	if (timeout <= 0)
		return 0;
	if (timeout_out)
		*timeout_out = timeout;
	if (c->flags & NOT_SHORTENED)
		return RCALL_WAIT_LATE;
	/* A restart-block sleep longer than a watch is taken as it is: its
	 * restart block ends it on time, through the return trap (a
	 * daemon's sleep(60) was borrowed at once before, and must stay so). */
	if ((c->flags & RESTARTS) && !(c->flags & LEFT_WRITTEN))
		return timeout <= WATCH_MAX_US ? RCALL_WAIT_SLEEP : RCALL_WAIT_LONG_SLEEP;
	/* The time left comes with the interrupt: no start to date. */
	return c->flags & LEFT_WRITTEN ? 0 : RCALL_WAIT_TIMED;
}

static int look(struct target *t, pid_t tid, unsigned long long *sleeps)
{
	return look_timeout(t, tid, sleeps, NULL);
}

enum rcall_cost rcall_wait_cost(struct target *t, pid_t tid)
{
	char *text = rcall_reads.task_file(t->io_pid, tid, "syscall");
	if (!text)
		return RCALL_COST_GONE;
	/* "running" (on a CPU or runnable), or "-1 SP PC": not in a call. */
	struct arch_blocked_call b;
	pt_parse_blocked_call(text, &b);
	free(text);
	if (!b.valid)
		return RCALL_COST_RUNNING;
	const struct timed_call *c = timed_call(b.nr);
	if (!c)
		return RCALL_COST_UNTIMED_WAIT; /* read, accept, pause, sigwait... */
	/* A socket's own timeout is not known from outside: as timed. */
	if (c->at == ON_SOCKET)
		return is_socket(t->io_pid, b.args[c->arg]) ? RCALL_COST_SOCKET_WAIT
							    : RCALL_COST_UNTIMED_WAIT;
	if (timeout_us(t, c, b.args) > 0)
		return RCALL_COST_TIMED_WAIT;
	return c->flags & RESTARTS ? RCALL_COST_UNTIMED_WAIT : RCALL_COST_UNTIMED_EINTR;
}

int rcall_wait_timed(struct target *t, pid_t tid)
{
	unsigned long long sleeps;
	int e = look(t, tid, &sleeps);
	return e > 0 ? e : 0;
}

int rcall_wait_watch(struct target *t, pid_t tid, core_usec_t deadline, core_usec_t *began)
{
	unsigned long long prev, now;
	core_usec_t end = core_now_us() + WATCH_MAX_US;
	if (t->rc->only_tid || end > deadline)
		end = deadline;
	core_usec_t last = core_now_us(), strict_until = last + (end - last) / 2;
	int e = look(t, tid, &prev);
	/* A quit asked meanwhile passes the thread over; the search then
	 * ends before the next one (rcall_hold). */
	while (e >= 0 && core_now_us() < end && !rcall_quit_asked(t)) {
		struct timespec ts = { 0, WATCH_STEP_NS };
		nanosleep(&ts, NULL);
		e = look(t, tid, &now);
		core_usec_t at = core_now_us(), gap = at - last;
		last = at;
		/* Asleep in such a wait again since the last look: it began
		 * after that look. Seen out of it is not enough: /proc shows a
		 * thread woken by its wait's timer but not yet back from the
		 * call as "running" (task_current_syscall: state TASK_RUNNING),
		 * and an interrupt there turns its timeout into -EINTR
		 * (io_getevents: "if (!ret && signal_pending(current))"),
		 * which would be rewound into a whole new wait. */
		if ((e == RCALL_WAIT_TIMED || e == RCALL_WAIT_SLEEP) && now != prev &&
		    (gap <= WATCH_GAP_MAX_US || at > strict_until)) {
			*began = at;
			return 0;
		}
		prev = now;
	}
	return e < 0 ? e : -ETIMEDOUT;
}

/* A thread asleep in a timed wait that an interrupt would stretch
 * (rcall_wait.c) is taken only when nothing else is, right as its wait
 * begins; one waiting on a socket, whose timeout is unknown, is taken then
 * as it is (*began 0). Any other: a wait it enters before the interrupt
 * began no later than the interrupt (*began -1: rcall_stop_thread takes
 * the time). 0 go on, 1 pass it over (why in reason). */
int rcall_wait_check(struct target *t, pid_t tid, int last_round, core_usec_t *began, char *reason,
		     size_t rlen)
{
	struct rcall_ctx *c = t->rc;
	unsigned long long sleeps;
	int64_t timeout = 0;
	int kind = look_timeout(t, tid, &sleeps, &timeout);
	if (kind < 0)
		kind = 0;
	*began = kind == RCALL_WAIT_SOCKET ? 0 : -1;
	if (kind && !last_round && !c->only_tid) {
		snprintf(reason, rlen, "thread %d is in a timed wait; tried later", (int)tid);
		return 1;
	}
	/* A wait longer than a watch should cost is dated by the scheduler
	 * (rcall_since.c) instead of watched for its next start, which takes
	 * as long as the wait. A short one is still watched: interrupted at
	 * its start, it stays on time even if jeattach is killed during the
	 * hold (the frame makes the call again whole; a dated wait is
	 * interrupted anywhere in it, and a kill then makes it late by what
	 * had passed). */
	if ((kind == RCALL_WAIT_TIMED || kind == RCALL_WAIT_SLEEP || kind == RCALL_WAIT_LONG_SLEEP) &&
	    timeout > DATE_AFTER_US && !rcall_wait_since(t, tid, began))
		return 0;
	if (kind == RCALL_WAIT_LONG_SLEEP) {
		*began = 0; /* asleep since before this look: undated */
		return 0;
	}
	if (kind == RCALL_WAIT_SLEEP) {
		/* Watched for one timeout at most (it is no longer than
		 * WATCH_MAX_US), --tid or not; undated, taken as it is
		 * (*began 0: rcall_wait_plan keeps its restart block). */
		core_usec_t until = core_now_us() + WATCH_MAX_US;
		if (rcall_wait_watch(t, tid, until < c->deadline ? until : c->deadline, began))
			*began = 0;
		return 0;
	}
	if (kind == RCALL_WAIT_TIMED && rcall_wait_watch(t, tid, c->deadline, began)) {
		rcall_late_note(c, tid, timeout);
		snprintf(reason, rlen,
			 "thread %d stayed in a timed wait; interrupting it would make the wait end "
			 "late",
			 (int)tid);
		return 1;
	}
	return 0;
}

static void syscall_args(const arch_gpregs_t *r, uint64_t *args)
{
	for (int i = 0; i < 6; i++)
		args[i] = arch_syscall_arg(r, i);
}

/* A register timeout set to what is left until ends, rounded up: never
 * earlier than the original. c is the call's, looked up before a rewind
 * (which takes the thread out of its syscall, number and all). */
static void shorten(const struct timed_call *c, arch_gpregs_t *r, core_usec_t ends)
{
	if (!ends || !c || c->at != IN_REGISTER_MS)
		return;
	core_usec_t left = ends - core_now_us();
	arch_set_syscall_arg(r, c->arg, left > 0 ? (uint64_t)((left + 999) / 1000) : 0);
}

void rcall_sched_read(struct target *t, pid_t tid, struct rcall_sched *s)
{
	char *text;
	memset(s, 0, sizeof(*s));
	/* "RUNTIME RUN_DELAY PCOUNT" (proc_pid_schedstat; CONFIG_SCHED_INFO). */
	if (!(text = rcall_reads.task_file(t->io_pid, tid, "schedstat")))
		return;
	int n = sscanf(text, "%*u %*u %llu", &s->arrivals);
	free(text);
	if (n != 1 || !(text = rcall_reads.task_file(t->io_pid, tid, "status")))
		return;
	const char *v = target_status_field(text, "voluntary_ctxt_switches");
	const char *w = target_status_field(text, "nonvoluntary_ctxt_switches");
	if (v && w) {
		s->sleeps = strtoull(v, NULL, 10);
		s->preempts = strtoull(w, NULL, 10);
		s->valid = 1;
	}
	free(text);
}

/* Was thread tid, seen running just before its interrupt (before), woken
 * from its call's sleep before the interrupt came, the call not yet left?
 * Since then it slept once, the interrupt's stop itself (ptrace_stop
 * schedules out in TASK_TRACED: a voluntary switch), so it never blocked
 * again; and it was put on a CPU once more than it was preempted: each
 * preemption accounts for one return to a CPU, so the one left over means
 * it was waiting on a run queue at the look, as a thread woken by its
 * timer waits on a busy machine, not running. A thread that entered the
 * call after the look and slept in it slept twice; one on a CPU at the
 * look (at the call's entry, or through its exit on an idle machine) got
 * a CPU back only after each preemption: neither is known to have been
 * woken, and is rewound whole as before. A woken thread preempted on its
 * way out (seen under emulation, where that way is long) counts as woken.
 * /proc is looked at again after the counters (rcall_stop_thread), so a
 * sleep begun before them shows there. What this reading gets wrong, each
 * needing the thread to run in the microseconds between the counters and
 * the interrupt: a thread preempted inside the call's entry, before its
 * sleep, that gets a CPU back then; and one waiting for a CPU at the look
 * (preempted in user space) that then enters such a call and is
 * preempted in its entry. Either is answered timed out, early. */
int rcall_wait_woken(struct target *t, pid_t tid, const struct rcall_sched *before)
{
	struct rcall_sched now;
	if (!before->valid)
		return 0;
	rcall_sched_read(t, tid, &now);
	return now.valid && now.sleeps == before->sleeps + 1 && now.preempts >= before->preempts &&
	       now.arrivals - before->arrivals == now.preempts - before->preempts + 1;
}

/* Did call c (made with args; args[0] known or not) of held thread h end
 * its sleep by its timer before the interrupt, which then turned its
 * timeout into EINTR on its way out? Only a LATE_EINTR call with a timeout
 * (a socket's is finite: an endless one gives -ERESTARTSYS,
 * sock_intr_errno), on a socket where the call takes any descriptor, by a
 * thread woken before the interrupt. */
static int woken_out_of(struct target *t, const struct rcall_held *h, const struct timed_call *c,
			const uint64_t *args, int arg0_known)
{
	if (!c || !(c->flags & LATE_EINTR))
		return 0;
	if (c->at == ON_SOCKET ? (c->flags & FD_ANY) &&
					 (!arg0_known || !is_socket(t->io_pid, args[c->arg]))
			       : timeout_us(t, c, args) <= 0)
		return 0;
	return rcall_wait_woken(t, h->tid, &h->before);
}

/* Plan re-making call c (made with args) of held thread h at release, its
 * timeout cut to end at ends (rcall_remake.c). */
static void plan(struct target *t, struct rcall_held *h, const struct timed_call *c,
		 const uint64_t *args, core_usec_t ends)
{
	struct rcall_reissue *p = &h->reissue;
	memset(p, 0, sizeof(*p));
	if (c->flags & NOT_SHORTENED)
		return;
	switch (c->at) {
	case IN_REGISTER_MS:
		p->how = RCALL_REISSUE_MS;
		break;
	case IN_MEMORY:
		p->how = RCALL_REISSUE_TIMESPEC;
		break;
	case URING_ARG:
		if (!read_uring_arg(t, args, p->uring))
			return;
		p->how = RCALL_REISSUE_URING;
		break;
	default:
		return;
	}
	p->nr = c->nr;
	p->arg = c->arg;
	p->ends = ends;
}

int rcall_wait_resume(struct target *t, struct rcall_held *h, arch_gpregs_t *r)
{
	const struct timed_call *c = timed_call(arch_syscall_nr(r));
	uint64_t args[6];
	syscall_args(r, args);
	core_usec_t began = h->wait_began;
	h->wait_ends = 0;
	if (woken_out_of(t, h, c, args, 1)) {
		/* Woken before the interrupt and stopped on its way out: by its
		 * timer, since a wake-up with something to report returns that
		 * (the other wake-up, a socket's data taken by another reader
		 * first, is answered as a timeout too). Rewound, it would wait
		 * its whole timeout again (seen: 306-340 ms late on 300 ms). */
		arch_set_syscall_result(r, c->timed_out);
		return 1;
	}
	int64_t timeout = c && began > 0 ? timeout_us(t, c, args) : 0;
	if (timeout <= 0) {
		arch_syscall_rewind(r);
		return 0;
	}
	if (core_now_us() >= began + timeout) {
		/* Its time was up when the interrupt came (the thread may have
		 * been woken by its timer already): it returns as it would
		 * have, not into a whole new wait. */
		arch_set_syscall_result(r, c->timed_out);
		return 1;
	}
	arch_syscall_rewind(r);
	if (c->at == IN_REGISTER_MS) {
		h->wait_ends = began + timeout;
		shorten(c, r, h->wait_ends);
	} else {
		/* In memory: re-made at release from a shortened copy. */
		plan(t, h, c, args, began + timeout);
	}
	return 0;
}

int rcall_wait_forgotten(struct target *t, struct rcall_held *h, arch_gpregs_t *r)
{
	/* Stopped just past a system call instruction, its result -EINTR, the
	 * call's number still in the register that passed it (arm64's x8:
	 * the kernel only reads it), and woken before the interrupt: a
	 * LATE_EINTR call its timer had ended. Its first argument is gone
	 * (x0 holds the result), so a call on any descriptor, which is a
	 * timed wait only on a socket, cannot be told and is left as it is. */
	const struct timed_call *c = timed_call(arch_syscall_nr_register(r));
	char insn[ARCH_SYSCALL_INSN_LEN];
	uint64_t args[6];
	syscall_args(r, args); /* args[0] is the result now: unknown */
	if (arch_syscall_ret(r) != -EINTR ||
	    pt_read(h->tid, arch_pc(r) - ARCH_SYSCALL_INSN_LEN, insn, sizeof(insn)) ||
	    memcmp(insn, ARCH_SYSCALL_INSN, sizeof(insn)) || !woken_out_of(t, h, c, args, 0))
		return 0;
	arch_set_syscall_result(r, c->timed_out);
	return 1;
}

void rcall_wait_shorten(arch_gpregs_t *r, core_usec_t ends)
{
	shorten(timed_call(arch_syscall_nr(r)), r, ends);
}

/* Does p point just below the red zone of a thread whose registers are r,
 * where rcall_remake puts a copy? */
static int below_red_zone(const arch_gpregs_t *r, uint64_t p)
{
	uint64_t top = arch_sp(r) - ARCH_RED_ZONE;
	return p < top && p >= top - RCALL_SCRATCH_SIZE;
}

/* A call jeattach re-made at an earlier release, caught again before the
 * kernel made it (a second hold in the same run, the first's thread not yet
 * back in it): its timeout is the copy below the red zone, what was left at
 * that release a moment ago, and this hold's first frames go there before
 * the call reads it. Two states show it:
 * - interrupted with -ERESTARTNOHAND, a code the kernel never gives an
 *   EINTR call (or a restart-block one): x86_64 at a stop inside get_signal
 *   before the restart is applied;
 * - on its system call instruction, the call's number where the ABI passes
 *   it: arm64 always (arch_syscall_interrupted); x86_64 too when the
 *   restart was applied at one pass of exit_to_user_mode_loop and the
 *   interrupt stopped it at the next (rax == orig_rax == the call, rip on
 *   the `syscall`; victim_fork's 1 s sigtimedwait re-made with a copy the
 *   next hold's frames had overwritten returned EAGAIN after 10-30 ms, about
 *   once in 40 holds of --top).
 * Only a call whose timeout is a pointer below the red zone is one of ours
 * (a program keeps nothing there: a signal frame may overwrite it any time).
 * insn: the bytes at the thread's pc. The call's number (args filled), or -1. */
long rcall_wait_remade(const arch_gpregs_t *r, const char *insn, uint64_t args[6])
{
	const struct timed_call *c;
	if (arch_in_syscall(r) && arch_syscall_ret(r) == -ERESTARTNOHAND) {
		c = timed_call(arch_syscall_nr(r));
		if (!c || (c->flags & LEFT_WRITTEN))
			return -1; /* ppoll's time left, written by the kernel: rcall_wait_plan */
		syscall_args(r, args);
	} else if (!memcmp(insn, ARCH_SYSCALL_INSN, ARCH_SYSCALL_INSN_LEN)) {
		if (!(c = timed_call(arch_syscall_nr_next(r))))
			return -1;
		for (int i = 0; i < 6; i++)
			args[i] = arch_rewound_arg(r, i);
	} else {
		return -1;
	}
	if (c->at == ON_SOCKET || c->at == IN_REGISTER_MS || !below_red_zone(r, args[c->arg]))
		return -1;
	return c->nr;
}

/* insn: the bytes at the thread's pc, read once by rcall_wait_plan. */
static int plan_remade(struct target *t, struct rcall_held *h, const char *insn)
{
	uint64_t args[6];
	long nr = rcall_wait_remade(&h->regs, insn, args);
	const struct timed_call *c = nr < 0 ? NULL : timed_call(nr);
	if (!c)
		return 0;
	int64_t left = timeout_us(t, c, args);
	if (left <= 0)
		return 0;
	plan(t, h, c, args, core_now_us() + left);
	return h->reissue.nr != 0;
}

int rcall_wait_at_restart(const arch_gpregs_t *r, const char *insn)
{
	return arch_syscall_nr_next(r) == SYS_restart_syscall &&
	       !memcmp(insn, ARCH_SYSCALL_INSN, ARCH_SYSCALL_INSN_LEN);
}

int rcall_wait_plan(struct target *t, struct rcall_held *h)
{
	const arch_gpregs_t *r = &h->regs;
	char insn[ARCH_SYSCALL_INSN_LEN];
	if (pt_read(h->tid, arch_pc(r), insn, sizeof(insn)))
		memset(insn, 0, sizeof(insn));
	int block = arch_restarts_by_block(r) || rcall_wait_at_restart(r, insn);
	if (h->reissue.nr || plan_remade(t, h, insn) || !arch_in_syscall(r))
		return block; /* planned at the first stop (an EINTR rewound), or in no call */
	long ret = arch_syscall_ret(r);
	const struct timed_call *c = timed_call(arch_syscall_nr(r));
	if ((ret != -ERESTART_RESTARTBLOCK && ret != -ERESTARTNOHAND) || !c || !(c->flags & RESTARTS))
		return block;
	uint64_t args[6];
	syscall_args(r, args);
	if (c->flags & LEFT_WRITTEN) {
		/* ppoll: the kernel has just written the time left into the
		 * program's timespec (poll_select_finish); pselect6 is left to
		 * the kernel's own restart (NOT_SHORTENED). */
		int64_t left = timespec_us(t, args[c->arg]);
		if (left > 0)
			plan(t, h, c, args, core_now_us() + left);
		return block;
	}
	if (ret != -ERESTART_RESTARTBLOCK)
		return block;
	int64_t timeout = timeout_us(t, c, args);
	if (timeout > 0 && h->wait_began > 0) {
		/* Its start dated by the watch (or the interrupt, which came
		 * after it): it ends no earlier than it would have. */
		plan(t, h, c, args, h->wait_began + timeout);
	} else if ((c->nr == SYS_futex && FUTEX_CMD((unsigned)args[1]) == FUTEX_WAIT_BITSET_CMD) ||
		   (c->at == IN_REGISTER_MS && (int)args[c->arg] < 0)) {
		/* An absolute deadline (futex_wait_restart keeps the same one),
		 * or none (poll(-1): do_restart_poll without has_timeout): made
		 * again exactly as it was. */
		memset(&h->reissue, 0, sizeof(h->reissue));
		h->reissue.nr = c->nr;
		h->reissue.how = RCALL_REISSUE_AS_IS;
	}
	/* Otherwise (a timeout unknown, a CPU-time clock, restart_syscall
	 * itself) the restart block is kept: rcall_hold.c borrows such a
	 * thread last, through the return trap. */
	return h->reissue.nr ? 0 : block;
}

void rcall_wait_reissue_regs(const struct rcall_held *h, arch_gpregs_t *r)
{
	*r = h->regs;
	long ret = arch_syscall_ret(r);
	/* From its -ERESTART* code back onto the call itself (an EINTR was
	 * rewound at the first stop already): for -ERESTART_RESTARTBLOCK the
	 * call, not restart_syscall, whose restart block the frame's
	 * rt_sigreturn resets (restore_sigcontext). */
	if (arch_in_syscall(r) && (ret == -ERESTART_RESTARTBLOCK || ret == -ERESTARTNOHAND ||
				   ret == -ERESTARTSYS || ret == -ERESTARTNOINTR))
		arch_syscall_rewind(r);
}

size_t rcall_wait_frame_copy(const struct rcall_held *h, arch_gpregs_t *r, uint64_t at,
			     uint64_t out[6])
{
	const struct rcall_reissue *p = &h->reissue;
	if (!p->nr || (p->how != RCALL_REISSUE_TIMESPEC && p->how != RCALL_REISSUE_URING) ||
	    !below_red_zone(&h->regs, arch_rewound_arg(r, p->arg)))
		return 0;
	/* The program's own timeout is no longer known: a copy of what is
	 * left now, in the frame's siginfo, which rt_sigreturn does not read
	 * and nothing writes before the thread makes the call again. */
	core_usec_t left = p->ends - core_now_us();
	if (left < 0)
		left = 0;
	size_t len = 16, ts = 0;
	if (p->how == RCALL_REISSUE_URING) {
		memcpy(out, p->uring, URING_ARG_SIZE);
		out[2] = at + 32;
		out[3] = 0;
		ts = 4;
		len = 48;
	}
	out[ts] = (uint64_t)(left / 1000000);
	out[ts + 1] = (uint64_t)(left % 1000000) * 1000;
	arch_set_rewound_arg(r, p->arg, at);
	return len;
}
