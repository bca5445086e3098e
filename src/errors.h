/* SPDX-License-Identifier: BSD-2-Clause */
/* The engine's own failure codes: what errno has no word for. Each travels
 * negated, like -errno, through the same int returns; they start past the
 * kernel's errno range (MAX_ERRNO is 4095, include/linux/err.h) so that no
 * errno is ever given a private meaning. The CLI turns codes and errnos into
 * messages and exit codes in one place (cli_error.c). */
#ifndef JEATTACH_ERRORS_H
#define JEATTACH_ERRORS_H

#include "exitcode.h"

/* X(NAME, exit code, what it means) */
#define JE_ERRORS(X)                                                                      \
	X(THREAD_ID, JE_EXIT_USAGE, "a thread id was given where a process id belongs")    \
	X(ZOMBIE, JE_EXIT_GONE, "the process is a zombie")                                 \
	X(KERNEL_THREAD, JE_EXIT_UNSAFE, "the process is a kernel thread")                 \
	X(CLASS32, JE_EXIT_UNSAFE, "the process or a thread of it runs 32-bit code")       \
	X(NO_SYSCALL_INSN, JE_EXIT_INTERNAL, "no syscall instruction in the target's code") \
	X(FAULT, JE_EXIT_UNSAFE, "an injected call faulted")                               \
	X(SECCOMP, JE_EXIT_UNSAFE, "the target's seccomp filter killed an injected call")   \
	X(SCRATCH, JE_EXIT_INTERNAL, "the value does not fit the scratch space")           \
	X(NOT_PROFILE, JE_EXIT_MALLCTL, "jemalloc wrote something that is not a profile")

enum je_err {
	JE_ERR_BASE = 4096,
#define JE_ERR_ENUM(name, exit, text) JE_ERR_##name,
	JE_ERRORS(JE_ERR_ENUM)
#undef JE_ERR_ENUM
	JE_ERR_END
};

/* What a code (positive: an errno or a je_err) means, in a few words. */
const char *je_err_text(int code);
/* The exit code a je_err implies; JE_EXIT_INTERNAL for an errno. */
enum je_exit je_err_exit(int code);

#endif
