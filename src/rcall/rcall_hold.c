/* SPDX-License-Identifier: BSD-2-Clause */
/* rcall_hold / rcall_release: stop exactly one thread at a safe point,
 * remember everything about it, and later give it back exactly as found.
 * Only that thread is stopped: the others keep running, because a stopped
 * thread may hold a lock the injected call needs (memray had to drop
 * all-thread stopping for this reason). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "errors.h"
#include "rcall_internal.h"
#include "rcall_reads.h"
#include "sym_maps.h"
#include "sec_bpf.h"
#include "sym_maps.h"

#define MAX_THREADS 65536

static int save_thread(struct target *t, struct rcall_held *h)
{
	int e = rcall_held_gpregs(h, h->tid, &h->regs);
	if (e)
		return e;
	h->fplen = ARCH_FPSTATE_MAX;
	h->fpstate = malloc(h->fplen);
	if (!h->fpstate)
		return -ENOMEM;
	e = pt_get_fpstate(h->tid, h->fpstate, &h->fplen);
	if (e) {
		h->fplen = 0;
		return e;
	}
	/* A state the architecture cannot put in a signal frame (arm64: live
	 * SVE registers, which only a thread stopped in its own code has: a
	 * system call discards them): this hold's calls return to the trap.
	 * Known before the scratch area is chosen, which depends on it. */
	if (!arch_sigframe_possible(h->fpstate, h->fplen))
		h->no_sigreturn = 1;
	/* Nothing is changed yet: every call blocks all signals when it starts
	 * (run_until) and the mask comes back after it, so a jeattach that dies
	 * between calls leaves the thread's mask as it was. */
	e = pt_get_sigmask(h->tid, &h->sigmask);
	if (e)
		return e;
	h->mask_saved = 1;
	return rcall_scratch_begin(t, h);
}

/* mallctl may set errno (jemalloc's failure paths, its own syscalls); the
 * thread's errno is thread-local memory that must read as found. libc's
 * __errno_location() gives its address: one call, done first. */
static int save_errno(struct target *t, struct rcall_held *h)
{
	struct rcall_ctx *c = t->rc;
	uint64_t addr, tp = arch_thread_pointer(&h->regs);
	if (!c->errno_location)
		return 0;
	/* errno lives in libc's static TLS block, at the same distance from
	 * every thread's thread pointer (glibc lays static TLS out once for
	 * all threads: TLS variant II on x86_64, I on arm64): once two
	 * threads' lookups agree on that distance, later holds add it to
	 * their thread pointer instead of a call. */
	if (c->errno_off_state == 2 && tp) {
		addr = tp + (uint64_t)c->errno_off;
	} else {
		int e = rcall(t, c->errno_location, NULL, 0, &addr);
		if (e)
			return e;
		const int64_t off = (int64_t)(addr - tp);
		if (tp && c->errno_off_state == 0) {
			c->errno_off = off;
			c->errno_off_tid = h->tid;
			c->errno_off_state = 1;
		} else if (tp && c->errno_off_state == 1 && h->tid != c->errno_off_tid) {
			c->errno_off_state = off == c->errno_off ? 2 : -1;
		}
	}
	if (pt_read(h->tid, addr, &h->errno_val, sizeof(h->errno_val)))
		return 0; /* not readable: leave errno alone rather than guess */
	h->errno_addr = addr;
	return 0;
}

static void drop_hold(struct rcall_held *h)
{
	rcall_seccomp_free(h);
	free(h->fpstate);
	free(h);
}

/* The threads to try, leader first; with --tid only that one. *all: how
 * many threads the process has. */
static int hold_candidates(struct target *t, pid_t *tids, int *all)
{
	int n = *all = target_threads(t->pid, tids, MAX_THREADS);
	if (n <= 0)
		return n < 0 ? n : -ESRCH;
	/* A main thread that has ended (a zombie until the process exits)
	 * cannot be borrowed. */
	if (t->io_pid != t->pid) {
		int k = 0;
		for (int i = 0; i < n; i++)
			if (tids[i] != t->pid)
				tids[k++] = tids[i];
		n = k;
	}
	pid_t only = t->rc->only_tid;
	if (!only)
		return n;
	for (int i = 0; i < n; i++)
		if (tids[i] == only) {
			tids[0] = only;
			return 1;
		}
	target_reason(t, (struct ja_reason){ .kind = JA_WHY_NOT_THREAD, .tid = only });
	return -JA_ERR_NOT_THREAD;
}

static int is_straggler(const struct rcall_ctx *c, pid_t tid)
{
	for (size_t i = 0; i < c->nstragglers; i++)
		if (c->stragglers[i].tid == tid)
			return 1;
	return 0;
}

/* The process is stopped (SIGSTOP, a debugger): its other threads will not
 * run before it is continued, so one of them stopped inside the allocator
 * or the dynamic linker would hold its lock for as long as the call waits
 * for it, for ever. Each is looked at where it stopped (seized and
 * interrupted in its group stop, which it re-enters when let go). 1 all
 * clear, 0 one is not (its reason in why), <0 error. */
static int stopped_peers_safe(struct target *t, pid_t held, char *why, size_t wlen)
{
	pid_t *tids = malloc(sizeof(pid_t) * MAX_THREADS);
	if (!tids)
		return -ENOMEM;
	int n = target_threads(t->pid, tids, MAX_THREADS), clear = 1;
	for (int i = 0; i < n && clear == 1; i++) {
		struct rcall_held peer = { .tid = tids[i], .look_only = 1 };
		arch_gpregs_t r;
		if (tids[i] == held || (t->io_pid != t->pid && tids[i] == t->pid))
			continue;
		if (core_now_us() >= t->rc->deadline) {
			snprintf(why, wlen, "its %d threads could not all be looked at before the timeout",
				 n);
			clear = 0;
			break;
		}
		int e = rcall_stop_thread(t, tids[i], &peer);
		if (e == 1 && is_straggler(t->rc, tids[i])) {
			/* In an uninterruptible wait (a page fault inside
			 * jemalloc, say): not known to be clear. */
			snprintf(why, wlen, "thread %d did not stop to be looked at", (int)tids[i]);
			clear = 0;
			break;
		}
		if (e)
			continue; /* gone, or taking a signal: it runs */
		if (!pt_get_gpregs(tids[i], &r))
			clear = rcall_thread_is_safe(t, tids[i], &r, why, wlen);
		pt_detach(tids[i], 0);
	}
	free(tids);
	return clear;
}

/* Stopped on a system call instruction with no call known (arm64: a group
 * stop's own do_signal forgot the call before the stop, so neither the
 * registers nor /proc show it): the kernel may have rewound it for a
 * restart through the restart block, which only that do_signal still knows
 * and would set up when let go from this very stop. Borrowed, the call is
 * made again from the start (a sleep redone whole): such a thread is tried
 * last, as the restart-block ones are. */
static int at_unknown_restart(const struct rcall_held *h)
{
	char insn[ARCH_SYSCALL_INSN_LEN];
	return !arch_in_syscall(&h->regs) &&
	       pt_read(h->tid, arch_pc(&h->regs), insn, sizeof(insn)) == 0 &&
	       memcmp(insn, ARCH_SYSCALL_INSN, sizeof(insn)) == 0;
}

/* A thread let go at its first stop, nothing run: a wait whose EINTR that
 * stop undid by rewinding it (its timeout in memory, rcall_wait.c) is made
 * again with what is left of it, as release would, not whole. A
 * restart-block sleep needs nothing: its block is intact. */
static void let_go(struct target *t, struct rcall_held *h)
{
	if (h->reissue.nr && !rcall_held_gpregs(h, h->tid, &h->regs) && rcall_remake(t, h) == 0) {
		arch_gpregs_t back = h->regs;
		arch_prepare_release(&back); /* the registers as the kernel keeps them */
		pt_set_gpregs(h->tid, &back);
	}
	pt_detach(h->tid, 0);
	drop_hold(h);
}

/* Stop tid and keep it if it is at a safe point: 0 held (t->rc->hold set),
 * 1 not usable now (let go; reason says why), <0 an error that ends the
 * search. round: 0 first, 1 and later take sleepers with a timeout too.
 * alone: tid is the process's only thread. */
static int try_thread(struct target *t, pid_t tid, int round, int alone, int rank, int n,
		      char *reason, size_t rlen)
{
	struct rcall_ctx *c = t->rc;
	const int take_restartblock = round >= 1;
	if (is_straggler(c, tid))
		return 1; /* seized already, still slow to stop */
	/* Not even seized. */
	if (rcall_has_children(t, tid, alone, reason, rlen))
		return 1;
	/* A long call (a dump) does not go to a running thread while an
	 * idle one may still be had: the service's serving thread would
	 * stop for the whole call (rcall_rank.c). */
	const enum rcall_cost cost = c->only_tid ? rcall_wait_cost(t, tid) : rcall_ranked_cost(t, tid);
	if (c->long_call && round == 0 && !c->only_tid && !alone && cost == RCALL_COST_RUNNING) {
		snprintf(reason, rlen, "thread %d is running; a long call tries idle threads first",
			 (int)tid);
		return 1;
	}
	/* Before the watch of a timed wait: once that says the wait has just
	 * begun, the interrupt follows at once (what the wait is made again
	 * for is counted from there). */
	char comm[16];
	rcall_comm_read(t, tid, comm);
	rcall_prewalk(t, tid);
	core_usec_t began;
	if (rcall_wait_check(t, tid, take_restartblock, &began, reason, rlen))
		return 1;
	struct rcall_held *h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->tid = tid;
	h->wait_began = began;
	h->cost = cost;
	h->rank = rank;
	h->candidates = n;
	memcpy(h->comm, comm, sizeof(comm));
	int e = rcall_stop_thread(t, tid, h);
	if (e) {
		drop_hold(h);
		return e == -ETIMEDOUT ? 1 : e;
	}
	/* Again once stopped: seized between two forks, the thread may have
	 * forked before its stop (a stopped thread forks no more). A child of
	 * a held thread that exits wakes another thread with EINTR (victim_fork:
	 * its watchdog's 1 s sigtimedwait ended after 3 ms, once in 400 holds). */
	if (rcall_has_children(t, tid, alone, reason, rlen)) {
		let_go(t, h);
		return 1;
	}
	int safe = 0;
	const char *blocker;
	if (rcall_held_gpregs(h, h->tid, &h->regs))
		snprintf(reason, rlen, "thread %d: its registers cannot be read", (int)h->tid);
	else if (arch_is_compat(&h->regs))
		safe = -JA_ERR_CLASS32;
	else if ((blocker = arch_call_blocker(&h->regs)))
		snprintf(reason, rlen, "thread %d %s", (int)h->tid, blocker);
	else
		safe = rcall_thread_is_safe(t, h->tid, &h->regs, reason, rlen);
	/* A sleep the kernel restarts through the restart block is re-made
	 * at release instead (rcall_wait.c), its calls crash-safe; only one
	 * that cannot be (restart_syscall itself, a CPU-time clock, a
	 * timeout unknown) keeps the block and the return trap. */
	h->restart_block = rcall_wait_plan(t, h);
	/* The first round passes over what a later one, or --tid, would take. */
	const int first_round = !take_restartblock && !c->only_tid;
	if (safe == 1 && h->restart_block && first_round &&
	    c->ret_restorer) {
		snprintf(reason, rlen, "thread %d sleeps with a timeout; tried later", (int)h->tid);
		safe = 0;
	}
	if (safe == 1 && first_round && at_unknown_restart(h)) {
		snprintf(reason, rlen, "thread %d is stopped on a call the kernel may restart; tried later",
			 (int)h->tid);
		safe = 0;
	}
	if (safe != 1) {
		let_go(t, h);
		/* A 32-bit thread: nothing to do in this process at all. */
		return safe == -JA_ERR_CLASS32 ? safe : 1;
	}
	c->hold = h;
	/* Every crash-safe call ends in rt_sigreturn: where the thread's
	 * seccomp filter would kill it (or cannot be read), calls go through
	 * the return trap and single steps, which make no system call of
	 * their own. Read now, before the first call (save_errno's). */
	uint32_t verdict;
	static const uint64_t none[6];
	h->no_sigreturn = rcall_seccomp(t, ARCH_NR_RT_SIGRETURN, none, &verdict) ||
			  sec_bpf_kills(verdict);
	if (h->group_stop && (e = stopped_peers_safe(t, h->tid, reason, rlen)) != 1) {
		pt_detach(h->tid, 0);
		c->hold = NULL;
		drop_hold(h);
		if (e < 0)
			return e;
		target_reason_text(t, JA_WHY_STOPPED_PEER, "%s", reason);
		return -JA_ERR_STOPPED_LOCK;
	}
	int seccomp_trap = h->no_sigreturn;
	e = save_thread(t, h);
	/* Its FP state sends this hold's calls to the trap (save_thread),
	 * which is not crash-safe: in the first round such a thread is let
	 * go, as the restart-block sleepers are, so that one in a system call
	 * is borrowed crash-safe where there is one. */
	if (!e && h->no_sigreturn && !seccomp_trap && first_round && c->ret_restorer) {
		snprintf(reason, rlen, "thread %d has FP state no signal frame carries; tried later",
			 (int)h->tid);
		rcall_release(t);
		return 1;
	}
	/* A stack of unknown room takes no frame (rcall_scratch.c): passed
	 * over in the first round; later its mapping is made by single steps
	 * and errno is looked up from the mapping. */
	if (!e && !rcall_scratch_stack_known(t, h)) {
		if (first_round) {
			snprintf(reason, rlen,
				 "thread %d runs on a stack of unknown size; tried later", (int)h->tid);
			rcall_release(t);
			return 1;
		}
		h->stack_unknown = 1;
	}
	if (!e && !h->stack_unknown)
		e = save_errno(t, h);
	if (!e)
		e = rcall_scratch_map(t, h);
	if (!e && h->stack_unknown)
		e = save_errno(t, h);
	if (!e)
		return 0;
	if (e == -JA_ERR_NO_SCRATCH) {
		/* No mapping (the process's limits or filter) and this
		 * thread's stack cannot take the calls either: another
		 * thread's may (rcall_hold ends the search after a round). */
		c->no_scratch_why = *target_last_reason(t);
		c->no_scratch_n++;
		snprintf(reason, rlen, "thread %d: no room for the calls", (int)h->tid);
		rcall_release(t);
		return 1;
	}
	/* Its stack is unreadable or its state could not be saved: put back
	 * what was changed and try another. */
	snprintf(reason, rlen, "thread %d: cannot save its state (%s)", (int)h->tid, ja_err_text(-e));
	rcall_release(t);
	return 1;
}

int rcall_hold(struct target *t)
{
	struct rcall_ctx *c = t->rc;
	if (!c)
		return -EINVAL;
	if (c->hold)
		return 0;
	c->miss = RCALL_MISS_NONE;
	rcall_late_reset(c);
	rcall_sweep(t);
	/* A kept scratch mapping belongs to the program that was there: after
	 * an execve the new one's memory may lie exactly there (ASLR off, the
	 * same binary), and is never taken for it. */
	char fate[300];
	if ((c->kept_addr || c->nstale) && target_fate(t, fate, sizeof(fate)) == TARGET_EXECED)
		c->kept_addr = 0, c->nstale = 0;
	char frozen[300];
	if (target_frozen(t, frozen, sizeof(frozen))) {
		target_reason_text(t, JA_WHY_FROZEN, "%s", frozen);
		return -JA_ERR_FROZEN;
	}
	pid_t *tids = malloc(sizeof(pid_t) * MAX_THREADS);
	if (!tids)
		return -ENOMEM;
	char reason[200] = "";
	long backoff_ns = 1000000;
	/* First round: pass over threads whose interrupted syscall restarts
	 * through a restart block jeattach cannot re-make (restart_syscall
	 * itself, a CPU-time clock: -ERESTART_RESTARTBLOCK). A crash-safe call
	 * ends in rt_sigreturn, which resets that block (rt_sigreturn sets
	 * restart_block.fn = do_no_restart_syscall), so such a thread can only
	 * be borrowed through the return trap, which is not crash-safe.
	 * nanosleep, poll and timed futex waits are re-made at release
	 * instead (rcall_wait.c), and borrowed crash-safe as any thread. */
	int round = 0, e = 0;
	c->no_scratch_why.kind = JA_WHY_NONE;
	c->no_scratch_n = 0;
	for (;;) {
		/* A thread passed over as slow to stop (a loaded machine) may
		 * have stopped since: let it go, so that it can be tried again. */
		rcall_sweep(t);
		int all, n = hold_candidates(t, tids, &all);
		if (n < 0) {
			e = n;
			break;
		}
		e = 1;
		int others = 0; /* passed over for another reason than room */
		/* Least costly to the service first (rcall_rank.c). */
		if (!c->only_tid && (n = rcall_rank(t, tids, n)) < 0) {
			e = n;
			break;
		}
		/* Read now, not during a stop: 50 us of each hold of an idle
		 * thread of victim_dyn was this read (bench/hold_ab.py). */
		sym_maps_free(&c->stack_maps);
		if (rcall_reads.maps(t->io_pid, &c->stack_maps))
			c->stack_maps = (struct sym_maps){ 0 };
		for (int i = 0; i < n && core_now_us() < c->deadline; i++) {
			const unsigned no_room = c->no_scratch_n;
			if (rcall_quit_asked(t)) {
				e = -JA_ERR_INTERRUPTED;
				break;
			}
			if ((e = try_thread(t, tids[i], round, all == 1, i + 1, n, reason,
					    sizeof(reason))) <= 0)
				break;
			others += c->no_scratch_n == no_room;
		}
		if (e <= 0 || core_now_us() >= c->deadline)
			break;
		/* Every thread has been tried, and every one was safe but had
		 * no room for the calls: the process's limits will not change
		 * by waiting. One only momentarily unsafe (in the allocator,
		 * slow to stop) may still have room: the search goes on. */
		if (round >= 1 && c->no_scratch_why.kind && !others) {
			target_reason(t, c->no_scratch_why);
			e = -JA_ERR_NO_SCRATCH;
			break;
		}
		if (round++ < 1)
			continue;
		/* Every thread was inside the allocator, the dynamic linker or
		 * a signal handler: give them time to leave, more each round
		 * (1 ms doubling to 64 ms), so that a thread that holds a lock
		 * is not slowed down by being stopped a thousand times a
		 * second. */
		struct timespec ts = { 0, backoff_ns };
		nanosleep(&ts, NULL);
		if (rcall_quit_asked(t)) {
			e = -JA_ERR_INTERRUPTED;
			break;
		}
		if (backoff_ns < 64000000)
			backoff_ns *= 2;
	}
	free(tids);
	sym_maps_free(&c->stack_maps);
	if (e <= 0)
		return e;
	/* Some thread had no room, the others were never safe: the limit
	 * is what can be acted on. */
	if (c->no_scratch_why.kind) {
		target_reason(t, c->no_scratch_why);
		return -JA_ERR_NO_SCRATCH;
	}
	struct ja_reason late;
	if (rcall_late_reason(c, &late))
		target_reason(t, late);
	else
		target_reason_text(t, JA_WHY_NO_SAFE_POINT, "%s", reason);
	c->miss = reason[0] ? RCALL_MISS_UNSAFE : RCALL_MISS_NOT_STOPPED;
	snprintf(c->miss_reason, sizeof(c->miss_reason), "%s", reason);
	return -ETIMEDOUT;
}

enum rcall_miss rcall_hold_miss(const struct target *t, const char **reason)
{
	const struct rcall_ctx *c = t->rc;
	*reason = c ? c->miss_reason : "";
	return c ? c->miss : RCALL_MISS_NONE;
}

/* The hold is over: count it for --json's timings, and forget it. */
static void end_hold(struct rcall_ctx *c, struct rcall_held *h, int crash_safe)
{
	int64_t held = core_now_us() - h->since;
	if (held > c->timing.us_max)
		c->timing.us_max = held;
	c->timing.us_total += held;
	c->timing.us_last = held;
	c->timing.holds++;
	/* A stack of unknown room had its mapping made by single steps
	 * (rcall_scratch.c): not crash-safe for those. */
	c->timing.crash_safe_holds += crash_safe && !h->stack_unknown;
	c->hold = NULL;
	drop_hold(h);
}

/* Undo in reverse order of save_thread; a failing step does not stop the
 * others. Registers go back with their original orig_rax and -ERESTART* rax,
 * so the kernel restarts an interrupted syscall as it would have anyway
 * (arch_do_signal_or_restart runs when the thread resumes from this stop). */
int rcall_release(struct target *t)
{
	struct rcall_ctx *c = t->rc;
	struct rcall_held *h = c ? c->hold : NULL;
	if (!h) {
		rcall_sweep(t);
		return 0;
	}
	int first = 0, e;
	if (h->left) {
		/* Let go during a crash-safe call: the thread restores itself
		 * when the call ends; nothing here is ours to write any more. */
		end_hold(c, h, 1);
		return 0;
	}
	/* Decided while calls can still be made (it may ask for the handler's
	 * flags), written with the registers below. */
	int eintr = rcall_signal_ends_call(t, h);
	/* The mapping goes first: its munmap is a call, which may set errno. */
	if ((e = rcall_scratch_close(t, h)) && !first)
		first = e;
	if (h->errno_addr && (e = pt_write(h->tid, h->errno_addr, &h->errno_val,
					   sizeof(h->errno_val))) && !first)
		first = e;
	/* After crash-safe calls the kernel has already restored registers, FP
	 * state and mask from their signal frames (and the registers carry an
	 * interrupted syscall rewound to re-execute, as rt_sigreturn leaves
	 * no restart to do): writing the saved set again here would bring back
	 * a -ERESTART* value that nothing would restart any more. */
	/* Only the interrupted call may still change: a signal handled at
	 * once ends it with EINTR, as unheld; a rewound wait's register
	 * timeout becomes what is left of it now. */
	/* A call planned to be re-made (rcall_wait.c) is, as an interrupted
	 * call the kernel restarts with what is left of its timeout. */
	int reissue = 0;
	if (eintr) {
		h->regs = h->eintr_regs;
	} else if (h->reissue.nr && (reissue = rcall_remake(t, h)) == 1) {
		end_hold(c, h, rcall_crash_safe(t));
		rcall_sweep(t);
		return first;
	} else if (h->wait_ends) {
		rcall_wait_shorten(&h->regs, h->wait_ends);
	}
	reissue = h->reissue.nr && reissue == 0 && !eintr;
	if (!h->dirty && (eintr || h->wait_ends || reissue)) {
		arch_gpregs_t back = h->regs;
		arch_prepare_release(&back); /* the registers as the kernel keeps them */
		if ((e = pt_set_gpregs(h->tid, &back)) && !first)
			first = e;
	}
	if (h->dirty) {
		arch_gpregs_t back = h->regs;
		arch_prepare_release(&back);
		if (h->fpstate && h->fplen &&
		    (e = pt_set_fpstate(h->tid, h->fpstate, h->fplen)) && !first)
			first = e;
		if ((e = pt_set_gpregs(h->tid, &back)) && !first)
			first = e;
		if (h->mask_saved && (e = pt_set_sigmask(h->tid, h->sigmask)) && !first)
			first = e;
	}
	/* Detaching from a group-stop leaves the thread in it (the kernel
	 * re-arms JOBCTL_STOP_PENDING in __ptrace_unlink while the group stop
	 * is in effect): a stopped process stays stopped. */
	if ((e = pt_detach(h->tid, h->release_sig)) && !first)
		first = e;
	/* A hold let go before any call (a live-SVE thread passed over in the
	 * first round) only stopped its thread: nothing a dying jeattach
	 * could have left half done. */
	end_hold(c, h, rcall_crash_safe(t) || !h->ran);
	rcall_sweep(t);
	return first;
}
