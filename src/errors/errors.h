/* SPDX-License-Identifier: BSD-2-Clause */
/* The error list. The engine's own failure codes (what errno has no word
 * for) travel negated, like -errno, through the same int returns; they start
 * past the kernel's errno range (MAX_ERRNO is 4095, include/linux/err.h) so
 * that no errno is ever given a private meaning. One table (errors.c) turns
 * codes and errnos into exit codes and messages. */
#ifndef JEATTACH_ERRORS_H
#define JEATTACH_ERRORS_H

#include <stddef.h>
#include <sys/types.h>
#include "exitcode.h"

/* X(NAME, exit code, what it means) */
#define JA_ERRORS(X)                                                                      \
	X(THREAD_ID, JA_EXIT_USAGE, "a thread id was given where a process id belongs")    \
	X(ZOMBIE, JA_EXIT_GONE, "the process is a zombie")                                 \
	X(KERNEL_THREAD, JA_EXIT_UNSAFE, "the process is a kernel thread")                 \
	X(CLASS32, JA_EXIT_UNSAFE, "the process or a thread of it runs 32-bit code")       \
	X(NO_SYSCALL_INSN, JA_EXIT_INTERNAL, "no syscall instruction in the target's code") \
	X(NOT_THREAD, JA_EXIT_USAGE, "the thread asked for is not a thread of the process") \
	X(FAULT, JA_EXIT_UNSAFE, "an injected call faulted")                               \
	X(SECCOMP, JA_EXIT_UNSAFE, "the target's seccomp filter killed an injected call")   \
	X(SCRATCH, JA_EXIT_INTERNAL, "the value does not fit the scratch space")           \
	X(NOT_PROFILE, JA_EXIT_MALLCTL, "jemalloc wrote something that is not a profile")    \
	X(LEFT, JA_EXIT_INTERNAL, "jeattach left while a call ran; the thread finishes it")   \
	X(SECCOMP_KILL, JA_EXIT_UNSAFE, "the target's seccomp filter would kill it")          \
	X(SECCOMP_UNREADABLE, JA_EXIT_UNSAFE, "the target's seccomp filter cannot be read")  \
	X(FROZEN, JA_EXIT_UNSAFE, "the process is frozen by its cgroup")                     \
	X(STOPPED_LOCK, JA_EXIT_UNSAFE, "a stopped thread may hold a lock the call needs")   \
	X(NO_SCRATCH, JA_EXIT_UNSAFE, "no scratch memory can be mapped in the target")      \
	X(SELFLOCK, JA_EXIT_UNSAFE, "the injected call waited on its own thread's lock")    \
	X(INTERRUPTED, JA_EXIT_INTERNAL, "stopped before a thread was held")

enum ja_err {
	JA_ERR_BASE = 4096,
#define JA_ERR_ENUM(name, exit, text) JA_ERR_##name,
	JA_ERRORS(JA_ERR_ENUM)
#undef JA_ERR_ENUM
	JA_ERR_END
};

/* What a code (positive: an errno or a ja_err) means, in a few words. */
const char *ja_err_text(int code);

/* Why a failure happened, as data: the engine records it beside the code it
 * returns (target_reason), the caller decides on it by its kind, and
 * ja_reason_render (errors_reason.c) says it in words, the message's
 * {why}. A detail is text from a layer that has its own words (the symbol
 * search, a thread's safe-point verdict, a cgroup's account). */
enum ja_why {
	JA_WHY_NONE,
	JA_WHY_TEXT,            /* detail */
	JA_WHY_NO_SYSCALL_INSN,
	JA_WHY_NOT_THREAD,      /* tid is not a thread of pid */
	JA_WHY_STOPPED_PEER,    /* detail: which thread, why it may hold a lock */
	JA_WHY_FROZEN,          /* detail: the cgroup's account */
	JA_WHY_FROZEN_IN_CALL,  /* detail: the cgroup's account */
	JA_WHY_NO_SAFE_POINT,   /* detail: the last thread's verdict, or none */
	JA_WHY_TIMED_WAITS,     /* detail: the threads in timed waits; n: the
				 * --timeout that sees tid's next wait begin */
	JA_WHY_NO_SCRATCH,      /* err from the mmap of n KiB */
	JA_WHY_NO_DONTFORK,     /* err from madvise */
	JA_WHY_SELFLOCK,        /* tid waited on the mutex at addr */
	JA_WHY_LEFT,            /* tid finishes the call */
	JA_WHY_CALL_SIGNAL,     /* sig at addr */
	JA_WHY_SECCOMP_UNREADABLE, /* tid's filter n: err */
	JA_WHY_SECCOMP_TOO_MANY,   /* tid has more than n filters */
	JA_WHY_SECCOMP_KILLS,   /* detail: the call; n: the filter's action */
};

struct ja_reason {
	enum ja_why kind;
	pid_t pid, tid;
	int sig, err;
	unsigned long long addr, n;
	char detail[200];
};

/* The words of r ("" for none), at most len - 1 bytes. */
void ja_reason_render(const struct ja_reason *r, char *buf, size_t len);
/* Do r's words end in what to do, so that the message adds no fix of
 * its own? */
int ja_reason_own_fix(const struct ja_reason *r);

/* Where in a run a failure happened: the same code says different things
 * (ESRCH while reading /proc is "no such process", during a call "the
 * process exited"). */
enum ja_stage {
	JA_AT_OPEN,   /* target_open: reading /proc */
	JA_AT_LOCATE, /* target_locate, rcall_prepare, rproc_prepare */
	JA_AT_ATTACH, /* rcall_hold */
	JA_AT_CALL,   /* an action's remote calls */
	JA_AT_RELEASE, /* rcall_release: putting the borrowed thread back */
};

/* What a message may name. */
struct ja_err_ctx {
	pid_t pid;
	const char *why;    /* the engine's reason in words (ja_reason_render), or "" */
	const char *doing;  /* JA_AT_CALL: "cannot dump a heap profile"... */
	const char *prefix; /* --prefix, or NULL */
	int own_fix;        /* why ends in what to do (ja_reason_own_fix) */
	/* Why ptrace is refused and what to do (cli_diag), asked for only by
	 * the messages that need it: finding out reads every thread's status. */
	void (*denied)(void *arg, char *buf, size_t len);
	void *arg;
};

/* The one mapping from a failure (-errno or -JA_ERR_*, at a stage) to an
 * exit code and a one-line "what happened: why; what to do" (errors.c's
 * table). Writes the line into buf and returns the exit code. */
enum ja_exit ja_err_explain(enum ja_stage stage, int e, const struct ja_err_ctx *c, char *buf,
			    size_t len);

#endif
