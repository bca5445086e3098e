/* SPDX-License-Identifier: BSD-2-Clause */
/* Why a system call the target made for jeattach failed, told from what
 * is there, never guessed: a message may blame a seccomp filter only when
 * the thread has one (/proc/PID/task/TID/status "Seccomp:", 0 = none,
 * kernel/seccomp.c, proc_pid_status -> task_seccomp), descriptors only
 * when the process has too few free below its RLIMIT_NOFILE (a new
 * descriptor is the lowest free number, EMFILE when that is not below the
 * soft limit: fs/file.c, alloc_fd), /proc only when the target's root has
 * no procfs at /proc. Before, a process with no free descriptor was told
 * "a seccomp filter or an old kernel forbids it" and "is open() forbidden
 * by seccomp?" with no filter anywhere. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include "act.h"
#include "core_read.h"
#include "rcall.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0 /* include/uapi/linux/magic.h */
#endif

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

int act_fd_room(const struct target *t, struct act_fd_room *room)
{
	char path[64], *text;
	memset(room, 0, sizeof(*room));
	snprintf(path, sizeof(path), "/proc/%d/limits", (int)t->io_pid);
	if (core_read_file(path, CORE_READ_PROC_MAX, &text, NULL))
		return -1;
	const char *l = strstr(text, "\nMax open files");
	int ok = l && sscanf(l + 15, " %llu", &room->limit) == 1;
	free(text);
	if (!ok) /* "unlimited" is not possible for RLIMIT_NOFILE (nr_open) */
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)t->io_pid);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		room->open++;
		if (strtoull(de->d_name, NULL, 10) < room->limit)
			room->below++;
	}
	closedir(d);
	room->free = room->limit > room->below ? room->limit - room->below : 0;
	return 0;
}

/* Is there a procfs at /proc in the target's root (and mount namespace)? */
static int proc_mounted(const struct target *t)
{
	char path[64];
	struct statfs sf;
	snprintf(path, sizeof(path), "/proc/%d/root/proc", (int)t->io_pid);
	if (statfs(path, &sf))
		return -1;
	return sf.f_type == PROC_SUPER_MAGIC;
}

static void no_room(const struct target *t, const struct act_fd_room *room, const char *need,
		    char *buf, size_t len)
{
	snprintf(buf, len, "the process has %llu free file descriptor%s (RLIMIT_NOFILE %llu, %llu "
		 "open) and %s; close some or raise its limit (prlimit --pid %d --nofile=SOFT:HARD)",
		 room->free, room->free == 1 ? "" : "s", room->limit, room->open, need, (int)t->pid);
}

void act_syscall_cause(const struct target *t, const char *call, int err, char *buf, size_t len)
{
	struct act_fd_room room;
	int mode = seccomp_mode(t);
	switch (err) {
	case EMFILE: {
		/* The kernel's word stands; the counts are a later look (the
		 * program's own threads open and close meanwhile). */
		char counts[120] = "";
		if (!act_fd_room(t, &room))
			snprintf(counts, sizeof(counts), ": RLIMIT_NOFILE %llu, %llu open", room.limit,
				 room.open);
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

enum je_exit act_memfd_failed(struct target *t, struct act_result *r, const char *doing, int err)
{
	char why[400];
	act_syscall_cause(t, "memfd_create", err, why, sizeof(why));
	return act_fail(r, JE_EXIT_UNSAFE, "%s: memfd_create in the target failed: %s; nothing "
			"was changed", doing, why);
}

enum je_exit act_dump_file_failed(struct target *t, struct act_result *r, const char *doing,
				  int merr)
{
	char why[400];
	struct act_fd_room room;
	/* jemalloc's prof.dump says only EFAULT when its file cannot be
	 * opened or written (prof_dump_open -> EFAULT in prof_dump); it opens
	 * two descriptors at once: its file and /proc/self/maps for
	 * MAPPED_LIBRARIES (prof_dump_maps). */
	int mode = seccomp_mode(t), proc = proc_mounted(t);
	if (!act_fd_room(t, &room) && room.free < 2)
		no_room(t, &room, "jemalloc needs two (its file and /proc/self/maps)", why,
			sizeof(why));
	else if (proc == 0)
		snprintf(why, sizeof(why), "/proc is not mounted in the process's root; mount "
			 "procfs there");
	else if (mode > 0)
		snprintf(why, sizeof(why), "the thread runs under a seccomp %s (Seccomp: %d in "
			 "/proc/%d/status) that may refuse open() with an error; check the filter "
			 "(systemd: SystemCallFilter=)", mode == 1 ? "strict mode" : "filter", mode,
			 (int)t->pid);
	else
		snprintf(why, sizeof(why), "it has free descriptors, /proc is mounted and no seccomp "
			 "filter is in place; a security module (SELinux, AppArmor) may deny it; "
			 "check the audit log");
	return act_fail(r, merr == EFAULT ? JE_EXIT_OUTPUT : JE_EXIT_MALLCTL,
			"%s: jemalloc's prof.dump failed (%s): it could not open or write its file "
			"in the target: %s", doing, strerror(merr), why);
}
