/* SPDX-License-Identifier: BSD-2-Clause */
/* rcall_: calling functions and system calls inside a held target thread.
 * Knows ptrace (through pt_) and the ABI (through arch_), never jemalloc.
 * Transport failure and remote result are kept apart (compel's style): the
 * return value is 0 or -errno for "could not do it", the callee's own result
 * comes back through an out-parameter. */
#ifndef JEATTACH_RCALL_H
#define JEATTACH_RCALL_H

#include <stddef.h>
#include <stdint.h>
#include "target.h"

/* The injected code faulted (SIGSEGV, SIGBUS, SIGSYS from seccomp...):
 * rcall returns -ECANCELED and this gives the signal. */
int rcall_fault_signal(const struct target *t);

/* The first syscall number the target's seccomp filter trapped (SIGSYS)
 * during the last injected call, answered with -EPERM; 0 if none. */
int rcall_seccomp_denied(const struct target *t);

/* Are calls in this hold crash-safe (they end in rt_sigreturn, so the
 * thread restores itself even if jeattach dies), or do they return to the
 * trap address (a dead jeattach leaves the thread to fault there)? */
int rcall_crash_safe(const struct target *t);

/* Call fn(args...) in the held thread; *ret gets its return value. */
int rcall(struct target *t, uint64_t fn, const uint64_t *args, int nargs, uint64_t *ret);
/* Make system call nr in the held thread; *ret gets the raw result (-errno
 * on failure, as the kernel returns it). No libc involved, errno untouched. */
int rcall_syscall(struct target *t, long nr, const uint64_t *args, int nargs, long *ret);

/* Scratch memory on the held thread's stack, below the red zone; freed
 * (and the original bytes restored) at target_release. */
int rcall_push(struct target *t, const void *data, size_t len, uint64_t *addr);
int rcall_push_string(struct target *t, const char *s, uint64_t *addr);
/* Forget all pushes (between actions); bytes are restored at release anyway. */
void rcall_scratch_reset(struct target *t);
/* The held thread's id, or 0. */
pid_t rcall_held_tid(const struct target *t);

/* Safe point (rcall_safe.c): 1 if tid, stopped with registers r, may be
 * borrowed; 0 with a reason in why if not; <0 on error. */
int rcall_thread_is_safe(struct target *t, pid_t tid, const arch_gpregs_t *r, char *why,
			 size_t whylen);
void rcall_unwind_free(struct target *t);

#endif
