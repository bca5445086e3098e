/* SPDX-License-Identifier: BSD-2-Clause */
/* rcall_: calling functions and system calls inside a held target thread.
 * Knows ptrace (through pt_) and the ABI (through arch_), never jemalloc.
 * Its state is a private context (struct rcall_ctx, opaque here) that hangs
 * off the target; its life, in order, under one prefix:
 *
 *   rcall_prepare -> rcall_hold -> rcall / rcall_syscall ... -> rcall_release
 *   -> (hold again ...) -> rcall_free
 *
 * Transport failure and remote result are kept apart (compel's style): the
 * return value is 0 or a negative code ("could not do it": -errno, or one of
 * errors.h's), the callee's own result comes back through an out-parameter. */
#ifndef JEATTACH_RCALL_H
#define JEATTACH_RCALL_H

#include <stddef.h>
#include <stdint.h>
#include "pt.h"
#include "target.h"

struct rcall_opts {
	pid_t only_tid; /* borrow this thread only (--tid); 0: any at a safe point */
};

/* What borrowing a thread costs the service it serves, least first
 * (rcall_rank.c ranks candidates by it). GONE: it no longer exists. */
enum rcall_cost {
	RCALL_COST_UNTIMED_WAIT,
	/* With no timeout too, but a call the interrupt ends with a plain
	 * EINTR (epoll_wait(-1)) that jeattach undoes at the stop: if it were
	 * killed right there, the program would see it; a call the kernel
	 * restarts by itself (read, a futex, accept, pause) has no such
	 * moment. */
	RCALL_COST_UNTIMED_EINTR,
	RCALL_COST_TIMED_WAIT,
	/* A timed wait whose timeout cannot be known (a socket's SO_RCVTIMEO):
	 * interrupted, it waits again in full, so it comes after the others. */
	RCALL_COST_SOCKET_WAIT,
	RCALL_COST_RUNNING,
	RCALL_COST_GONE,
};
const char *rcall_cost_name(enum rcall_cost c); /* "untimed_wait"... */

/* The thread a hold borrowed, and why that one (for --json and -v). */
struct rcall_hold_info {
	pid_t tid;
	enum rcall_cost cost;  /* what it was doing when chosen */
	char comm[32];
	int rank, candidates;  /* its place in the ranking (1 first), of how many */
};
/* The current hold's thread: 0, or -EINVAL when none is held. */
int rcall_held_info(const struct target *t, struct rcall_hold_info *out);
/* The next holds run a call known to be long (a dump, a full report):
 * in the first round a running thread is passed over while an idle one may
 * be had (rcall_rank.c). */
void rcall_set_long_call(struct target *t, int on);

/* How long threads were held, for --json's hold_us_max / hold_us_total. */
struct rcall_timing {
	int holds;
	int crash_safe_holds; /* holds whose calls were all crash-safe */
	int64_t us_max, us_total;
	int64_t us_last; /* the last hold's */
};

/* The process's child processes, across all its threads (rcall_kids.c). */
struct rcall_kids {
	pid_t *pid;
	size_t n, cap;
};
/* Every child of process pid now, into k (emptied first): 0, or -errno
 * (-ENOENT: no children files on this kernel). */
int rcall_kids_read(pid_t pid, struct rcall_kids *k);
void rcall_kids_free(struct rcall_kids *k);

/* Once per process, before any target is touched: what ptrace needs of
 * jeattach itself (SIGCHLD blocked, the signalfd waits sleep on: pt_init). */
int rcall_init(void);
/* Find the code calls need in the target (a syscall instruction, libc's
 * errno, the crash-safe return path) and make the context. No thread is
 * stopped. */
int rcall_prepare(struct target *t, const struct rcall_opts *o);
/* Finding a thread to hold gives up at deadline (-ETIMEDOUT). A held
 * thread's calls are not bounded by it: a call that has started is never cut
 * off (abandoning prof.dump mid-way left jemalloc's dump lock taken, and
 * every sampled allocation of the process blocked on it forever). */
void rcall_set_deadline(struct target *t, core_usec_t deadline);

/* Called about every RCALL_TICK_US while a call runs: elapsed is how long
 * it has run; can_leave tells whether the call is crash-safe (it ends in
 * rt_sigreturn, so the thread finishes it and restores itself without
 * jeattach). A non-zero return asks to leave: a crash-safe call is then let
 * go (the call returns -JA_ERR_LEFT); any other call is waited for. */
#define RCALL_TICK_US 250000
typedef int (*rcall_progress_fn)(void *arg, int64_t elapsed_us, int can_leave);
void rcall_set_progress(struct target *t, rcall_progress_fn fn, void *arg);

/* Asked every few milliseconds while a hold searches for a thread, when
 * nothing is held yet (between threads, while a timed wait is watched for
 * its start, between rounds): a non-zero answer ends the search at once
 * with -JA_ERR_INTERRUPTED, nothing held, nothing changed. A search can
 * last up to its deadline (a thread in a 5 s wait is watched for its
 * next start): a user's Ctrl-C then need not wait for it. */
typedef int (*rcall_quit_fn)(void *arg);
void rcall_set_quit(struct target *t, rcall_quit_fn fn, void *arg);

/* A hook that watches the system calls of the calls made while it is set
 * (act_dump drains the pipe jemalloc writes the profile into): every call
 * then runs under PTRACE_SYSCALL, crash-safe or not, and the hook is called
 * at each syscall stop of the callee with s, and every RCALL_DRAIN_TICK_US
 * while the thread runs with s NULL. At an entry stop it may change the
 * arguments (s->args, set args_changed) and ask for the call's result to
 * be s->result whatever the kernel answers (set_result): the exit stop
 * that follows gets it. It cannot end the call: a started call runs to
 * its end. */
#define RCALL_DRAIN_TICK_US 3000
struct rcall_sysstop {
	int entry;          /* 1 at the entry stop, 0 at the exit stop */
	long nr;            /* entry: the system call */
	uint64_t args[6];   /* entry: its arguments, changeable */
	long ret;           /* exit: what it returned */
	int args_changed;   /* entry: the hook changed args */
	int set_result;     /* entry: make the call return result */
	long result;
};
typedef void (*rcall_drain_fn)(void *arg, struct rcall_sysstop *s);
void rcall_set_drain(struct target *t, rcall_drain_fn fn, void *arg);

/* Hold one thread at a safe point (rcall_hold.c, rcall_safepoint.c). */
int rcall_hold(struct target *t);

/* After rcall_hold or rcall_hold_tid answered -ETIMEDOUT: why no thread
 * was taken, typed for a front end to act on (target's why has it in
 * words, for the message). *reason: the last thread's own (RCALL_MISS_UNSAFE),
 * valid until the next hold. */
enum rcall_miss {
	RCALL_MISS_NONE,        /* no hold timed out */
	RCALL_MISS_NOT_STOPPED, /* no thread stopped within its budget (D state, vfork) */
	RCALL_MISS_UNSAFE,      /* stopped, never at a safe point: *reason says where */
};
enum rcall_miss rcall_hold_miss(const struct target *t, const char **reason);

/* Hold thread tid (and no other) at a safe point, trying until deadline
 * (rcall_each.c): the per-thread pass. Errors as rcall_hold's, and
 * -JA_ERR_NOT_THREAD when tid is no longer a thread of the target. */
int rcall_hold_tid(struct target *t, pid_t tid, core_usec_t deadline);

/* Stop thread tid, read its thread pointer (where glibc's descriptor and
 * jemalloc's tsd are found) and let it go at once (rcall_peek.c):
 * nothing injected, nothing changed, no safe point needed. A thread in a
 * timed wait is watched until its wait begins, at most until deadline; one
 * waiting on a socket is not stopped. 0 read, 1 not now (gone, taking a
 * signal, slow to stop, in such a wait),
 * -EBUSY while a thread is held, other <0 errors. */
int rcall_peek(struct target *t, pid_t tid, core_usec_t deadline, uint64_t *tp);
/* The held thread's thread pointer, as found. Layers above see no register. */
int rcall_held_tp(const struct target *t, uint64_t *tp);

/* Call fn(args...) in the held thread; *ret gets its return value. An
 * injected call that faults returns -JA_ERR_FAULT, or -JA_ERR_SECCOMP for
 * SIGSYS (nothing is delivered to the target; its reason (target_last_reason) names the signal and
 * address); one that was left
 * running at the progress hook's request returns -JA_ERR_LEFT, and so does
 * every call after it in the same hold. */
int rcall(struct target *t, uint64_t fn, const uint64_t *args, int nargs, uint64_t *ret);
/* Make system call nr in the held thread; *ret gets the raw result (-errno
 * on failure, as the kernel returns it). No libc involved, errno untouched. */
int rcall_syscall(struct target *t, long nr, const uint64_t *args, int nargs, long *ret);

/* Scratch memory in a mapping made in the target for the hold and
 * unmapped at rcall_release (rcall_scratch.c); never the thread's stack. */
int rcall_push(struct target *t, const void *data, size_t len, uint64_t *addr);
int rcall_push_string(struct target *t, const char *s, uint64_t *addr);
/* The holds that follow this one soon (the per-thread pass: one short
 * hold per thread, back to back; --every and --top at short intervals) use
 * one scratch mapping: while on, a release leaves it in the target and the
 * next hold takes it over (three calls fewer each: mmap, madvise, munmap).
 * Turn it off before the last hold's release, which then removes it, or
 * call rcall_scratch_drop after (rcall_free does). A jeattach killed
 * meanwhile leaves it, labelled, until the next attach removes it
 * (rcall_label.c). Kept across a wait only when the wait is at most
 * RCALL_KEEP_ACROSS_US: its touched pages (tens of KiB) are the target's
 * memory meanwhile, worth it only for holds that come often. */
#define RCALL_KEEP_ACROSS_US 2000000
enum { RCALL_KEEP_NEXT = 1, RCALL_KEEP_ACROSS = 2 };
void rcall_keep_scratch(struct target *t, int how);
/* Mappings killed jeattach runs had left, found at rcall_prepare: how
 * many, how many were removed (by the first release), how many were left
 * alone (their jeattach still runs, a call may still run on them, or made
 * from another pid namespace). */
void rcall_scratch_leftovers(const struct target *t, int *found, int *removed, int *left);
/* A mapping left by a release with keep on and no hold after: hold a
 * thread to remove it (0), or -errno / -ETIMEDOUT if none could be held
 * (the mapping stays; *addr says where, for the message). 0 when none is
 * left. */
int rcall_scratch_drop(struct target *t, uint64_t *addr);
/* Forget all pushes (between calls); the mapping goes at release anyway. */
void rcall_scratch_reset(struct target *t);
/* The target's memory, for what calls leave there. */
/* The id the target's memory is reached through (the held thread while
 * one is held). */
pid_t rcall_mem_pid(const struct target *t);
int rcall_read(struct target *t, uint64_t addr, void *buf, size_t len);
int rcall_write(struct target *t, uint64_t addr, const void *buf, size_t len);
int rcall_read_string(struct target *t, uint64_t addr, char *buf, size_t cap);

/* The held thread's id, or 0. */
pid_t rcall_held_tid(const struct target *t);
/* The first syscall number the target's seccomp filter trapped (SIGSYS)
 * during the last injected call, answered with -EPERM; 0 if none. */
int rcall_seccomp_denied(const struct target *t);
/* Are calls in this hold crash-safe (they end in rt_sigreturn, so the
 * thread restores itself even if jeattach dies), or do they return to the
 * trap address (a dead jeattach leaves the thread to fault there)? */
int rcall_crash_safe(const struct target *t);
/* Why this hold's calls are not crash-safe, in a few words, or NULL when
 * they are (or nothing is held): for the front end to say before them. */
const char *rcall_unsafe_why(const struct target *t);

/* What the held thread's seccomp filters answer to system call nr with args
 * (SECCOMP_RET_ALLOW when it has none), read with PTRACE_SECCOMP_GET_FILTER
 * once per hold and evaluated here, nothing run in the target. Errors:
 * -JA_ERR_SECCOMP_UNREADABLE (a filter is there and cannot be read: no
 * CAP_SYS_ADMIN, or a kernel without CONFIG_CHECKPOINT_RESTORE). */
int rcall_seccomp(struct target *t, long nr, const uint64_t args[6], uint32_t *ret);

/* Let go of threads that were interrupted but had not stopped within their
 * budget, now that they have (rcall_hold gives each thread a short budget
 * and moves on). Cheap (one waitpid each, WNOHANG): called at each release
 * and by the CLI during waits, so such a thread is not held up for longer
 * than its own uninterruptible wait and a tick. Returns how many are still
 * running seized. A jeattach that exits lets go of them anyway: the kernel
 * clears a pending interrupt when a tracer goes (__ptrace_unlink). */
int rcall_sweep(struct target *t);

/* Walk a stack copied earlier (the sampler's: registers r, len bytes of
 * stack that lay at stack_base), with the target's own unwind tables; memory
 * outside the copy is read from the target as it is now. Nothing needs to
 * be held. The frames' addresses into ips, at most max: how many. */
int rcall_unwind_copy(struct target *t, const arch_gpregs_t *r, uint64_t stack_base,
		      const void *stack, size_t len, uint64_t *ips, int max);

/* Restore the held thread exactly and let it go. Safe when nothing is held. */
int rcall_release(struct target *t);
void rcall_timing(const struct target *t, struct rcall_timing *out);
/* Release if needed, and free the context. Safe to call twice. */
void rcall_free(struct target *t);

#endif
