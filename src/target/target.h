/* SPDX-License-Identifier: BSD-2-Clause */
/* target: one process jeattach works on, as /proc and its symbol tables
 * describe it. The state struct every layer takes first (strace's struct
 * tcb, compel's struct parasite_ctl). Lifecycle: target_open ->
 * target_locate -> (rcall_prepare .. rcall_free, see rcall.h) ->
 * target_close. */
#ifndef JEATTACH_TARGET_H
#define JEATTACH_TARGET_H

#include "errors.h"

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
	/* Who the process was when opened (target_fate_mark): its leader's
	 * start time (the process, across pid reuse; an execve keeps it),
	 * its program (the /proc/PID/exe link and the file behind it, still
	 * itself once deleted), where its image lies (stat's startcode and
	 * startstack: a new image, even of the same program, lies elsewhere
	 * under ASLR); 0 where unknown. */
	unsigned long long start, startcode, startstack, exe_dev, exe_ino;
	char exe[256];
};

/* The private contexts of the layers above, opaque here (strace's struct
 * tcb carries its layers' state the same way): made and freed by their own
 * modules, never looked into by this one. */
struct rcall_ctx; /* rcall_prepare .. rcall_free: gadgets, unwinder, the hold */
struct rproc_ctx; /* rproc_prepare .. rproc_free: libc functions the services call */

/* The target (target_struct.h): opaque outside the engine; the command
 * line reads it through the functions below. */
struct target;

/* A target, empty (calloc'd), for target_open; target_delete frees it
 * after target_close. */
struct target *target_new(void);
void target_delete(struct target *t);
pid_t target_pid(const struct target *t);
/* Whose /proc entry and memory stand for the process (target_struct.h). */
pid_t target_io_pid(const struct target *t);
const struct target_info *target_get_info(const struct target *t);
const struct sym_jemalloc *target_jemalloc(const struct target *t);
/* Code where no thread may be borrowed, as if it were the allocator's
 * (the sampler's hooks: they run inside jemalloc's calls). 0 or -ENOMEM. */
int target_add_unsafe(struct target *t, uint64_t start, uint64_t end);
size_t target_nmaps(const struct target *t);

/* Read /proc for pid (no stop yet). Errors: -ESRCH (no such process),
 * -EPERM/-EACCES, and for processes jeattach cannot work on (errors.h):
 * -JA_ERR_THREAD_ID, -JA_ERR_KERNEL_THREAD, -JA_ERR_ZOMBIE, -JA_ERR_CLASS32. */
int target_open(struct target *t, pid_t pid);
/* Find jemalloc in it; prefix NULL: try the known ones. */
int target_locate(struct target *t, const char *prefix);
/* Free what target_open and target_locate made. The layers' contexts must
 * be freed first (rcall_free, rproc_free): this module does not know them. */
void target_close(struct target *t);
/* Record why something failed (r's pid is filled in), for the caller to
 * decide on and errors.c to say. */
void target_reason(struct target *t, struct ja_reason r);
/* A reason that is text from a layer with its own words (JA_WHY_TEXT, or
 * kind with that detail). */
void target_reason_text(struct target *t, enum ja_why kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
const struct ja_reason *target_last_reason(const struct target *t);
/* The reason in words, for a message's {why}. */
void target_why_text(const struct target *t, char *buf, size_t len);

/* What became of the process, for a message that tells it truly
 * (target_fate.c): AS_WAS (alive, the same program), EXECED (the pid lives
 * on, another program: an execve), GONE (exited, killed, or a zombie).
 * buf gets the phrase: "the process replaced its program (execve: now
 * /usr/bin/sleep)", "the process was killed by signal 9 (SIGKILL)", "the
 * process exited with status 3", "the process exited" (cause unknown). */
enum target_fate { TARGET_AS_WAS, TARGET_EXECED, TARGET_GONE };
enum target_fate target_fate(const struct target *t, char *buf, size_t len);
/* Record who it is (target_open), for target_fate to compare with. */
void target_fate_mark(struct target *t);
/* A traced thread of it ended with this waitpid status (rcall). */
void target_thread_ended(struct target *t, int status);

/* Is the process frozen by a cgroup freezer (target_frozen.c)? 1 with the
 * file that says so in why, 0 no or unknown. */
int target_frozen(const struct target *t, char *why, size_t wlen);
/* Is the process still there, and not a zombie? */
int target_alive(const struct target *t);
/* Fill info.tracer / tracer_comm from any thread's TracerPid. */
void target_find_tracer(struct target *t);
/* Thread tid of pid's /proc status text (the caller frees it), or NULL. */
char *target_thread_status(pid_t pid, pid_t tid);
/* The value after "Key:" (blanks skipped) in a /proc status text, or NULL. */
const char *target_status_field(const char *text, const char *key);
/* The hexadecimal fields keys[0..n) of thread tid's /proc status (the
 * signal masks: SigPnd, SigBlk...) into v, 0 for one that is missing; -1
 * (v untouched) if the status cannot be read. */
int target_thread_hex_fields(pid_t pid, pid_t tid, const char *const *keys, int n, uint64_t *v);
/* Thread tid of pid's scheduler state letter (R, S, D, T, Z...), '?' if
 * it cannot be read. */
char target_thread_state(pid_t pid, pid_t tid);
/* The ids of pid's threads, leader first; count or -errno. */
int target_threads(pid_t pid, pid_t *tids, int max);
/* Thread tid's comm and start time (stat's field 22, clock ticks since
 * boot), the identity of a thread across tid reuse; -1 when gone. */
int target_thread_stat(pid_t pid, pid_t tid, char *comm, size_t clen, unsigned long long *start);
/* se.exec_start of a /proc/PID/task/TID/sched text, in microseconds on
 * its CPU's scheduler task clock (kernel/sched/debug.c prints it in ms);
 * -1 if absent. */
int64_t target_sched_exec_start_us(const char *text);
/* The CPU a task last ran on, from its /proc stat text (field 39); -1. */
int target_stat_cpu(const char *text);
/* Seconds since boot, in clock ticks (the unit of a thread's start time). */
double target_uptime_ticks(void);
/* How long thread tid has lived, in seconds; -1 when gone. */
int target_thread_age(pid_t pid, pid_t tid, double *seconds);

#endif
