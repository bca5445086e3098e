/* SPDX-License-Identifier: BSD-2-Clause */
/* Why a system call the target made for jeattach failed, told from what
 * is there, never guessed: a message may blame a seccomp filter only when
 * the thread has one (/proc/PID/task/TID/status "Seccomp:", 0 = none,
 * kernel/seccomp.c, proc_pid_status -> task_seccomp), descriptors only
 * when the process has too few free below its RLIMIT_NOFILE (a new
 * descriptor is the lowest free number, EMFILE when that is not below the
 * soft limit: fs/file.c, alloc_fd). Before, a process with no free
 * descriptor was told "a seccomp filter or an old kernel forbids it" and
 * "is open() forbidden by seccomp?" with no filter anywhere. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "act.h"
#include "core_read.h"
#include "rcall.h"
#include "target_limits.h"
#include "target_struct.h"

/* The held thread's, else the process's "Seccomp:" mode: 0 none, 1
 * strict, 2 filter; -1 unknown. */
static int seccomp_mode(const struct target *t)
{
	pid_t tid = t->rc ? rcall_held_tid(t) : 0;
	char *text = target_thread_status(t->io_pid, tid > 0 ? tid : t->io_pid);
	if (!text)
		return -1;
	const char *v = target_status_field(text, "Seccomp");
	int mode = v ? atoi(v) : 0;
	free(text);
	return mode;
}

void act_syscall_cause(const struct target *t, const char *call, int err, char *buf, size_t len)
{
	int mode = seccomp_mode(t);
	switch (err) {
	case EMFILE: {
		/* The kernel's word stands; the counts are a later look (the
		 * program's own threads open and close meanwhile). */
		char counts[120] = "";
		struct target_limits l;
		target_limits_read(t->io_pid, &l);
		if (l.nofile)
			snprintf(counts, sizeof(counts), ": RLIMIT_NOFILE %llu, %llu free",
				 (unsigned long long)l.nofile, (unsigned long long)l.fds_free);
		snprintf(buf, len, "the process has no free file descriptor (EMFILE%s); close some "
			 "or raise its limit (prlimit --pid %d --nofile=SOFT:HARD)", counts,
			 (int)t->pid);
		return;
	}
	case ENFILE:
		snprintf(buf, len, "the system's file table is full (ENFILE, fs.file-max)");
		return;
	case ENOMEM:
		snprintf(buf, len, "the kernel is out of memory for it (ENOMEM)");
		return;
	case ENOSYS:
	case EPERM:
	case EACCES:
		if (mode > 0) {
			snprintf(buf, len, "%s (%s): the thread runs under a seccomp %s (Seccomp: %d in "
				 "/proc/%d/status) that refuses it; relax the filter (systemd: "
				 "SystemCallFilter=)", call, strerror(err), mode == 1 ? "strict mode" :
				 "filter", mode, (int)t->pid);
			return;
		}
		if (err == ENOSYS) {
			snprintf(buf, len, "this kernel has no %s (ENOSYS); no seccomp filter is in "
				 "place", call);
			return;
		}
		snprintf(buf, len, "%s (%s), with no seccomp filter in place: a security module "
			 "(SELinux, AppArmor) may deny it; check the audit log", call, strerror(err));
		return;
	default:
		snprintf(buf, len, "%s: %s", call, strerror(err));
	}
}

enum ja_exit act_syscall_failed(struct target *t, struct act_result *r, const char *doing,
				const char *call, int err)
{
	char why[400];
	act_syscall_cause(t, call, err, why, sizeof(why));
	return act_fail(r, JA_EXIT_UNSAFE, "%s: %s in the target failed: %s; nothing was changed",
			doing, call, why);
}
