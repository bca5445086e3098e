/* SPDX-License-Identifier: BSD-2-Clause */
/* The remote-call context: private to the rcall_*.c files. Everything the
 * mechanism of borrowing a thread needs that is not a fact about the target
 * itself (those stay in struct target): the code it returns through, the
 * unwinder it checks safe points with, the thread it holds, how long it held
 * threads. */
#ifndef JEATTACH_RCALL_INTERNAL_H
#define JEATTACH_RCALL_INTERNAL_H

#include <linux/filter.h>
#include "target_struct.h"
#include "arch.h"
#include "pt.h"
#include "rcall.h"

/* Room for pushed objects: mallctl names, out-parameters and paths, and
 * for crash-safe calls a signal frame with the full XSAVE area (about
 * 1 KiB with AVX, 3 KiB with AVX-512, 11 KiB with AMX). */
#define RCALL_SCRATCH_SIZE (24 * 1024)

/* A thread's scheduling counters (/proc/PID/task/TID/schedstat and
 * status): valid 0 where the kernel does not give them. */
struct rcall_sched {
	int valid;
	unsigned long long arrivals; /* times put on a CPU (schedstat's pcount) */
	unsigned long long sleeps;   /* voluntary_ctxt_switches */
	unsigned long long preempts; /* nonvoluntary_ctxt_switches */
};

/* A call re-made at release (rcall_wait.c): the thread's own call, its
 * timeout cut to what is left of it and put where the kernel reads it
 * (a register, or a copy below the red zone), entered as an interrupted
 * call the kernel restarts. */
enum rcall_reissue_how {
	RCALL_REISSUE_AS_IS = 1, /* an absolute timeout, or none: re-made unchanged */
	RCALL_REISSUE_MS,        /* milliseconds in argument arg (poll) */
	RCALL_REISSUE_TIMESPEC,  /* a struct timespec pointed at by argument arg */
	RCALL_REISSUE_URING,     /* io_uring_enter's io_uring_getevents_arg (argument arg) */
};
#define URING_ARG_SIZE 24 /* struct io_uring_getevents_arg: uring[3] */
struct rcall_reissue {
	long nr;                 /* 0: none */
	enum rcall_reissue_how how;
	int arg;
	core_usec_t ends;          /* CLOCK_MONOTONIC deadline (core_now_us) */
	uint64_t uring[3];       /* RCALL_REISSUE_URING: the program's struct, as read */
};

/* One held thread, as found and as changed. */
struct rcall_held {
	pid_t tid;
	enum rcall_cost cost;   /* what it was doing when chosen (rcall_rank.c) */
	int rank, candidates;   /* its place in that ranking, of how many */
	char comm[16];          /* its name, read before its stop */
	core_usec_t since;        /* when it was interrupted (its stop began) */
	arch_gpregs_t regs;     /* as found */
	unsigned char *fpstate; /* as found, fplen bytes */
	size_t fplen;
	uint64_t sigmask;       /* as found */
	int mask_saved;
	uint64_t errno_addr;    /* the thread's errno, 0 if unknown */
	int errno_val;          /* as found */
	int group_stop;         /* the process was (or became) stopped by a signal */
	int look_only;          /* stopped to be looked at only: its state is not touched */
	/* Scratch (rcall_scratch.c): pushes go in [scratch_lo, scratch_hi),
	 * the next one below scratch_cur; calls run their stack below that. */
	uint64_t scratch_lo, scratch_hi, scratch_cur;
	uint64_t map_addr;      /* the scratch mapping made in the target, or 0 */
	int map_grows;          /* it was made MAP_GROWSDOWN (RLIMIT_DATA) */
	int scratch_on_stack;   /* scratch is the region below the red zone */
	/* No room is known below its red zone for a signal frame (a coroutine's
	 * stack, a stack of its own making): its system calls before the
	 * mapping exists, and the munmap, are single steps (rcall_scratch.c). */
	int stack_unknown;
	int dirty;              /* registers, FP state or mask differ from what was found */
	/* The crash-safe call running: sp at its restorer, to end it there
	 * (its own frame puts the thread back), or 0. */
	uint64_t restorer_sp;
	int ran;                /* a call has run: until then a hold is crash-safe whatever its state */
	int restart_block;      /* its syscall restarts through the restart block */
	/* The call it was blocked in just before the interrupt, where the stop
	 * no longer shows it (ARCH_SYSCALL_FORGOTTEN_AT_STOP; rcall_held_gpregs). */
	struct arch_blocked_call blocked;
	/* Seen blocked in no call then (running): its scheduling counters at
	 * that moment (rcall_wait.c tells by them whether it had been woken). */
	struct rcall_sched before;
	/* Its wait began no later than this (rcall_wait.c): 0 unknown, <0 the
	 * instant of the interrupt (taken by rcall_stop_thread). */
	core_usec_t wait_began;
	core_usec_t wait_ends;    /* its rewound register timeout ends then, or 0 */
	/* Its call, re-made at release so that it ends when it would have
	 * (rcall_wait.c): nr 0 if not. */
	struct rcall_reissue reissue;
	int release_sig;        /* a signal its last stop was delivering: given back at release */
	/* What a signal handled at its release does to its interrupted call
	 * (rcall_signal.c), and its registers returning EINTR from it. */
	enum { RCALL_SIG_RESTART, RCALL_SIG_EINTR, RCALL_SIG_EINTR_UNLESS_RESTART } on_signal;
	arch_gpregs_t eintr_regs;
	int seccomp_nr;         /* first syscall the target's seccomp trapped, answered -EPERM */
	int left;               /* let go while a crash-safe call ran: it is the thread's now */
	int frozen;             /* left because the process was frozen meanwhile */
	int no_sigreturn;       /* its seccomp filter would kill rt_sigreturn, or may */
	/* Its seccomp filters, read once (rcall_seccomp.c): 0 not yet, 1 read
	 * (nfilters may be 0), <0 why they cannot be read. */
	int sec_state;
	int sec_mode;           /* /proc status Seccomp: 0 none, 1 strict, 2 filter */
	struct sock_filter **filters;
	size_t *filter_len, nfilters;
};

/* A thread interrupted that has not stopped yet, and what its first stop
 * needs to undo the interrupt's EINTR: when its wait began, and the call it
 * was blocked in (where the stop no longer shows it: arm64). */
struct rcall_straggler {
	pid_t tid;
	core_usec_t wait_began;
	struct arch_blocked_call blocked;
	struct rcall_sched before;
};

/* The threads one hold's search watched in a timed wait without seeing
 * the next one begin (rcall_late.c): the first RCALL_LATE_MAX, how many,
 * the longest wait. */
#define RCALL_LATE_MAX 6
struct rcall_late {
	pid_t tids[RCALL_LATE_MAX];
	int n;
	int64_t longest_us;
};

/* The label at the top of every scratch mapping (rcall_label.c). */
#define RCALL_LABEL_LEN 64
enum { RCALL_LABEL_IN_HOLD = 1, RCALL_LABEL_KEPT = 2 };
struct rcall_label {
	char magic[8];        /* "jeattach" */
	uint64_t token;       /* drawn by the owner; a new one at each keep */
	uint64_t owner_start; /* the owner's start time (/proc stat field 22) */
	uint64_t owner_pidns; /* the inode of the owner's pid namespace */
	uint64_t owner_timens; /* and of its time namespace (start times are per one) */
	int32_t owner_pid;
	int32_t state;        /* RCALL_LABEL_IN_HOLD: calls may run on it */
	int32_t held_tid;     /* whose calls, while RCALL_LABEL_IN_HOLD */
	int32_t grows;        /* made MAP_GROWSDOWN: may begin lower */
};
struct rcall_label_state {
	uint64_t token;
	int32_t state, held_tid, grows;
};
/* Mappings found labelled by a jeattach that is gone: [lo, end). */
#define RCALL_STALE_MAX 64
struct rcall_stale {
	uint64_t lo, end;
	struct rcall_label label; /* as read at attach: unmapped only if still so */
};
/* At most this many labels read, and threads stopped to see whether a
 * call still runs on their mapping, per attach: forged labels by the
 * thousand do not make an attach long. */
#define RCALL_LABELS_MAX 256
#define RCALL_LABEL_PEEKS_MAX 8
/* How long a stop for a labelled mapping's thread may take. */
#define RCALL_LABEL_PEEK_US 200000

struct rcall_ctx {
	uint64_t syscall_insn;   /* a `syscall` instruction in the target's text */
	uint64_t errno_location; /* libc's __errno_location, 0 if none */
	/* Crash-safe calls (rcall.c); ret_restorer 0 if not possible. */
	uint64_t ret_restorer;   /* libc's rt_sigreturn restorer (__restore_rt) */
	uint64_t ret_gadget;     /* mov %rax,(%rbx); pop*; ret */
	int ret_gadget_pops;
	uint64_t syscall_fn;     /* libc's syscall(), for crash-safe syscalls */
	void *unwind_as;         /* libunwind address space, made once */
	void *unwind_tables;     /* unwind tables found so far (rcall_safepoint.c) */
	void *unwind_walk;       /* one walk's state and page cache, reused */
	struct rcall_held *hold; /* non-NULL while a thread is held */
	/* Threads seized and interrupted that did not stop within their budget
	 * (a vfork parent, D state): let go at their first stop (rcall_sweep). */
	struct rcall_straggler *stragglers;
	size_t nstragglers, stragglers_cap;
	pid_t only_tid;          /* borrow this thread only (--tid) */
	int long_call;           /* the holds run a long call (rcall_set_long_call) */
	/* errno's distance from a thread pointer (rcall_hold.c save_errno):
	 * state 0 unknown, 1 seen on errno_off_tid, 2 read from
	 * __errno_location's code (rcall_prepare.c) or agreed by a second
	 * thread (used without a call), -1 they disagreed (always a call). */
	int64_t errno_off;
	pid_t errno_off_tid;
	int errno_off_state;
	/* Why the last hold that timed out found none (rcall_hold_miss). */
	enum rcall_miss miss;
	char miss_reason[200];
	/* Why the last thread safe to hold had no scratch memory (no mapping,
	 * no guarded stack with room), or "": rcall_hold's verdict. */
	struct ja_reason no_scratch_why;
	/* The last ranking of the candidates (rcall_rank.c). */
	struct rcall_candidate *ranked;
	int nranked, ranked_cap;
	unsigned no_scratch_n;    /* threads refused for it in this hold's search */
	/* The process's mappings, read at each round of a hold's search
	 * before any thread is stopped: where a thread's stack is looked up
	 * (rcall_scratch_stack_known), outside the stop. */
	struct sym_maps stack_maps;
	/* Holds that follow one another at once (rcall_keep_scratch) share
	 * one scratch mapping: kept_addr is it between them (0: none), found
	 * again in stack_maps before it is used (rcall_scratch.c). */
	int keep_scratch;
	uint64_t kept_addr;
	int kept_grows;
	pid_t kept_tid; /* the thread whose release kept it; 0 any */
	uint64_t kept_token; /* in its label (rcall_label.c), checked before it is taken */
	int kept_foreign;    /* a killed jeattach's, adopted (rcall_scratch_adopt) */
	struct rcall_label kept_label; /* its label as read then: taken only if still so */
	/* The lock that makes one attach at a time look for, take over and
	 * remove what killed runs left in this process (rcall_label.c), held
	 * from the look to the first release: a socket bound to its name; -1
	 * none. */
	int claim_fd;
	/* Other mappings killed jeattach runs left (rcall_label.c): unmapped
	 * by the first hold's release; how many were found, how many are
	 * left alone (their owner alive, a call maybe on them). */
	struct rcall_stale stale[RCALL_STALE_MAX];
	int nstale, nstale_found, nstale_left, nstale_removed;
	int labels_read, label_peeks;
	core_usec_t deadline;      /* CLOCK_MONOTONIC instant; bounds finding a thread */
	rcall_progress_fn progress;
	void *progress_arg;
	rcall_quit_fn quit;      /* rcall_set_quit */
	void *quit_arg;
	rcall_drain_fn drain;    /* rcall_set_drain */
	void *drain_arg;
	struct rcall_timing timing;
	struct rcall_late late; /* rcall_late.c */
};

/* The quit hook's answer (rcall_set_quit): 1 to end the search. Here,
 * not in a file of its own, so that every file of the search may ask. */
static inline int rcall_quit_asked(const struct target *t)
{
	const struct rcall_ctx *c = t->rc;
	return c && c->quit && c->quit(c->quit_arg);
}

/* Safe point (rcall_safepoint.c): 1 if tid, stopped with registers r, holds
 * no allocator or linker lock and runs no signal handler; 0 with a reason in
 * why if not; <0 on error. Whether the thread itself can run a call
 * (arch_call_blocker) is the borrower's question: a stopped process's
 * other threads (stopped_peers_safe) only need to hold nothing. */
int rcall_thread_is_safe(struct target *t, pid_t tid, const arch_gpregs_t *r, char *why,
			 size_t whylen);
/* What the walks need that no thread's state changes (the address space,
 * the walk's cache, the usual objects' unwind tables), made before any
 * thread is stopped; rcall_thread_is_safe makes what is missing. */
int rcall_unwind_prepare(struct target *t);
/* Before tid is stopped, if it is blocked in a system call: walk what its
 * stop will show, to have the unwind tables' pages read outside the stop
 * (rcall_safepoint.c). Nothing is judged. */
void rcall_prewalk(struct target *t, pid_t tid);
void rcall_unwind_free(struct rcall_ctx *c);
/* Seize and interrupt tid; wait for its first stop (rcall_stop.c). 0
 * held, 1 not usable (gone, about to take a signal, or slow to stop;
 * already let go, or to be let go by rcall_sweep), <0 error. */
int rcall_stop_thread(struct target *t, pid_t tid, struct rcall_held *h);
/* May tid be stopped as far as its child processes go? 1 not (why in
 * reason), 0 yes (rcall_stop.c). alone: the process's only thread. */
int rcall_has_children(struct target *t, pid_t tid, int alone, char *reason, size_t rlen);
/* A held thread's registers, as the generic code reasons about them
 * (arch_at_interrupt_stop with the call it was blocked in). */
int rcall_held_gpregs(const struct rcall_held *h, pid_t tid, arch_gpregs_t *r);
/* Sweep until no straggler is left but those in an uninterruptible wait,
 * for at most budget_us. */
void rcall_sweep_wait(struct target *t, core_usec_t budget_us);
/* tid was interrupted and has not stopped yet: let go at its first stop
 * (rcall_sweep). h: the hold that stopped it (its wait and blocked call
 * are kept), or NULL when nothing of them applies (a call was running). */
int rcall_add_straggler(struct target *t, pid_t tid, const struct rcall_held *h);
/* rcall_syscall, made only if the held thread's seccomp filters let it
 * through (rcall_seccomp.c); -JA_ERR_SECCOMP otherwise, nothing made. */
int rcall_syscall_allowed(struct target *t, long nr, const uint64_t *args, int nargs, long *ret);
/* At h's first stop, with its registers r there (the call and its restart
 * code; eintr_undone: the interrupt's EINTR was rewound): what a signal
 * handled at release must do to the call (rcall_signal.c). */
void rcall_signal_note(struct rcall_held *h, const arch_gpregs_t *r, int eintr_undone);
/* The first signal get_signal will deliver to a handler once thread tid
 * runs under mask blocked: private pending before shared; 0 none (or one
 * that ends the process first, where nothing matters any more). */
int rcall_signal_handled_next(pid_t pid, pid_t tid, uint64_t blocked);
/* At release, while still held: does a signal the thread will handle at
 * once end its call with EINTR (then h->eintr_regs go back)? 1 yes
 * (rcall_signal_ends.c). */
int rcall_signal_ends_call(struct target *t, struct rcall_held *h);
/* Scratch memory for h's calls (rcall_scratch.c): begin once the
 * thread's registers and mask are saved (below its red zone, as a signal
 * frame: the errno lookup and the mmap run there); map once errno is known
 * (-JA_ERR_NO_SCRATCH where no mapping can be made: calls never run on the
 * thread's own stack beyond that); close before the thread is put back. */
int rcall_scratch_begin(struct target *t, struct rcall_held *h);
int rcall_scratch_map(struct target *t, struct rcall_held *h);
int rcall_scratch_close(struct target *t, struct rcall_held *h);
/* May calls run below sp (the red zone already left) where no mapping can
 * be made? 1 when sp lies in the main thread's [stack] or in an anonymous
 * mapping with a guard (an inaccessible anonymous mapping) right below it
 * that holds the thread's own descriptor (tp, its thread pointer), at least
 * need bytes above its start (rcall_scratch.c). */
struct sym_maps;
int rcall_stack_room(const struct sym_maps *maps, uint64_t sp, uint64_t tp, uint64_t need);
/* What one frame of a thread's stack says of it (rcall_safepoint.c): a
 * frame in jemalloc or the dynamic linker (a lock may be held), in libc's
 * fork path (jemalloc's prefork handler holds every jemalloc lock there
 * with no jemalloc frame), or a signal frame, makes the thread unsafe. */
enum rcall_frame { RCALL_FRAME_SAFE, RCALL_FRAME_ALLOCATOR, RCALL_FRAME_FORKING, RCALL_FRAME_SIGNAL };
struct sym_jemalloc;
enum rcall_frame rcall_frame_verdict(const struct sym_jemalloc *je, uint64_t ip,
				     int signal_frame);
/* Do maps still show the scratch mapping made at addr as it was made
 * (private, anonymous, read-write, ending where it ended; one that grows
 * down may begin lower)? A kept mapping is taken over by the next hold
 * only then (rcall_scratch.c). */
int rcall_scratch_still_made(const struct sym_maps *maps, uint64_t addr);
/* The label (rcall_label.c): where it lies in a mapping ending at map_end;
 * written by the owner (0 or -errno); read (0, -ENOENT not a label, or
 * -errno); is it this process's? */
uint64_t rcall_label_addr(uint64_t map_end);
int rcall_label_write(pid_t tid, uint64_t map_addr, const struct rcall_label_state *s);
int rcall_label_read(pid_t pid, uint64_t map_end, struct rcall_label *l);
int rcall_label_mine(const struct rcall_label *l);
/* What a labelled mapping found at attach is, given whether its owner
 * runs and where its held thread is (a seam for check_rcall). */
enum rcall_label_thread { RCALL_LABEL_THREAD_OFF, RCALL_LABEL_THREAD_ON, RCALL_LABEL_THREAD_UNKNOWN };
enum rcall_leftover {
	RCALL_LEFTOVER_STALE,     /* its jeattach is gone, nothing runs on it: removed */
	RCALL_LEFTOVER_BUSY,      /* its jeattach is gone, a call may still run on it */
	RCALL_LEFTOVER_OWNED,     /* its jeattach runs (or a state never written) */
	RCALL_LEFTOVER_ELSEWHERE, /* made from another pid namespace: not known */
};
enum rcall_leftover rcall_label_judge(const struct rcall_label *l, const struct rcall_label *me,
				      int owner_alive, enum rcall_label_thread on_it);
/* At prepare: find what killed jeattach runs left; the first becomes the
 * kept mapping, the others go at the first release. Under a lock (one
 * per target process), held until rcall_label_unlock: two attaches
 * never both take or unmap one mapping. */
void rcall_scratch_adopt(struct target *t);
void rcall_label_unlock(struct rcall_ctx *c);
/* Was l, as read at attach, still there, unchanged (every field)? */
int rcall_label_same(pid_t tid, uint64_t map_end, const struct rcall_label *was);
/* Is an unwind table found for the file with inode ino mapped with bias
 * (start - offset) still the one for ip in maps (NULL: nothing to check
 * against)? (rcall_safepoint.c) */
int rcall_table_current(uint64_t ino, uint64_t bias, const struct sym_maps *maps, uint64_t ip);
/* rcall_peek with the registers (rcall_peek.c). */
int rcall_peek_regs(struct target *t, pid_t tid, core_usec_t deadline, arch_gpregs_t *r);
#define RCALL_SCRATCH_MAP_LEN (1024 * 1024 + 64 * 1024) /* why: rcall_scratch.c */
/* Has the held thread's stack room, by that rule, for the calls made before
 * the mapping exists (a signal frame and a little more)? */
int rcall_scratch_stack_known(struct target *t, const struct rcall_held *h);
/* Would rcall_syscall with nargs arguments be crash-safe now (rcall.c)? */
int rcall_syscall_crash_safe(const struct target *t, int nargs);
/* Timed waits (rcall_wait.c). Is tid asleep in a call whose interrupt
 * would stretch its timeout (plain EINTR, timeout relative)?
 * RCALL_WAIT_TIMED: yes, its timeout known; RCALL_WAIT_SOCKET: on a socket,
 * whose timeout (if any) is not known; 0: no. */
#define RCALL_WAIT_TIMED 1
#define RCALL_WAIT_SOCKET 2
/* RCALL_WAIT_LATE: a wait the kernel restarts with the time left at the
 * interrupt, which jeattach does not shorten (pselect6): it ends late by
 * the hold's length, so it is passed over while others can be borrowed,
 * and not watched. */
#define RCALL_WAIT_LATE 3
/* RCALL_WAIT_SLEEP: a sleep the kernel restarts through the restart block
 * (nanosleep, poll, FUTEX_WAIT), with a timeout short enough to watch for
 * its start: re-made at release with what is left if its start is dated,
 * taken anyway otherwise, its restart block kept (the return trap). */
#define RCALL_WAIT_SLEEP 4
/* RCALL_WAIT_LONG_SLEEP: the same, longer than a watch: its start cannot
 * be dated, so it is taken as it is (restart block, return trap). */
#define RCALL_WAIT_LONG_SLEEP 5
int rcall_wait_timed(struct target *t, pid_t tid);
/* When tid's present wait began, from the scheduler's record of when it
 * went to sleep (rcall_since.c): 0 and *began (CLOCK_MONOTONIC), or -1
 * when that cannot be told. */
int rcall_wait_since(struct target *t, pid_t tid, core_usec_t *began);
/* The real clock_offset of rcall_reads (rcall_since.c). */
int rcall_since_clock_offset(int cpu, int64_t *offset);
/* What borrowing tid costs the service, from what it is blocked in now
 * (rcall_wait.c): a wait with no timeout (a futex or condition variable,
 * read, accept, poll or epoll with -1, sigwait, pause) least, a timed wait
 * next, a thread running or runnable most. */
enum rcall_cost rcall_wait_cost(struct target *t, pid_t tid);
/* A thread to try, with what borrowing it costs and when it last started
 * to run (ms on the scheduler's clock, 0 unknown). */
struct rcall_candidate {
	pid_t tid;
	enum rcall_cost cost;
	double last_ran;
};
/* Order tids[0..n) by cost, then idle longest first (rcall_rank.c); drops
 * threads that are gone. The new count, or -ENOMEM. */
int rcall_rank(struct target *t, pid_t *tids, int n);
/* qsort's order of two candidates. */
int rcall_rank_compare(const void *a, const void *b);
/* tid's name (/proc's comm, at most 15 bytes), "" if it cannot be read:
 * read before a thread is stopped, so that its stop is only calls. */
void rcall_comm_read(struct target *t, pid_t tid, char comm[16]);
/* tid's cost as the last ranking saw it. */
enum rcall_cost rcall_ranked_cost(const struct target *t, pid_t tid);
/* Watch tid until it is out of such a wait or has just begun one (0,
 * *began set); -ETIMEDOUT past the deadline or a per-thread limit. */
int rcall_wait_watch(struct target *t, pid_t tid, core_usec_t deadline, core_usec_t *began);
/* A hold's search begins: no thread noted yet. */
void rcall_late_reset(struct rcall_ctx *c);
/* tid was watched in a timed wait of timeout_us and not seen to begin
 * another; noted once however many rounds watch it. */
void rcall_late_note(struct rcall_ctx *c, pid_t tid, int64_t timeout_us);
/* After the search timed out: 1 with *r the reason naming every thread
 * noted and the --timeout that would see one begin, 0 if none was. */
int rcall_late_reason(const struct rcall_ctx *c, struct ja_reason *r);
/* Before tid is stopped: may it be now (0, *began as rcall_stop_thread
 * wants it), or is it to be passed over, in a timed wait (1, why in
 * reason)? last_round: nothing else is left to take. */
int rcall_wait_check(struct target *t, pid_t tid, int last_round, core_usec_t *began, char *reason,
		     size_t rlen);
/* tid's scheduling counters now (s->valid 0 if the kernel has none). */
void rcall_sched_read(struct target *t, pid_t tid, struct rcall_sched *s);
/* Was tid, seen in no call with counters before just before its interrupt,
 * woken from its call's sleep before the interrupt came (rcall_wait.c)? */
int rcall_wait_woken(struct target *t, pid_t tid, const struct rcall_sched *before);
/* Registers r of held thread h's call that returned the interrupt's EINTR,
 * begun no earlier than h->wait_began (0: unknown): rewind it to be made
 * again, its register timeout cut to what is left (h->wait_ends: when that
 * is, 0 if none), or, if its time was already up, have it return its
 * timed-out result (1). */
int rcall_wait_resume(struct target *t, struct rcall_held *h, arch_gpregs_t *r);
/* Registers r of held thread h, seen in no call before its interrupt and
 * stopped where the stop no longer shows a call (ARCH_SYSCALL_FORGOTTEN_AT_STOP):
 * if it was woken from a timed wait whose timeout the interrupt turned
 * into EINTR, have the call return timed out (1). */
int rcall_wait_forgotten(struct target *t, struct rcall_held *h, arch_gpregs_t *r);
/* At a hold's first stop, registers as found in h->regs: plan re-making
 * its interrupted call at release (h->reissue) where that makes it end when
 * it would have. 1 if it still restarts through the restart block (a call
 * that cannot be re-made: restart_syscall itself, a CPU-time clock), 0 if
 * not. */
int rcall_wait_plan(struct target *t, struct rcall_held *h);
/* Registers r, insn the ARCH_SYSCALL_INSN_LEN bytes at r's pc: a timed
 * call jeattach re-made at an earlier release, not yet made by the kernel
 * (its timeout a copy below the red zone)? Its number with its arguments in
 * args, or -1. */
long rcall_wait_remade(const arch_gpregs_t *r, const char *insn, uint64_t args[6]);
/* On its system call instruction about to make restart_syscall: a sleep
 * whose -ERESTART_RESTARTBLOCK the kernel has already turned into that
 * (x86_64: at one pass of exit_to_user_mode_loop, the stop at the next;
 * or stopped in user space before it). Only its restart block knows the
 * sleep, and a crash-safe call's rt_sigreturn resets it
 * (do_no_restart_syscall: EINTR): such a thread keeps it, through the
 * return trap. insn: the bytes at r's pc. 1 yes. */
int rcall_wait_at_restart(const arch_gpregs_t *r, const char *insn);
/* The registers that re-make h's planned call from its start, with the
 * program's own arguments (a crash-safe call's frame: what a thread whose
 * jeattach died runs). */
void rcall_wait_reissue_regs(const struct rcall_held *h, arch_gpregs_t *r);
/* A crash-safe call's frame, registers r (rcall_wait_reissue_regs), to be
 * built at frame_addr: where the planned call's timeout pointer is a copy
 * jeattach left below the red zone (the call re-made at an earlier
 * release), which this hold's frames overwrite, point it instead at the
 * frame's unused siginfo at `at` and fill out with what goes there (the
 * time left now). Returns the bytes to write at `at`, 0 for none. */
size_t rcall_wait_frame_copy(const struct rcall_held *h, arch_gpregs_t *r, uint64_t at,
			     uint64_t out[6]);
/* At release, after the last call: make h->regs the planned call re-made
 * with what is left of its timeout (written below the red zone), and stop
 * the thread where the kernel applies a restart code if it is not there
 * (after crash-safe calls). 0 done, <0 not (h->regs unchanged), 1 the
 * thread did not stop again and is let go at its stop (rcall_sweep). */
int rcall_remake(struct target *t, struct rcall_held *h);
/* A register timeout rewound by rcall_wait_resume: what is left now. */
void rcall_wait_shorten(arch_gpregs_t *r, core_usec_t ends);
/* Does tid, entering or blocked in system call nr with args, wait on a
 * glibc mutex it owns itself (rcall_selflock.c)? 1 yes (why set), 0 no.
 * rcall_selflock_decide: the same, given the five ints at args[0]. */
int rcall_selflock(struct target *t, pid_t tid, long nr, const uint64_t args[6]);
int rcall_selflock_decide(long nr, const uint64_t args[6], const int32_t mutex[5], pid_t tid);
/* The same for the call tid is blocked in now (/proc/PID/task/TID/syscall). */
int rcall_selflock_blocked(struct target *t, pid_t tid);
/* Free what rcall_seccomp.c read for a hold. */
void rcall_seccomp_free(struct rcall_held *h);

#endif
