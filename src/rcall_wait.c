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
 * and is not written: such a wait ends later by the hold's length. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "core_read.h"
#include "rcall_internal.h"

/* How often a watched thread is looked at, and for how long at most (a
 * thread whose wait lasts longer is passed over). */
#define WATCH_STEP_NS 200000
#define WATCH_MAX_US 1500000
/* Two looks further apart than this (jeattach itself descheduled on a
 * loaded machine) date a new wait too loosely to be taken, for the first
 * half of the watch; after that the closest dating seen is good enough (a
 * wait then ends late by at most the gap, not by its whole timeout). */
#define WATCH_GAP_MAX_US 2000

/* ON_SOCKET: the socket's own SO_RCVTIMEO or SO_SNDTIMEO, not known here
 * (is_socket); its timed-out result is kept for the day it is. */
enum timeout_at { IN_REGISTER_MS, IN_MEMORY, ON_SOCKET };

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
};

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
static int is_socket(pid_t pid, uint64_t fd)
{
	char path[64], link[32];
	if (fd > 0x7fffffff)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, (int)fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	return n >= 7 && !memcmp(link, "socket:", 7);
}

/* The relative timeout, in microseconds, of call c made with args by a
 * thread of t: 0 if none (or it cannot be known). */
static int64_t timeout_us(struct target *t, const struct timed_call *c, const uint64_t *args)
{
	switch (c->at) {
	case IN_REGISTER_MS:
		/* An int: -1 waits for ever, 0 polls. */
		return (int)args[c->arg] > 0 ? (int64_t)(int)args[c->arg] * 1000 : 0;
	case IN_MEMORY: {
		/* A struct timespec in the thread's memory, read, never written. */
		int64_t ts[2];
		if (!args[c->arg] || pt_read(t->io_pid, args[c->arg], ts, sizeof(ts)) || ts[0] < 0 ||
		    ts[1] < 0 || ts[1] >= 1000000000 || ts[0] > INT64_MAX / 2000000)
			return 0;
		return ts[0] * 1000000 + (ts[1] + 999) / 1000;
	}
	default:
		return 0; /* a socket's: unknown (is_socket) */
	}
}

/* What tid is doing now: is it asleep in a call whose interrupt would
 * stretch its timeout? Also its count of sleeps. 1 yes, 0 no, <0 error. */
static int look(struct target *t, pid_t tid, unsigned long long *sleeps)
{
	char path[80], *text = target_thread_status(t->io_pid, tid);
	if (!text)
		return -ESRCH;
	const char *v = target_status_field(text, "voluntary_ctxt_switches");
	*sleeps = v ? strtoull(v, NULL, 10) : 0;
	free(text);
	/* The task's own file: a tid that is no longer this process's reads
	 * as gone. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)t->io_pid, (int)tid);
	if (core_read_file(path, 4096, &text, NULL))
		return -ESRCH;
	struct arch_blocked_call b;
	pt_parse_blocked_call(text, &b);
	free(text);
	const struct timed_call *c = b.valid ? timed_call(b.nr) : NULL;
	if (!c)
		return 0;
	if (c->at == ON_SOCKET)
		return is_socket(t->io_pid, b.args[c->arg]) ? RCALL_WAIT_SOCKET : 0;
	return timeout_us(t, c, b.args) > 0 ? RCALL_WAIT_TIMED : 0;
}

int rcall_wait_timed(struct target *t, pid_t tid)
{
	unsigned long long sleeps;
	int e = look(t, tid, &sleeps);
	return e > 0 ? e : 0;
}

int rcall_wait_watch(struct target *t, pid_t tid, pt_usec_t deadline, pt_usec_t *began)
{
	unsigned long long prev, now;
	pt_usec_t end = pt_now_us() + WATCH_MAX_US;
	if (t->rc->only_tid || end > deadline)
		end = deadline;
	pt_usec_t last = pt_now_us(), strict_until = last + (end - last) / 2;
	int e = look(t, tid, &prev);
	while (e >= 0 && pt_now_us() < end) {
		struct timespec ts = { 0, WATCH_STEP_NS };
		nanosleep(&ts, NULL);
		e = look(t, tid, &now);
		pt_usec_t at = pt_now_us(), gap = at - last;
		last = at;
		/* Asleep in such a wait again since the last look: it began
		 * after that look. Seen out of it is not enough: /proc shows a
		 * thread woken by its wait's timer but not yet back from the
		 * call as "running" (task_current_syscall: state TASK_RUNNING),
		 * and an interrupt there turns its timeout into -EINTR
		 * (io_getevents: "if (!ret && signal_pending(current))"),
		 * which would be rewound into a whole new wait. */
		if (e == RCALL_WAIT_TIMED && now != prev &&
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
int rcall_wait_check(struct target *t, pid_t tid, int last_round, pt_usec_t *began, char *reason,
		     size_t rlen)
{
	struct rcall_ctx *c = t->rc;
	int kind = rcall_wait_timed(t, tid);
	*began = kind == RCALL_WAIT_SOCKET ? 0 : -1;
	if (kind && !last_round && !c->only_tid) {
		snprintf(reason, rlen, "thread %d is in a timed wait; tried later", (int)tid);
		return 1;
	}
	if (kind == RCALL_WAIT_TIMED && rcall_wait_watch(t, tid, c->deadline, began)) {
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
static void shorten(const struct timed_call *c, arch_gpregs_t *r, pt_usec_t ends)
{
	if (!ends || !c || c->at != IN_REGISTER_MS)
		return;
	pt_usec_t left = ends - pt_now_us();
	arch_set_syscall_arg(r, c->arg, left > 0 ? (uint64_t)((left + 999) / 1000) : 0);
}

void rcall_sched_read(struct target *t, pid_t tid, struct rcall_sched *s)
{
	char path[80], *text;
	memset(s, 0, sizeof(*s));
	/* "RUNTIME RUN_DELAY PCOUNT" (proc_pid_schedstat; CONFIG_SCHED_INFO). */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)t->io_pid, (int)tid);
	if (core_read_file(path, 4096, &text, NULL))
		return;
	int n = sscanf(text, "%*u %*u %llu", &s->arrivals);
	free(text);
	if (n != 1 || !(text = target_thread_status(t->io_pid, tid)))
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
static int woken_before_interrupt(struct target *t, pid_t tid, const struct rcall_sched *before)
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
static int woken_out_of(struct target *t, const struct rcall_hold *h, const struct timed_call *c,
			const uint64_t *args, int arg0_known)
{
	if (!c || !(c->flags & LATE_EINTR))
		return 0;
	if (c->at == ON_SOCKET ? (c->flags & FD_ANY) &&
					 (!arg0_known || !is_socket(t->io_pid, args[c->arg]))
			       : timeout_us(t, c, args) <= 0)
		return 0;
	return woken_before_interrupt(t, h->tid, &h->before);
}

int rcall_wait_resume(struct target *t, struct rcall_hold *h, arch_gpregs_t *r)
{
	const struct timed_call *c = timed_call(arch_syscall_nr(r));
	uint64_t args[6];
	syscall_args(r, args);
	pt_usec_t began = h->wait_began;
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
	if (pt_now_us() >= began + timeout) {
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
	}
	return 0;
}

int rcall_wait_forgotten(struct target *t, struct rcall_hold *h, arch_gpregs_t *r)
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

void rcall_wait_shorten(arch_gpregs_t *r, pt_usec_t ends)
{
	shorten(timed_call(arch_syscall_nr(r)), r, ends);
}
