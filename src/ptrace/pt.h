/* SPDX-License-Identifier: BSD-2-Clause */
/* pt_: the ptrace layer. Thin, errno-returning wrappers that know the kernel
 * and nothing of ELF or jemalloc. Every function returns 0 or -errno. */
#ifndef JEATTACH_PT_H
#define JEATTACH_PT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "core_clock.h"
#include "arch.h"

/* Once, before any other pt_ call: blocks SIGCHLD and opens the signalfd
 * pt_wait sleeps on. Without it pt_wait polls. */
int pt_init(void);

int pt_seize(pid_t tid);
int pt_interrupt(pid_t tid);
int pt_cont(pid_t tid, int sig);
int pt_singlestep(pid_t tid);
/* Resume until the next syscall entry or exit (PTRACE_SYSCALL). */
int pt_syscall(pid_t tid, int sig);
/* PTRACE_GET_SYSCALL_INFO (Linux 5.3): what a syscall stop is. */
struct __ptrace_syscall_info;
int pt_get_syscall_info(pid_t tid, struct __ptrace_syscall_info *info, size_t len);
int pt_detach(pid_t tid, int sig);
/* The system call tid is blocked in, from /proc/TID/syscall (b->valid 0
 * when it is in none, or running). Needs no stop. */
int pt_blocked_call(pid_t tid, struct arch_blocked_call *b);
/* The same from a syscall file's text already read. */
void pt_parse_blocked_call(const char *text, struct arch_blocked_call *b);

/* Wait for the next ptrace event of tid until deadline; -ETIMEDOUT when it
 * passes. *status is waitpid's. */
int pt_wait(pid_t tid, core_usec_t deadline, int *status);

int pt_get_gpregs(pid_t tid, arch_gpregs_t *r);
int pt_set_gpregs(pid_t tid, const arch_gpregs_t *r);
/* The architecture's full FP/vector state; *len in: buffer size, out: used. */
int pt_get_fpstate(pid_t tid, void *buf, size_t *len);
int pt_set_fpstate(pid_t tid, const void *buf, size_t len);
int pt_get_sigmask(pid_t tid, uint64_t *mask);
int pt_set_sigmask(pid_t tid, uint64_t mask);
int pt_get_siginfo(pid_t tid, siginfo_t *si);
/* The index'th seccomp filter of a stopped tracee (0: the newest), as
 * classic BPF instructions (8 bytes each) into buf, at most max of them;
 * buf NULL: only the count. Returns the count or -errno (-ENOENT past the
 * last filter; -EACCES without CAP_SYS_ADMIN). PTRACE_SECCOMP_GET_FILTER,
 * Linux 4.4, CONFIG_CHECKPOINT_RESTORE. */
int pt_seccomp_filter(pid_t tid, unsigned long index, void *buf, size_t max);

/* Memory of a process (any thread of it). Short reads are -EFAULT. */
int pt_read(pid_t pid, uint64_t addr, void *buf, size_t len);
int pt_write(pid_t pid, uint64_t addr, const void *buf, size_t len);
/* Read a NUL-terminated string of at most cap-1 bytes. */
int pt_read_string(pid_t pid, uint64_t addr, char *buf, size_t cap);

#endif
