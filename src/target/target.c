/* SPDX-License-Identifier: BSD-2-Clause */
/* target_open / target_close: what /proc says about a process, before any
 * thread is stopped. */
#include "config.h"

#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include "core_read.h"
#include "errors.h"
#include "target_struct.h"

struct target *target_new(void)
{
	return calloc(1, sizeof(struct target));
}

void target_delete(struct target *t)
{
	free(t);
}

pid_t target_pid(const struct target *t)
{
	return t->pid;
}

pid_t target_io_pid(const struct target *t)
{
	return t->io_pid;
}

const struct target_info *target_get_info(const struct target *t)
{
	return &t->info;
}

int target_add_unsafe(struct target *t, uint64_t start, uint64_t end)
{
	int e = sym_ranges_add(&t->je.unsafe, start, end);
	if (!e) /* looked up by binary search: kept sorted */
		sym_ranges_sort(&t->je.unsafe);
	return e;
}

const struct sym_jemalloc *target_jemalloc(const struct target *t)
{
	return &t->je;
}

size_t target_nmaps(const struct target *t)
{
	return t->maps.n;
}

void target_reason(struct target *t, struct ja_reason r)
{
	r.pid = t->pid;
	t->reason = r;
}

void target_reason_text(struct target *t, enum ja_why kind, const char *fmt, ...)
{
	struct ja_reason r = { .kind = kind };
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r.detail, sizeof(r.detail), fmt, ap);
	va_end(ap);
	target_reason(t, r);
}

const struct ja_reason *target_last_reason(const struct target *t)
{
	return &t->reason;
}

void target_why_text(const struct target *t, char *buf, size_t len)
{
	ja_reason_render(&t->reason, buf, len);
}

static void read_comm(pid_t pid, char *buf, size_t len)
{
	char path[64], *text;
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	buf[0] = 0;
	if (core_read_file(path, CORE_READ_PROC_MAX, &text, NULL))
		return;
	text[strcspn(text, "\n")] = 0;
	snprintf(buf, len, "%s", text);
	free(text);
}

/* The status of pid's thread tid (its own for tid == pid). */
static int read_status(pid_t pid, pid_t tid, struct target_info *in)
{
	char path[80], *text;
	if (tid == pid)
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	int e = core_read_file(path, CORE_READ_PROC_MAX, &text, NULL);
	if (e)
		return e == -ENOENT ? -ESRCH : e;
	const char *v;
	if ((v = target_status_field(text, "Name")))
		snprintf(in->comm, sizeof(in->comm), "%.*s", (int)strcspn(v, "\n"), v);
	if ((v = target_status_field(text, "State")))
		in->state = *v;
	if ((v = target_status_field(text, "TracerPid")))
		in->tracer = (pid_t)atoi(v);
	if ((v = target_status_field(text, "Uid")))
		in->uid = (uid_t)strtoul(v, NULL, 10);
	if ((v = target_status_field(text, "Seccomp")))
		in->seccomp = atoi(v);
	/* The last number of NSpid is the pid in the innermost namespace. */
	if ((v = target_status_field(text, "NSpid"))) {
		const char *end = v + strcspn(v, "\n");
		const char *last = v;
		for (const char *p = v; p < end; p++)
			if (isspace((unsigned char)*p) && p + 1 < end && !isspace((unsigned char)p[1]))
				last = p + 1;
		in->ns_pid = (pid_t)atoi(last);
	}
	/* Linux 6.6+ with CONFIG_X86_USER_SHADOW_STACK: "x86_Thread_features: shstk". */
	if ((v = target_status_field(text, "x86_Thread_features")))
		in->shadow_stack = !strncmp(v, "shstk", 5) || strstr(v, " shstk") != NULL;
	int tgid = (v = target_status_field(text, "Tgid")) ? atoi(v) : pid;
	free(text);
	return tgid == pid ? 0 : -JA_ERR_THREAD_ID;
}

/* Kernel threads: PF_KTHREAD (0x00200000) in field 9 of /proc/PID/stat. */
static int is_kernel_thread(pid_t pid)
{
	char path[64], *text;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (core_read_file(path, CORE_READ_PROC_MAX, &text, NULL))
		return 0;
	const char *p = strrchr(text, ')');
	unsigned long flags = 0;
	if (p)
		sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %lu", &flags);
	free(text);
	return (flags & 0x00200000UL) != 0;
}

static int exe_class(pid_t pid)
{
	char path[64];
	unsigned char id[EI_NIDENT];
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, id, sizeof(id));
	close(fd);
	if (n != (ssize_t)sizeof(id) || memcmp(id, ELFMAG, SELFMAG))
		return 0;
	return id[EI_CLASS];
}

int target_threads(pid_t pid, pid_t *tids, int max)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? -ESRCH : -errno;
	int n = 0;
	/* The thread group leader first: it is the thread most programs keep
	 * in an event loop, and its id is the one the user gave. */
	if (max > 0)
		tids[n++] = pid;
	struct dirent *de;
	while ((de = readdir(d)) && n < max) {
		pid_t tid = (pid_t)atoi(de->d_name);
		if (tid > 0 && tid != pid)
			tids[n++] = tid;
	}
	closedir(d);
	return n;
}

/* The first thread that someone traces, with the tracer's name: read for
 * every thread only when an attach was refused (a process with 1000
 * threads would otherwise cost 1000 file reads on every run). */
void target_find_tracer(struct target *t)
{
	struct target_info *in = &t->info;
	pid_t pid = t->pid;
	if (in->tracer)
		goto name;
	pid_t tids[1024];
	int n = target_threads(pid, tids, 1024);
	for (int i = 0; i < n && !in->tracer; i++) {
		char *text = target_thread_status(pid, tids[i]);
		if (!text)
			continue;
		const char *v = target_status_field(text, "TracerPid");
		in->tracer = v ? (pid_t)atoi(v) : 0;
		free(text);
	}
name:
	if (in->tracer)
		read_comm(in->tracer, in->tracer_comm, sizeof(in->tracer_comm));
}


/* A thread of pid that has not exited, 0 if none. */
static pid_t live_thread(pid_t pid)
{
	pid_t tids[256];
	int n = target_threads(pid, tids, 256);
	for (int i = 1; i < n; i++) {
		char st = target_thread_state(pid, tids[i]);
		if (st != 'Z' && st != 'X' && st != '?')
			return tids[i];
	}
	return 0;
}

int target_open(struct target *t, pid_t pid)
{
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	if (pid <= 0)
		return -ESRCH;
	t->io_pid = pid;
	int e = read_status(pid, pid, &t->info);
	if (e)
		return e;
	/* The main thread has ended but others run: take a live one's view. */
	if ((t->info.state == 'Z' || t->info.state == 'X') && (t->io_pid = live_thread(pid)) &&
	    (e = read_status(pid, t->io_pid, &t->info)))
		return e;
	if (!t->io_pid)
		return -JA_ERR_ZOMBIE;
	if (is_kernel_thread(pid)) {
		t->info.kernel_thread = 1;
		return -JA_ERR_KERNEL_THREAD;
	}
	if (t->info.state == 'Z' || t->info.state == 'X')
		return -JA_ERR_ZOMBIE;
	if (t->info.tracer)
		read_comm(t->info.tracer, t->info.tracer_comm, sizeof(t->info.tracer_comm));
	t->info.elf_class = exe_class(t->io_pid);
	target_fate_mark(t); /* who it is now, to tell an execve meanwhile */
	if (t->info.elf_class == ELFCLASS32)
		return -JA_ERR_CLASS32;
	e = sym_maps_read(t->io_pid, &t->maps);
	if (e)
		return e == -ENOENT ? -ESRCH : e;
	return 0;
}

int target_locate(struct target *t, const char *prefix)
{
	struct ja_reason r = { .kind = JA_WHY_TEXT };
	int e = sym_locate_jemalloc(t->io_pid, &t->maps, prefix, &t->je, r.detail, sizeof(r.detail));
	target_reason(t, r);
	return e;
}

void target_close(struct target *t)
{
	sym_jemalloc_free(&t->je);
	sym_maps_free(&t->maps);
}
