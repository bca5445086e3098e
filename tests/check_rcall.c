/* SPDX-License-Identifier: BSD-2-Clause */
/* The remote-call layer's parts that need no process: whose memory is read
 * when no thread is held; which stacks calls may run on without a mapping;
 * which waits of an injected call can never end; which calls are ones
 * jeattach re-made itself. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include "target_struct.h"
#include <errno.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "rcall.h"
#include "arch_check.h"
#include "kernel_restart.h"
#include "rcall_internal.h"
#include "rcall_reads.h"
#include "sym.h"
#include "sym_maps.h"
#include "target.h"

/* No hold (no rcall context at all, as before the first attach): memory
 * goes through io_pid, the process's own /proc entry. It once called itself
 * here, an endless loop at -O2; Check's per-test timeout catches that. */
START_TEST(memory_without_a_hold)
{
	struct target t;
	memset(&t, 0, sizeof(t));
	t.pid = 4242;
	t.io_pid = 4243; /* a live thread standing for an ended leader */
	ck_assert_int_eq(rcall_mem_pid(&t), 4243);
}
END_TEST

/* Where no scratch mapping can be made, calls run below a thread's red
 * zone only on a real stack with room: the kernel's [stack], or a mapping
 * with glibc's PROT_NONE guard right below it. A coroutine's stack carved
 * from the heap, or one without its guard, is never written past. */
static struct sym_map stack_map(uint64_t start, uint64_t end, int r, int w, const char *path)
{
	struct sym_map m = { .start = start, .end = end, .r = r, .w = w, .p = 1 };
	m.path = (char *)path;
	return m;
}

START_TEST(stack_room)
{
	struct sym_map v[] = {
		stack_map(0x1000, 0x200000, 1, 1, ""),          /* a heap-like mapping */
		stack_map(0x300000, 0x301000, 0, 0, ""),        /* glibc's guard */
		stack_map(0x301000, 0xb01000, 1, 1, ""),        /* an 8 MiB thread stack */
		stack_map(0xc00000, 0xd80000, 1, 1, "[stack]"), /* the main thread's */
		stack_map(0xe00000, 0xf00000, 1, 1, "/lib/x.so"),
	};
	struct sym_maps maps = { v, sizeof(v) / sizeof(v[0]) };
	const uint64_t need = 0x110000;
	ck_assert_int_eq(rcall_stack_room(&maps, 0xb00000, 0xb00f00, need), 1);
	ck_assert_int_eq(rcall_stack_room(&maps, 0x301000 + need, 0xb00f00, need), 1);
	ck_assert_int_eq(rcall_stack_room(&maps, 0x301000 + need - 8, 0xb00f00, need), 0); /* no room */
	ck_assert_int_eq(rcall_stack_room(&maps, 0x1f0000, 0xb00f00, need), 0); /* no guard below */
	ck_assert_int_eq(rcall_stack_room(&maps, 0xd7f000, 0xb00f00, need), 1);
	ck_assert_int_eq(rcall_stack_room(&maps, 0xc00100, 0xb00f00, need), 0); /* [stack], no room */
	ck_assert_int_eq(rcall_stack_room(&maps, 0xef0000, 0xb00f00, need), 0); /* a file */
	ck_assert_int_eq(rcall_stack_room(&maps, 0x300800, 0xb00f00, need), 0); /* the guard itself */
	ck_assert_int_eq(rcall_stack_room(&maps, 0x280000, 0xb00f00, need), 0); /* unmapped */
	/* Its thread pointer elsewhere: a pool of stacks with one guard at
	 * its bottom, not the thread's own stack. */
	ck_assert_int_eq(rcall_stack_room(&maps, 0xb00000, 0x7f0000001000, need), 0);
	ck_assert_int_eq(rcall_stack_room(&maps, 0xd7f000, 0x7f0000001000, need), 1); /* [stack] */
	v[1].r = 1; /* the neighbour below is accessible: not a guard */
	ck_assert_int_eq(rcall_stack_room(&maps, 0xb00000, 0xb00f00, need), 0);
}
END_TEST

/* The per-thread pass's holds share one scratch mapping: the next hold
 * takes it over only if the maps read before its stop still show its range
 * in a mapping made as it was (and its token is in place, rcall_scratch.c);
 * anything else there now is the program's, never written. */
START_TEST(kept_scratch_taken_only_as_made)
{
	const uint64_t a = 0x7f0000100000, len = RCALL_SCRATCH_MAP_LEN;
	struct sym_map v[] = {
		stack_map(0x7f0000000000, 0x7f0000010000, 1, 1, ""),
		stack_map(a, a + len, 1, 1, ""),
	};
	struct sym_maps maps = { v, 2 };
	ck_assert_int_eq(rcall_scratch_still_made(&maps, a), 1);
	v[1].start = a - 0x2000; /* grown down under a deep call: still it */
	ck_assert_int_eq(rcall_scratch_still_made(&maps, a), 1);
	v[1].start = a;
	v[1].end = a + 0x1000; /* unmapped, and a smaller one made there */
	ck_assert_int_eq(rcall_scratch_still_made(&maps, a), 0);
	v[1].end = a + len + 0x1000; /* merged with a neighbour made the same way */
	ck_assert_int_eq(rcall_scratch_still_made(&maps, a), 1);
	v[1].end = a + len;
	v[1].path = (char *)"/memfd:x"; /* a file mapped over it */
	ck_assert_int_eq(rcall_scratch_still_made(&maps, a), 0);
	v[1].path = (char *)"";
	v[1].w = 0; /* made read-only */
	ck_assert_int_eq(rcall_scratch_still_made(&maps, a), 0);
	v[1].w = 1;
	v[1].p = 0; /* shared */
	ck_assert_int_eq(rcall_scratch_still_made(&maps, a), 0);
	maps.n = 1; /* gone */
	ck_assert_int_eq(rcall_scratch_still_made(&maps, a), 0);
}
END_TEST

/* A futex wait on a glibc mutex its own thread owns never ends: the call
 * is abandoned. Anything else is a wait like any other. */
START_TEST(waits_on_itself)
{
	const pid_t me = 4242;
	const uint64_t wait[6] = { 0x1000, FUTEX_WAIT_PRIVATE, 2 };
	const int32_t adaptive_mine[5] = { 2, 0, me, 1, 3 }, normal_mine[5] = { 2, 0, me, 1, 0 };
	ck_assert_int_eq(rcall_selflock_decide(SYS_futex, wait, adaptive_mine, me), 1);
	ck_assert_int_eq(rcall_selflock_decide(SYS_futex, wait, normal_mine, me), 1);
	const uint64_t bitset[6] = { 0x1000, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 2 };
	ck_assert_int_eq(rcall_selflock_decide(SYS_futex, bitset, normal_mine, me), 1);
	/* Another owner: it will give the lock back. */
	const int32_t theirs[5] = { 2, 0, me + 1, 1, 3 };
	ck_assert_int_eq(rcall_selflock_decide(SYS_futex, wait, theirs, me), 0);
	/* Recursive and error-checking mutexes never wait on their owner. */
	const int32_t recursive[5] = { 2, 1, me, 1, 1 }, errcheck[5] = { 2, 0, me, 1, 2 };
	ck_assert_int_eq(rcall_selflock_decide(SYS_futex, wait, recursive, me), 0);
	ck_assert_int_eq(rcall_selflock_decide(SYS_futex, wait, errcheck, me), 0);
	/* The word is not what the wait expects: the kernel returns at once. */
	const int32_t changed[5] = { 0, 0, me, 1, 3 };
	ck_assert_int_eq(rcall_selflock_decide(SYS_futex, wait, changed, me), 0);
	/* Robust: the owner's tid in the lock word (FUTEX_WAITERS set). */
	const uint64_t rwait[6] = { 0x1000, FUTEX_WAIT, (uint32_t)(me | FUTEX_WAITERS) };
	const int32_t robust_mine[5] = { me | FUTEX_WAITERS, 0, me, 1, 16 };
	ck_assert_int_eq(rcall_selflock_decide(SYS_futex, rwait, robust_mine, me), 1);
	/* Not a wait, or not a futex at all. */
	const uint64_t wake[6] = { 0x1000, FUTEX_WAKE_PRIVATE, 1 };
	ck_assert_int_eq(rcall_selflock_decide(SYS_futex, wake, adaptive_mine, me), 0);
	ck_assert_int_eq(rcall_selflock_decide(SYS_read, wait, adaptive_mine, me), 0);
}
END_TEST

/* A timed call re-made at an earlier release (its timeout a copy jeattach
 * put below the red zone), caught by the next hold before the kernel made
 * it: the copy must be read before that hold's first frames overwrite it.
 * The states are the ones victim_fork's watchdog showed under --top on
 * x86_64: interrupted with -ERESTARTNOHAND, and back on the system call
 * instruction with the restart already applied (rax == orig_rax), which
 * was taken for a finished call and let its 1 s sigtimedwait end at once. */
#define INSN 0x7f0000001000ULL
START_TEST(remade_call_caught_again)
{
	static const char on_call[] = ARCH_SYSCALL_INSN, elsewhere[ARCH_SYSCALL_INSN_LEN] = { 0 };
	arch_gpregs_t r, rewound;
	uint64_t args[6];
	arch_check_in_syscall(&r, INSN, SYS_rt_sigtimedwait, 0x1000, -ERESTARTNOHAND);
	const uint64_t copy = arch_sp(&r) - ARCH_RED_ZONE - 48, own = arch_sp(&r) + 0x60;
	arch_set_syscall_arg(&r, 2, copy);
	ck_assert_int_eq(rcall_wait_remade(&r, elsewhere, args), SYS_rt_sigtimedwait);
	ck_assert_uint_eq(args[2], copy);
	rewound = r;
	arch_syscall_rewind(&rewound);
	ck_assert_int_eq(rcall_wait_remade(&rewound, on_call, args), SYS_rt_sigtimedwait);
	ck_assert_uint_eq(args[2], copy);
	/* The same states with the program's own timespec: its own call. */
	arch_set_syscall_arg(&r, 2, own);
	ck_assert_int_eq(rcall_wait_remade(&r, elsewhere, args), -1);
	arch_set_rewound_arg(&rewound, 2, own);
	ck_assert_int_eq(rcall_wait_remade(&rewound, on_call, args), -1);
	/* Finished (timed out), the pc past the call: nothing to re-make. */
	arch_check_in_syscall(&r, INSN, SYS_rt_sigtimedwait, 0x1000, -EAGAIN);
	arch_set_syscall_arg(&r, 2, copy);
	ck_assert_int_eq(rcall_wait_remade(&r, elsewhere, args), -1);
	/* A register timeout is re-made from no copy; ppoll's interrupted
	 * state carries the time the kernel left in the copy (rcall_wait_plan),
	 * and only its rewound one is read here. */
	arch_check_in_syscall(&r, INSN, SYS_epoll_pwait, 3, -ERESTARTNOHAND);
	ck_assert_int_eq(rcall_wait_remade(&r, elsewhere, args), -1);
	arch_check_in_syscall(&r, INSN, SYS_ppoll, 0x1000, -ERESTARTNOHAND);
	arch_set_syscall_arg(&r, 2, copy);
	ck_assert_int_eq(rcall_wait_remade(&r, elsewhere, args), -1);
	arch_syscall_rewind(&r);
	ck_assert_int_eq(rcall_wait_remade(&r, on_call, args), SYS_ppoll);
	/* A restart-block sleep whose restart the kernel has applied before
	 * the stop: on the instruction, about to make restart_syscall, which a
	 * crash-safe call's rt_sigreturn would turn into EINTR. */
	arch_check_in_syscall(&r, INSN, SYS_clock_nanosleep, 1, -ERESTART_RESTARTBLOCK);
	ck_assert(!rcall_wait_at_restart(&r, elsewhere));
	arch_rewind_for_sigreturn(&r); /* what the kernel does with no handler */
	ck_assert_int_eq(arch_pc(&r), INSN);
	ck_assert(rcall_wait_at_restart(&r, on_call));
	ck_assert(!rcall_wait_at_restart(&r, elsewhere));
}
END_TEST

/* Recorded states stand for a live thread (rcall_reads.h): what /proc
 * shows of it, and its memory at one address. */
static struct recorded {
	char status[128], syscall[256], schedstat[64];
	uint64_t at;
	int64_t ts[2];
	int socket;
} rec;

static char *recorded_file(pid_t pid, pid_t tid, const char *name)
{
	(void)pid, (void)tid;
	const char *v = !strcmp(name, "status")	   ? rec.status
			: !strcmp(name, "syscall")   ? rec.syscall
			: !strcmp(name, "schedstat") ? rec.schedstat
						     : "";
	return *v ? strdup(v) : NULL;
}

static int recorded_memory(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	(void)pid;
	if (addr != rec.at || len > sizeof(rec.ts))
		return -EFAULT;
	memcpy(buf, rec.ts, len);
	return 0;
}

static int recorded_socket(pid_t pid, uint64_t fd)
{
	(void)pid, (void)fd;
	return rec.socket;
}

#define AT 0x7ffd1000ULL
/* Thread 11 of pid 10, asleep in call nr with these arguments (proc_pid_syscall:
 * "NR ARG1 ... ARG6 SP PC"); its timespec at AT, if any. */
static void record_wait(struct target *t, long nr, const uint64_t a[6], int64_t sec, int64_t nsec)
{
	memset(t, 0, sizeof(*t));
	t->pid = t->io_pid = 10;
	snprintf(rec.status, sizeof(rec.status), "voluntary_ctxt_switches:\t5\n");
	snprintf(rec.syscall, sizeof(rec.syscall),
		 "%ld 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x%llx 0x7ffd0f00 0x7f0000001000\n", nr,
		 (unsigned long long)a[0], (unsigned long long)a[1], (unsigned long long)a[2],
		 (unsigned long long)a[3], (unsigned long long)a[4], (unsigned long long)a[5]);
	rec.at = AT;
	rec.ts[0] = sec;
	rec.ts[1] = nsec;
}

static int waiting_in(long nr, const uint64_t a[6], int64_t sec, int64_t nsec)
{
	struct target t;
	record_wait(&t, nr, a, sec, nsec);
	return rcall_wait_timed(&t, 11);
}

/* Is this thread's wait one an interrupt would stretch, and of which kind
 * (rcall_wait.c's table)? From the states /proc shows. */
START_TEST(wait_kinds)
{
	struct rcall_reads real = rcall_reads;
	rcall_reads = (struct rcall_reads){ .task_file = recorded_file, .memory = recorded_memory,
					    .is_socket = recorded_socket };
	const uint64_t sigwait[6] = { 0x1000, 0, AT, 8 }, sigwait_forever[6] = { 0x1000, 0, 0, 8 };
	ck_assert_int_eq(waiting_in(SYS_rt_sigtimedwait, sigwait, 1, 0), RCALL_WAIT_TIMED);
	ck_assert_int_eq(waiting_in(SYS_rt_sigtimedwait, sigwait_forever, 1, 0), 0);
	ck_assert_int_eq(waiting_in(SYS_rt_sigtimedwait, sigwait, -1, 0), 0); /* invalid */
	/* A relative sleep the kernel restarts through its restart block:
	 * watched if short, taken undated if longer than a watch (1.5 s). */
	const uint64_t sleep_rel[6] = { CLOCK_MONOTONIC, 0, AT, 0 };
	const uint64_t sleep_abs[6] = { CLOCK_MONOTONIC, TIMER_ABSTIME, AT, 0 };
	ck_assert_int_eq(waiting_in(SYS_clock_nanosleep, sleep_rel, 1, 0), RCALL_WAIT_SLEEP);
	ck_assert_int_eq(waiting_in(SYS_clock_nanosleep, sleep_rel, 60, 0), RCALL_WAIT_LONG_SLEEP);
	ck_assert_int_eq(waiting_in(SYS_clock_nanosleep, sleep_abs, 60, 0), 0); /* the kernel's own */
	/* A timeout in a register (ms): -1 waits for ever. */
	const uint64_t epoll300[6] = { 3, 0x1000, 16, 300 }, epoll_ever[6] = { 3, 0x1000, 16, (uint64_t)-1 };
	ck_assert_int_eq(waiting_in(SYS_epoll_pwait, epoll300, 0, 0), RCALL_WAIT_TIMED);
	ck_assert_int_eq(waiting_in(SYS_epoll_pwait, epoll_ever, 0, 0), 0);
	/* ppoll: the kernel writes the time left back at the interrupt. */
	const uint64_t ppoll[6] = { 0x1000, 1, AT, 0 };
	ck_assert_int_eq(waiting_in(SYS_ppoll, ppoll, 1, 0), 0);
	/* A socket's timeout is unknown from outside. */
	const uint64_t recv[6] = { 5, 0x1000, 64, 0 };
	rec.socket = 1;
	ck_assert_int_eq(waiting_in(SYS_recvfrom, recv, 0, 0), RCALL_WAIT_SOCKET);
	rec.socket = 0;
	ck_assert_int_eq(waiting_in(SYS_recvfrom, recv, 0, 0), 0);
	/* Running, or gone. */
	struct target t;
	memset(&t, 0, sizeof(t));
	t.io_pid = 10;
	snprintf(rec.syscall, sizeof(rec.syscall), "running\n");
	ck_assert_int_eq(rcall_wait_timed(&t, 11), 0);
	rec.status[0] = 0;
	ck_assert_int_eq(rcall_wait_timed(&t, 11), 0);
	rcall_reads = real;
}
END_TEST

/* Woken from its sleep before the interrupt, on its way out of the call:
 * one sleep since the look (the stop's own) and one more arrival on a CPU
 * than preemptions (it waited on a run queue at the look). */
static int woken(unsigned long long arrivals, unsigned long long sleeps,
		 unsigned long long preempts)
{
	struct target t;
	memset(&t, 0, sizeof(t));
	t.io_pid = 10;
	const struct rcall_sched before = { 1, 20, 10, 3 };
	/* arrivals 0: no schedstat (a kernel without CONFIG_SCHED_INFO) */
	if (arrivals)
		snprintf(rec.schedstat, sizeof(rec.schedstat), "123456 7890 %llu\n", arrivals);
	else
		rec.schedstat[0] = 0;
	snprintf(rec.status, sizeof(rec.status),
		 "voluntary_ctxt_switches:\t%llu\nnonvoluntary_ctxt_switches:\t%llu\n", sleeps,
		 preempts);
	return rcall_wait_woken(&t, 11, &before);
}

START_TEST(woken_before_the_interrupt)
{
	struct rcall_reads real = rcall_reads;
	rcall_reads = (struct rcall_reads){ .task_file = recorded_file, .memory = recorded_memory,
					    .is_socket = recorded_socket };
	ck_assert_int_eq(woken(21, 11, 3), 1);
	ck_assert_int_eq(woken(22, 11, 4), 1); /* preempted on its way out too */
	ck_assert_int_eq(woken(22, 12, 3), 0); /* slept twice: entered the call after the look */
	ck_assert_int_eq(woken(21, 11, 4), 0); /* on a CPU at the look, preempted since */
	ck_assert_int_eq(woken(0, 11, 3), 0);  /* not known */
	rcall_reads = real;
}
END_TEST

/* Which stacks take the frames of the calls made before the scratch
 * mapping exists (rcall_scratch.c), from recorded mappings: the main
 * thread's [stack] and a stack glibc made with its guard do; a coroutine's
 * stack carved from a heap block, however deep its thread's signal frames
 * would have been, does not (victim_coro -t: 2 KiB, every signal blocked). */
static struct sym_map rec_maps[5];
static int recorded_maps(pid_t pid, struct sym_maps *out)
{
	(void)pid;
	out->v = malloc(sizeof(rec_maps));
	if (!out->v)
		return -ENOMEM;
	memcpy(out->v, rec_maps, sizeof(rec_maps));
	for (size_t i = 0; i < 5; i++)
		out->v[i].path = strdup(rec_maps[i].path);
	out->n = 5;
	return 0;
}

START_TEST(stack_known_for_the_first_frames)
{
	rec_maps[0] = stack_map(0x1000, 0x200000, 1, 1, "");          /* the heap */
	rec_maps[1] = stack_map(0x300000, 0x301000, 0, 0, "");        /* glibc's guard */
	rec_maps[2] = stack_map(0x301000, 0xb01000, 1, 1, "");        /* a thread's stack */
	rec_maps[3] = stack_map(0xc00000, 0xd80000, 1, 1, "[stack]"); /* the main thread's */
	rec_maps[4] = stack_map(0xe00000, 0xf00000, 1, 1, "/lib/x.so");
	struct target t;
	memset(&t, 0, sizeof(t));
	t.io_pid = 4242;
	struct rcall_reads real = rcall_reads;
	rcall_reads.maps = recorded_maps;
	struct rcall_held h = { .tid = 4243 };
	arch_check_set_stack(&h.regs, 0xb00000, 0xb00f00); /* a glibc thread, its tp on top */
	ck_assert_int_eq(rcall_scratch_stack_known(&t, &h), 1);
	arch_check_set_stack(&h.regs, 0x301000 + 0x200, 0xb00f00); /* near its guard: no room */
	ck_assert_int_eq(rcall_scratch_stack_known(&t, &h), 0);
	arch_check_set_stack(&h.regs, 0x10800, 0xb00f00); /* a coroutine in a heap block */
	ck_assert_int_eq(rcall_scratch_stack_known(&t, &h), 0);
	arch_check_set_stack(&h.regs, 0xd7f000, 0); /* the main thread */
	ck_assert_int_eq(rcall_scratch_stack_known(&t, &h), 1);
	/* The main thread's stack as target_open saw it, no read needed. */
	struct sym_map snap[] = { stack_map(0xc00000, 0xd80000, 1, 1, "[stack]") };
	t.maps = (struct sym_maps){ snap, 1 };
	rcall_reads.maps = NULL; /* a read would crash the test */
	ck_assert_int_eq(rcall_scratch_stack_known(&t, &h), 1);
	/* Another thread's stack, in the mappings rcall_hold read before the
	 * round's stops: no read during the stop. */
	struct rcall_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	ctx.stack_maps = (struct sym_maps){ rec_maps, 5 };
	t.rc = &ctx;
	arch_check_set_stack(&h.regs, 0xb00000, 0xb00f00);
	ck_assert_int_eq(rcall_scratch_stack_known(&t, &h), 1);
	/* A stack that read does not show as one (a newer thread's, or a
	 * coroutine's): read again, and judged on what is there now. */
	rcall_reads.maps = recorded_maps;
	arch_check_set_stack(&h.regs, 0x10800, 0xb00f00);
	ck_assert_int_eq(rcall_scratch_stack_known(&t, &h), 0);
	t.rc = NULL;
	rcall_reads = real;
}
END_TEST

/* A thread with child processes is not stopped while the process has
 * another thread (rcall_stop.c): from /proc's children file as recorded. */
static const char *rec_children;
static char *recorded_children(pid_t pid, pid_t tid, const char *name)
{
	(void)pid, (void)tid;
	return !strcmp(name, "children") && rec_children ? strdup(rec_children) : NULL;
}

START_TEST(children_keep_a_thread)
{
	struct target t;
	memset(&t, 0, sizeof(t));
	t.io_pid = 4242;
	char why[200] = "";
	struct rcall_reads real = rcall_reads;
	rcall_reads.task_file = recorded_children;
	rec_children = "4300 4301 ";
	ck_assert_int_eq(rcall_has_children(&t, 4243, 0, why, sizeof(why)), 1);
	ck_assert_ptr_nonnull(strstr(why, "thread 4243 has child processes"));
	ck_assert_int_eq(rcall_has_children(&t, 4243, 1, why, sizeof(why)), 0); /* alone */
	rec_children = "";
	ck_assert_int_eq(rcall_has_children(&t, 4243, 0, why, sizeof(why)), 0);
	rec_children = NULL; /* unreadable (no CONFIG_PROC_CHILDREN): as none */
	ck_assert_int_eq(rcall_has_children(&t, 4243, 0, why, sizeof(why)), 0);
	rcall_reads = real;
}
END_TEST

/* The process's children across its threads (rcall_kids.c), as a
 * shared scratch mapping's fork check reads them: threads 10 (the
 * leader), 11 and 12, with children files recorded per thread. */
static const char *kid_files[3];
static int kid_threads = 3;
static char *recorded_kid_file(pid_t pid, pid_t tid, const char *name)
{
	(void)pid;
	if (strcmp(name, "children") || tid < 10)
		return NULL;
	if (tid == 309) /* the last of a long list */
		return strdup("777");
	return tid <= 12 && kid_files[tid - 10] ? strdup(kid_files[tid - 10]) : NULL;
}
static int recorded_tasks(pid_t pid, pid_t *tids, int max)
{
	(void)pid;
	int n = 0;
	for (int i = 0; i < kid_threads && n < max; i++)
		tids[n++] = 10 + i;
	return n;
}

static int kid_listed(const struct rcall_kids *k, pid_t pid)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->pid[i] == pid)
			return 1;
	return 0;
}

START_TEST(children_across_threads)
{
	struct rcall_reads real = rcall_reads;
	rcall_reads.task_file = recorded_kid_file;
	rcall_reads.tasks = recorded_tasks;
	struct rcall_kids k = { 0 };
	kid_files[0] = "200 ";
	kid_files[1] = "";
	kid_files[2] = "300 301 ";
	ck_assert_int_eq(rcall_kids_read(10, &k), 0);
	ck_assert_int_eq(k.n, 3);
	ck_assert(kid_listed(&k, 200) && kid_listed(&k, 300) && kid_listed(&k, 301));
	/* The same children, listed by another thread (the one that forked
	 * them ended: they went to another of the process). */
	kid_files[0] = "301 300 200 ";
	kid_files[2] = NULL; /* ended since the listing */
	ck_assert_int_eq(rcall_kids_read(10, &k), 0);
	ck_assert_int_eq(k.n, 3);
	ck_assert(kid_listed(&k, 300) && kid_listed(&k, 301));
	/* A child forked by a thread that had none. */
	kid_files[0] = "200 ";
	kid_files[1] = "302";
	ck_assert_int_eq(rcall_kids_read(10, &k), 0);
	ck_assert_int_eq(k.n, 2);
	ck_assert(kid_listed(&k, 302) && !kid_listed(&k, 300));
	/* No children file for the leader: no such files here, unknown. */
	kid_files[0] = NULL;
	ck_assert_int_eq(rcall_kids_read(10, &k), -ENOENT);
	/* A process with more threads than the first listing had room for
	 * (256): listed again, larger; the last thread's child counts. */
	kid_threads = 300;
	kid_files[0] = "200 ";
	kid_files[1] = "";
	kid_files[2] = NULL;
	ck_assert_int_eq(rcall_kids_read(10, &k), 0);
	ck_assert_int_eq(k.n, 2);
	ck_assert(kid_listed(&k, 777));
	kid_threads = 3;
	rcall_kids_free(&k);
	rcall_reads = real;
}
END_TEST

/* The safe-point rule frame by frame (rcall_safepoint.c): a thread
 * stopped in clone's return inside _Fork, between jemalloc's prefork and
 * parent handlers, has no jemalloc frame but holds every jemalloc lock
 * (the part-3 robustness issue's mid-fork hang). */
START_TEST(frames_that_make_a_thread_unsafe)
{
	struct sym_jemalloc je;
	memset(&je, 0, sizeof(je));
	ck_assert_int_eq(sym_ranges_add(&je.unsafe, 0x10000, 0x20000), 0);   /* jemalloc */
	ck_assert_int_eq(sym_ranges_add(&je.forking, 0x50000, 0x50400), 0);  /* _Fork */
	sym_ranges_sort(&je.unsafe);
	sym_ranges_sort(&je.forking);
	ck_assert_int_eq(rcall_frame_verdict(&je, 0x10008, 0), RCALL_FRAME_ALLOCATOR);
	ck_assert_int_eq(rcall_frame_verdict(&je, 0x50010, 0), RCALL_FRAME_FORKING);
	ck_assert_int_eq(rcall_frame_verdict(&je, 0x60000, 1), RCALL_FRAME_SIGNAL);
	ck_assert_int_eq(rcall_frame_verdict(&je, 0x60000, 0), RCALL_FRAME_SAFE);
	ck_assert_int_eq(rcall_frame_verdict(&je, 0x20000, 0), RCALL_FRAME_SAFE); /* end excluded */
	sym_ranges_free(&je.unsafe);
	sym_ranges_free(&je.forking);
}
END_TEST

/* What borrowing a thread costs the service, from what /proc shows it
 * blocked in (rcall_wait_cost), and the order candidates are tried in
 * (rcall_rank.c): no timeout first, timed next, running last, the one idle
 * longest among equals, one of unknown idleness after those known. */
static enum rcall_cost cost_in(long nr, const uint64_t a[6], int64_t sec)
{
	struct target t;
	record_wait(&t, nr, a, sec, 0);
	return rcall_wait_cost(&t, 11);
}

START_TEST(costs_and_ranking)
{
	struct rcall_reads real = rcall_reads;
	rcall_reads = (struct rcall_reads){ .task_file = recorded_file, .memory = recorded_memory,
					    .is_socket = recorded_socket };
	const uint64_t cond[6] = { 0x1000, FUTEX_WAIT_PRIVATE, 2, 0 };   /* no timeout */
	const uint64_t timed[6] = { 0x1000, FUTEX_WAIT_PRIVATE, 2, AT }; /* 5 s */
	const uint64_t rd[6] = { 3, 0x2000, 4096 };
	const uint64_t epoll_forever[6] = { 4, 0x3000, 64, (uint64_t)-1, 0, 8 };
	const uint64_t epoll_10s[6] = { 4, 0x3000, 64, 10000, 0, 8 };
	ck_assert_int_eq(cost_in(SYS_futex, cond, 0), RCALL_COST_UNTIMED_WAIT);
	ck_assert_int_eq(cost_in(SYS_futex, timed, 5), RCALL_COST_TIMED_WAIT);
	ck_assert_int_eq(cost_in(SYS_read, rd, 0), RCALL_COST_UNTIMED_WAIT);
	/* No timeout, but a plain EINTR at the interrupt: after the
	 * restartable waits (a jeattach killed at the stop would leave it). */
	ck_assert_int_eq(cost_in(SYS_epoll_pwait, epoll_forever, 0), RCALL_COST_UNTIMED_EINTR);
	ck_assert_int_eq(cost_in(SYS_epoll_pwait, epoll_10s, 0), RCALL_COST_TIMED_WAIT);
	struct target t;
	memset(&t, 0, sizeof(t));
	snprintf(rec.syscall, sizeof(rec.syscall), "running\n");
	ck_assert_int_eq(rcall_wait_cost(&t, 11), RCALL_COST_RUNNING);
	snprintf(rec.syscall, sizeof(rec.syscall), "-1 0x7ffd0f00 0x7f0000001000\n");
	ck_assert_int_eq(rcall_wait_cost(&t, 11), RCALL_COST_RUNNING);
	rec.syscall[0] = 0; /* unreadable: gone */
	ck_assert_int_eq(rcall_wait_cost(&t, 11), RCALL_COST_GONE);
	rcall_reads = real;

	struct rcall_candidate v[] = {
		{ 1, RCALL_COST_RUNNING, 10 },      /* the leader, busy */
		{ 2, RCALL_COST_UNTIMED_WAIT, 500 },
		{ 3, RCALL_COST_TIMED_WAIT, 50 },
		{ 4, RCALL_COST_UNTIMED_WAIT, 100 }, /* idle longest */
		{ 5, RCALL_COST_UNTIMED_WAIT, 0 },   /* idleness unknown */
		{ 6, RCALL_COST_UNTIMED_EINTR, 1 },  /* epoll_wait(-1), idlest of all */
		{ 7, RCALL_COST_SOCKET_WAIT, 1 },
	};
	qsort(v, 7, sizeof(v[0]), rcall_rank_compare);
	const pid_t want[] = { 4, 2, 5, 6, 3, 7, 1 };
	for (int i = 0; i < 7; i++)
		ck_assert_int_eq(v[i].tid, want[i]);
}
END_TEST

/* When a sleeping thread's wait began, from the scheduler's record
 * (rcall_since.c): se.exec_start on its CPU's task clock, plus that CPU's
 * offset to CLOCK_MONOTONIC; refused when the thread slept again while it
 * was read, or when the files or the offset are not there. */
static const char *since_status[2], *since_stat, *since_sched;
static int since_reads;
static char *since_file(pid_t pid, pid_t tid, const char *name)
{
	(void)pid, (void)tid;
	const char *v = !strcmp(name, "status") ? since_status[since_reads++ % 2]
			: !strcmp(name, "stat") ? since_stat
			: !strcmp(name, "sched") ? since_sched
						 : NULL;
	return v ? strdup(v) : NULL;
}
static int since_cpu = -1;
static int since_offset(int cpu, int64_t *offset)
{
	since_cpu = cpu;
	*offset = core_now_us() - 5000000 - 29476180000LL; /* 5 s ago at exec_start */
	return 0;
}

START_TEST(wait_start_from_the_scheduler)
{
	struct target t;
	memset(&t, 0, sizeof(t));
	struct rcall_reads real = rcall_reads;
	rcall_reads.task_file = since_file;
	rcall_reads.clock_offset = since_offset;
	since_status[0] = since_status[1] = "voluntary_ctxt_switches:\t41\n";
	/* comm with a space and a parenthesis; field 39 (the CPU) is 1 */
	since_stat = "11 (a (b) c) S 1 11 11 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 2 0 100 0 0 "
		     "18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
	since_sched = "x (11, #threads: 2)\n---\nse.exec_start                                :"
		      "      29476180.000000\nse.vruntime : 1.0\n";
	core_usec_t began = 0, before = core_now_us();
	since_reads = 0;
	ck_assert_int_eq(rcall_wait_since(&t, 11, &began), 0);
	ck_assert_int_eq(since_cpu, 1);
	ck_assert_int_ge(began, before - 5000000);
	ck_assert_int_le(began, core_now_us() - 5000000);
	/* It woke and slept again while exec_start was read: not its wait. */
	since_status[1] = "voluntary_ctxt_switches:\t42\n";
	since_reads = 0;
	ck_assert_int_eq(rcall_wait_since(&t, 11, &began), -1);
	since_status[1] = since_status[0];
	/* A kernel without the sched file. */
	since_sched = "nothing here\n";
	ck_assert_int_eq(rcall_wait_since(&t, 11, &began), -1);
	/* A start later than now is no start. */
	since_sched = "se.exec_start : 99999999999.000000\n";
	ck_assert_int_eq(rcall_wait_since(&t, 11, &began), -1);
	rcall_reads = real;
}
END_TEST

/* Threads in timed waits whose start cannot be dated (no sched file) are
 * watched for their next wait to begin; each not seen to is noted once,
 * and the timeout's reason names them all with the --timeout that would
 * do: the longest wait, rounded up, and a second more. */
START_TEST(late_waits_named_all)
{
	struct rcall_reads real = rcall_reads;
	rcall_reads = (struct rcall_reads){ .task_file = recorded_file, .memory = recorded_memory,
					    .is_socket = recorded_socket };
	struct rcall_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	struct ja_reason r;
	rcall_late_reset(&ctx);
	ck_assert_int_eq(rcall_late_reason(&ctx, &r), 0);
	const uint64_t epoll_4s[6] = { 3, 0x1000, 16, 4000 }, epoll_10s[6] = { 3, 0x1000, 16, 10000 };
	struct target t;
	char why[200];
	core_usec_t began;
	for (int i = 0; i < 3; i++) {
		record_wait(&t, SYS_epoll_pwait, i == 1 ? epoll_10s : epoll_4s, 0, 0);
		t.rc = &ctx;
		ctx.deadline = core_now_us() + 20000;
		ck_assert_int_eq(rcall_wait_check(&t, 101 + i, 1, &began, why, sizeof(why)), 1);
		ck_assert_ptr_nonnull(strstr(why, "stayed in a timed wait"));
	}
	ctx.deadline = core_now_us() + 20000;
	ck_assert_int_eq(rcall_wait_check(&t, 101, 1, &began, why, sizeof(why)), 1); /* again */
	ck_assert_int_eq(rcall_late_reason(&ctx, &r), 1);
	ck_assert_int_eq(r.kind, JA_WHY_TIMED_WAITS);
	ck_assert_int_eq(r.tid, 101);
	ck_assert_uint_eq(r.n, 11);
	ck_assert_str_eq(r.detail, "threads 101, 102 and 103 stayed in timed waits of 10 s at most");
	/* One thread; more than the message lists. */
	rcall_late_reset(&ctx);
	rcall_late_note(&ctx, 7, 4500000);
	rcall_late_reason(&ctx, &r);
	ck_assert_uint_eq(r.n, 6);
	ck_assert_str_eq(r.detail, "thread 7 stayed in a timed wait of 4.5 s");
	for (int i = 0; i < RCALL_LATE_MAX + 2; i++)
		rcall_late_note(&ctx, 20 + i, 1000000);
	rcall_late_reason(&ctx, &r);
	ck_assert_str_eq(r.detail, "threads 7, 20, 21, 22, 23, 24 and 3 more stayed in timed waits "
				   "of 4.5 s at most");
	rcall_reads = real;
}
END_TEST

/* Labelled scratch mappings found at attach (rcall_label.c): taken only
 * when their jeattach is gone and no call can run on them; the first of
 * them becomes the kept mapping, the others go at the first release. */
#define LBL_LEN RCALL_SCRATCH_MAP_LEN
static struct {
	uint64_t at[8];
	struct rcall_label l[8];
	int n;
	const char *syscall; /* the held thread's /proc syscall line */
} lbl;

static int label_memory(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	(void)pid;
	for (int i = 0; i < lbl.n; i++)
		if (addr == lbl.at[i] && len == sizeof(lbl.l[i])) {
			memcpy(buf, &lbl.l[i], len);
			return 0;
		}
	memset(buf, 0, len); /* memory that is no label */
	return 0;
}

static char *label_file(pid_t pid, pid_t tid, const char *name)
{
	(void)pid;
	return tid == 77 && !strcmp(name, "syscall") ? strdup(lbl.syscall) : NULL;
}

static void add_label(uint64_t end, int state, pid_t owner, uint64_t pidns, uint64_t token)
{
	struct rcall_label *l = &lbl.l[lbl.n];
	memset(l, 0, sizeof(*l));
	memcpy(l->magic, "jeattach", 8);
	struct stat tns;
	l->owner_pid = owner;
	l->owner_pidns = pidns;
	l->owner_timens = stat("/proc/self/ns/time", &tns) ? 0 : tns.st_ino;
	l->state = state;
	l->held_tid = 77;
	l->token = token;
	lbl.at[lbl.n++] = rcall_label_addr(end);
}

START_TEST(leftover_scratch_judged)
{
	struct rcall_label me = { .owner_pidns = 5, .owner_timens = 9, .owner_pid = 100 }, l = me;
	l.state = RCALL_LABEL_KEPT;
	ck_assert_int_eq(rcall_label_judge(&l, &me, 0, RCALL_LABEL_THREAD_UNKNOWN), RCALL_LEFTOVER_STALE);
	ck_assert_int_eq(rcall_label_judge(&l, &me, 1, RCALL_LABEL_THREAD_OFF), RCALL_LEFTOVER_OWNED);
	l.owner_pidns = 6; /* its pid means nothing here */
	ck_assert_int_eq(rcall_label_judge(&l, &me, 0, RCALL_LABEL_THREAD_OFF), RCALL_LEFTOVER_ELSEWHERE);
	l.owner_pidns = 5;
	l.owner_timens = 10; /* another clock's start times */
	ck_assert_int_eq(rcall_label_judge(&l, &me, 0, RCALL_LABEL_THREAD_OFF), RCALL_LEFTOVER_ELSEWHERE);
	l.owner_timens = 9;
	l.state = RCALL_LABEL_IN_HOLD; /* killed in a hold: its call may run on */
	ck_assert_int_eq(rcall_label_judge(&l, &me, 0, RCALL_LABEL_THREAD_ON), RCALL_LEFTOVER_BUSY);
	ck_assert_int_eq(rcall_label_judge(&l, &me, 0, RCALL_LABEL_THREAD_UNKNOWN), RCALL_LEFTOVER_BUSY);
	ck_assert_int_eq(rcall_label_judge(&l, &me, 0, RCALL_LABEL_THREAD_OFF), RCALL_LEFTOVER_STALE);
	l.state = 9; /* never written by jeattach */
	ck_assert_int_eq(rcall_label_judge(&l, &me, 0, RCALL_LABEL_THREAD_OFF), RCALL_LEFTOVER_OWNED);

	/* The maps of a process: A one left between holds; B two merged into
	 * one area, the upper with a call maybe on it (its thread blocked
	 * with sp inside), the lower kept; C this process's own (alive); D
	 * jemalloc's (no label); E from another pid namespace. */
	struct stat st;
	ck_assert_int_eq(stat("/proc/self/ns/pid", &st), 0);
	const pid_t dead = 4194305; /* above PID_MAX_LIMIT: never a process */
	const uint64_t a = 0x7f0000000000, b = 0x7f1000000000, c = 0x7f2000000000,
		       d = 0x7f3000000000, e = 0x7f4000000000;
	lbl.n = 0;
	add_label(a + LBL_LEN, RCALL_LABEL_KEPT, dead, st.st_ino, 11);
	add_label(b + 2 * LBL_LEN, RCALL_LABEL_IN_HOLD, dead, st.st_ino, 12);
	add_label(b + LBL_LEN, RCALL_LABEL_KEPT, dead, st.st_ino, 13);
	add_label(c + LBL_LEN, RCALL_LABEL_KEPT, getpid(), st.st_ino, 14);
	add_label(e + LBL_LEN, RCALL_LABEL_KEPT, dead, st.st_ino + 1, 15);
	/* its own start time, so that it reads as alive */
	unsigned long long start;
	ck_assert_int_eq(target_thread_stat(getpid(), getpid(), NULL, 0, &start), 0);
	lbl.l[3].owner_start = start;
	static char line[160];
	snprintf(line, sizeof(line), "7 0 0 0 0 0 0 %llx 1000", (unsigned long long)(b + LBL_LEN + 4096));
	lbl.syscall = line;
	struct sym_map v[] = {
		stack_map(a, a + LBL_LEN, 1, 1, ""),
		stack_map(b, b + 2 * LBL_LEN, 1, 1, ""),
		stack_map(c, c + LBL_LEN, 1, 1, ""),
		stack_map(d, d + 4 * LBL_LEN, 1, 1, ""),
		stack_map(e, e + LBL_LEN, 1, 1, ""),
	};
	struct rcall_ctx ctx;
	memset(&ctx, 0, sizeof(ctx));
	ctx.claim_fd = -1;
	struct target t;
	memset(&t, 0, sizeof(t));
	t.pid = getpid(); /* its lock file names this process */
	t.maps = (struct sym_maps){ v, 5 };
	t.rc = &ctx;
	struct rcall_reads real = rcall_reads;
	rcall_reads.memory = label_memory;
	rcall_reads.task_file = label_file;
	rcall_scratch_adopt(&t);
	ck_assert_uint_eq(ctx.kept_addr, a);
	ck_assert_uint_eq(ctx.kept_token, 11);
	ck_assert_int_eq(ctx.kept_foreign, 1);
	ck_assert_int_eq(ctx.nstale, 1);
	ck_assert_uint_eq(ctx.stale[0].lo, b);
	ck_assert_uint_eq(ctx.stale[0].end, b + LBL_LEN);
	ck_assert_int_eq(ctx.nstale_found, 2);
	ck_assert_int_eq(ctx.nstale_left, 3); /* B's upper, C, E */
	/* Found: the lock stays until the first release; another look now
	 * finds it taken and looks at nothing. */
	ck_assert_int_ge(ctx.claim_fd, 0);
	struct rcall_ctx other;
	memset(&other, 0, sizeof(other));
	other.claim_fd = -1;
	t.rc = &other;
	rcall_scratch_adopt(&t);
	ck_assert_int_eq(other.nstale_found + other.nstale_left, 0);
	ck_assert_int_eq(other.claim_fd, -1);
	t.rc = &ctx;
	rcall_label_unlock(&ctx);
	ck_assert_int_eq(ctx.claim_fd, -1);
	/* The thread seen outside it: the upper one goes too. */
	snprintf(line, sizeof(line), "7 0 0 0 0 0 0 %llx 1000", (unsigned long long)(d + 64));
	memset(&ctx, 0, sizeof(ctx));
	ctx.claim_fd = -1;
	rcall_scratch_adopt(&t);
	ck_assert_int_eq(ctx.nstale_found, 3);
	ck_assert_int_eq(ctx.nstale_left, 2);
	rcall_label_unlock(&ctx);
	/* A's owner is pid 1 as it started: alive, left. With another start
	 * time, pid 1 is a reused pid: gone. */
	unsigned long long init_start;
	ck_assert_int_eq(target_thread_stat(1, 1, NULL, 0, &init_start), 0);
	lbl.l[0].owner_pid = 1;
	lbl.l[0].owner_start = init_start;
	memset(&ctx, 0, sizeof(ctx));
	ctx.claim_fd = -1;
	rcall_scratch_adopt(&t);
	ck_assert_int_eq(ctx.nstale_found, 2);
	ck_assert_int_eq(ctx.nstale_left, 3);
	rcall_label_unlock(&ctx);
	lbl.l[0].owner_start = init_start + 1;
	memset(&ctx, 0, sizeof(ctx));
	ctx.claim_fd = -1;
	rcall_scratch_adopt(&t);
	ck_assert_int_eq(ctx.nstale_found, 3);
	rcall_label_unlock(&ctx);
	rcall_reads = real;
}
END_TEST

/* An unwind table found once is used again only while the maps show the
 * same file mapped the same way at the address: an object unloaded during
 * a long run and another loaded in its range gets its own. */
START_TEST(unwind_table_still_current)
{
	struct sym_map v[] = { stack_map(0x7f0000000000, 0x7f0000100000, 1, 0, "/usr/lib/libx.so") };
	v[0].x = 1;
	v[0].inode = 42;
	v[0].offset = 0x1000;
	struct sym_maps maps = { v, 1 };
	const uint64_t ip = 0x7f0000000500, bias = 0x7f0000000000 - 0x1000;
	ck_assert_int_eq(rcall_table_current(42, bias, &maps, ip), 1);
	ck_assert_int_eq(rcall_table_current(42, bias, NULL, ip), 1); /* no round: as found */
	v[0].inode = 43; /* another file there now */
	ck_assert_int_eq(rcall_table_current(42, bias, &maps, ip), 0);
	v[0].inode = 42;
	v[0].offset = 0; /* the same file, mapped otherwise */
	ck_assert_int_eq(rcall_table_current(42, bias, &maps, ip), 0);
	maps.n = 0; /* unloaded */
	ck_assert_int_eq(rcall_table_current(42, bias, &maps, ip), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rcall");
	TCase *tc = tcase_create("memory");
	tcase_add_test(tc, memory_without_a_hold);
	tcase_add_test(tc, stack_room);
	tcase_add_test(tc, kept_scratch_taken_only_as_made);
	tcase_add_test(tc, leftover_scratch_judged);
	tcase_add_test(tc, unwind_table_still_current);
	tcase_add_test(tc, waits_on_itself);
	tcase_add_test(tc, remade_call_caught_again);
	tcase_add_test(tc, wait_kinds);
	tcase_add_test(tc, woken_before_the_interrupt);
	tcase_add_test(tc, stack_known_for_the_first_frames);
	tcase_add_test(tc, children_keep_a_thread);
	tcase_add_test(tc, children_across_threads);
	tcase_add_test(tc, frames_that_make_a_thread_unsafe);
	tcase_add_test(tc, costs_and_ranking);
	tcase_add_test(tc, wait_start_from_the_scheduler);
	tcase_add_test(tc, late_waits_named_all);
	suite_add_tcase(s, tc);
	return check_run(s);
}
