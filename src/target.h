/* SPDX-License-Identifier: BSD-2-Clause */
/* target: one process jeattach works on. The state struct every layer takes
 * first (strace's struct tcb, compel's struct parasite_ctl). Lifecycle, one
 * prefix, in order: target_open -> target_hold -> rcall... -> target_release
 * -> target_close. */
#ifndef JEATTACH_TARGET_H
#define JEATTACH_TARGET_H

#include <stdint.h>
#include <sys/types.h>
#include "arch.h"
#include "pt.h"
#include "sym.h"
#include "sym_maps.h"

/* Why target_open refused, for the CLI's message. */
struct target_info {
	char comm[64];
	char state;           /* /proc/PID/status State letter */
	pid_t tracer;         /* TracerPid of the first traced thread, 0 if none */
	char tracer_comm[64];
	uid_t uid;
	int seccomp;          /* 0 none, 1 strict, 2 filter */
	int shadow_stack;     /* x86 user shadow stack enabled (6.6+ status line) */
	int kernel_thread;
	int elf_class;        /* of /proc/PID/exe; 0 unknown */
	pid_t ns_pid;         /* the pid inside its own pid namespace (NSpid) */
};

struct target_hold_state;

struct target {
	pid_t pid;
	struct target_info info;
	struct sym_maps maps;
	struct sym_jemalloc je;        /* where jemalloc and its functions are */
	uint64_t syscall_insn;         /* a `syscall` instruction in the target's text */
	uint64_t errno_location;       /* libc's __errno_location, 0 if none */
	/* Crash-safe calls (rcall_return.c); ret_restorer 0 if not possible. */
	uint64_t ret_restorer;         /* libc's rt_sigreturn restorer (__restore_rt) */
	uint64_t ret_gadget;           /* mov %rax,(%rbx); pop*; ret */
	int ret_gadget_pops;
	uint64_t syscall_fn;           /* libc's syscall(), for crash-safe syscalls */
	int want_strcat;               /* look up strcat (for --stats=full) */
	uint64_t strcat_fn;            /* libc's strcat, or its IFUNC resolver */
	int strcat_ifunc;
	void *unwind_as;               /* libunwind address space, made once */
	void *unwind_tables;           /* unwind tables found so far (rcall_safe.c) */
	struct target_hold_state *hold; /* non-NULL while a thread is held */
	/* Timing of holds, for --json's hold_us_max / hold_us_total. */
	int64_t hold_us_max, hold_us_total;
	int nholds;
	int crash_safe_holds;          /* holds whose calls were all crash-safe */
	pid_t only_tid;                /* --tid: borrow this thread only */
	pt_usec_t deadline;            /* --timeout, as a CLOCK_MONOTONIC instant */
	char why[256];                 /* detail behind the last error, for the CLI */
};

/* Read /proc for pid (no stop yet). Errors: -ESRCH (no such process),
 * -EPERM/-EACCES, and for processes jeattach cannot work on:
 * -ENOEXEC (32-bit), -EINVAL (kernel thread), -ECHILD (zombie). */
int target_open(struct target *t, pid_t pid);
/* Find jemalloc in it; prefix NULL: try the known ones. */
int target_locate(struct target *t, const char *prefix);
void target_close(struct target *t);
/* Record why something failed, for the message the CLI prints. */
void target_why(struct target *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Is the process still there, and not a zombie? */
int target_alive(const struct target *t);
/* Fill info.tracer / tracer_comm from any thread's TracerPid. */
void target_find_tracer(struct target *t);
/* The ids of pid's threads, leader first; count or -errno. */
int target_threads(pid_t pid, pid_t *tids, int max);

/* Hold one thread at a safe point (see rcall_safe.c). */
int target_hold(struct target *t);
/* Restore the held thread exactly and let it go. Safe to call when nothing is held. */
int target_release(struct target *t);

#endif
