/* SPDX-License-Identifier: BSD-2-Clause */
/* rproc_: the process services actions need besides mallctl, each one made
 * inside the held thread: a pipe, closing a descriptor, jemalloc's
 * malloc_stats_print collected into memory the target maps for the
 * occasion. Built on rcall_ as rctl_ is; actions use these two layers and
 * never a register, a ptrace request or a raw system call number.
 * Transport failure is the return value (0, -errno or -JA_ERR_*); what the
 * target's system call answered comes back through an out-parameter. */
#ifndef JEATTACH_RPROC_H
#define JEATTACH_RPROC_H

#include <stdint.h>
#include "target.h"

enum rproc_need {
	RPROC_STATS_PRINT = 1, /* rproc_stats_print or rproc_collect will be called */
};

/* Before the hold: look up what the needed services call (a libc function
 * found in ELF symbol tables takes milliseconds: never while a thread is
 * held). needs: enum rproc_need bits. */
int rproc_prepare(struct target *t, unsigned needs);
void rproc_free(struct target *t);

/* pipe2(fds, flags) in the target: *ret 0 and fds[0] (read end), fds[1]
 * (write end) its descriptors there, or *ret -errno as its kernel
 * answered. */
int rproc_pipe(struct target *t, int flags, long fds[2], long *ret);
/* close(fd) in the target: *ret 0 or -errno. */
int rproc_close(struct target *t, long fd, long *ret);
/* What a use will make the target do, for the seccomp check. */
enum rproc_use {
	RPROC_USE_DUMP,        /* pipe2, jemalloc's prof.dump, close */
	RPROC_USE_STATS_PRINT, /* mmap, mprotect, malloc_stats_print, munmap */
};
/* Would the held thread's seccomp filters kill the process or the thread on
 * a system call this use makes (the injected ones, and those jemalloc makes
 * inside the call, with the arguments it passes)? 0 if not (ERRNO and TRAP
 * answers are handled as the calls run); -JA_ERR_SECCOMP_KILL with the
 * call named in its reason (JA_WHY_SECCOMP_KILLS); -JA_ERR_SECCOMP_UNREADABLE. Filters that decide by
 * an argument jemalloc passes differently than assumed here (or by the
 * instruction pointer) are not foreseen. */
int rproc_check_seccomp(struct target *t, enum rproc_use use);

/* The first system call a seccomp filter trapped during the last service
 * or mallctl call (answered with EPERM so the callee went on), or 0. */
int rproc_seccomp_denied(const struct target *t);

/* Collect what a jemalloc writer prints through its write_cb: fn, under the
 * hold, makes the call with write_cb and cbopaque as given (a callback
 * that appends to buf); *text gets it all (malloc'd, NUL-terminated).
 * *remote_errno: the target's mmap refused. max: read at most this many
 * bytes (0: all the room there was); -E2BIG if it is longer: the target
 * chose that length. Needs RPROC_STATS_PRINT. */
typedef int (*rproc_writer_fn)(struct target *t, uint64_t write_cb, uint64_t buf, void *arg);
int rproc_collect(struct target *t, rproc_writer_fn fn, void *arg, size_t max, char **text,
		  int *remote_errno);
/* Can rproc_stats_print work here (a libc strcat was found)? */
int rproc_has_stats_print(const struct target *t);
/* jemalloc's malloc_stats_print(opts) output, whole, into *text
 * (malloc'd, NUL-terminated). *remote_errno: the target's mmap refused.
 * max: read at most this many bytes of it (0: all the room jemalloc had);
 * -E2BIG if it is longer: the target chose that length. */
int rproc_stats_print(struct target *t, const char *opts, size_t max, char **text,
		      int *remote_errno);

#endif
