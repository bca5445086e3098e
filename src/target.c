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
#include "target.h"

void target_why(struct target *t, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
}

const char *target_status_field(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, key, kl) && p[kl] == ':') {
			p += kl + 1;
			while (*p == ' ' || *p == '\t')
				p++;
			return p;
		}
	}
	return NULL;
}

char *target_thread_status(pid_t pid, pid_t tid)
{
	char path[80], *text;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tid);
	return core_read_file(path, CORE_READ_PROC_MAX, &text, NULL) ? NULL : text;
}

int target_thread_hex_fields(pid_t pid, pid_t tid, const char *const *keys, int n, uint64_t *v)
{
	char *text = target_thread_status(pid, tid);
	if (!text)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *f = target_status_field(text, keys[i]);
		v[i] = f ? strtoull(f, NULL, 16) : 0;
	}
	free(text);
	return 0;
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
	return tgid == pid ? 0 : -JE_ERR_THREAD_ID;
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
		return -JE_ERR_ZOMBIE;
	if (is_kernel_thread(pid)) {
		t->info.kernel_thread = 1;
		return -JE_ERR_KERNEL_THREAD;
	}
	if (t->info.state == 'Z' || t->info.state == 'X')
		return -JE_ERR_ZOMBIE;
	if (t->info.tracer)
		read_comm(t->info.tracer, t->info.tracer_comm, sizeof(t->info.tracer_comm));
	t->info.elf_class = exe_class(t->io_pid);
	target_fate_mark(t); /* who it is now, to tell an execve meanwhile */
	if (t->info.elf_class == ELFCLASS32)
		return -JE_ERR_CLASS32;
	e = sym_maps_read(t->io_pid, &t->maps);
	if (e)
		return e == -ENOENT ? -ESRCH : e;
	return 0;
}

int target_alive(const struct target *t)
{
	char path[64], *text;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)t->io_pid);
	if (core_read_file(path, CORE_READ_PROC_MAX, &text, NULL))
		return 0;
	const char *v = target_status_field(text, "State");
	/* An exiting process drops its memory (exit_mm) before it becomes a
	 * zombie; meanwhile /proc shows it running but without Vm* lines, and
	 * its maps are empty: that is gone too. */
	int alive = v && *v != 'Z' && *v != 'X' && target_status_field(text, "VmSize");
	free(text);
	return alive;
}

int target_locate(struct target *t, const char *prefix)
{
	return sym_locate_jemalloc(t->io_pid, &t->maps, prefix, &t->je, t->why, sizeof(t->why));
}

void target_close(struct target *t)
{
	sym_jemalloc_free(&t->je);
	sym_maps_free(&t->maps);
}

/* Thread tid's /proc stat line in buf, "TID (COMM) STATE ...": the '('
 * and the last ')' around its comm (which may hold any byte but NUL, ')'
 * and spaces too) in *lp and *rp; -1 when gone. */
static int task_stat(pid_t pid, pid_t tid, char *buf, size_t len, char **lp, char **rp)
{
	/* open/read/close, not stdio: --top runs this once a second for every
	 * thread (a thousand, in doc/benchmarks.md), and fopen's buffer and
	 * locking only add to it. Most of the cost is the kernel's making of
	 * the stat text (do_task_stat). */
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid, (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*lp = strchr(buf, '(');
	*rp = strrchr(buf, ')');
	return *lp && *rp && *rp > *lp && (*rp)[1] == ' ' ? 0 : -1;
}

char target_thread_state(pid_t pid, pid_t tid)
{
	char buf[1024], *lp, *rp;
	return task_stat(pid, tid, buf, sizeof(buf), &lp, &rp) ? '?' : rp[2];
}

int target_thread_stat(pid_t pid, pid_t tid, char *comm, size_t clen, unsigned long long *start)
{
	char buf[1024], *lp, *rp;
	if (task_stat(pid, tid, buf, sizeof(buf), &lp, &rp))
		return -1;
	snprintf(comm, clen, "%.*s", (int)(rp - lp - 1), lp + 1);
	/* After ") ": state is field 3; starttime is field 22. */
	const char *p = rp + 2;
	for (int field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		p = p ? p + 1 : NULL;
	}
	return p && sscanf(p, "%llu", start) == 1 ? 0 : -1;
}

/* Seconds since boot, in the unit of stat's start time. */
double target_uptime_ticks(void)
{
	char buf[64] = "";
	int fd = open("/proc/uptime", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	return atof(buf) * (double)sysconf(_SC_CLK_TCK);
}

int target_thread_age(pid_t pid, pid_t tid, double *seconds)
{
	char comm[32];
	unsigned long long start;
	if (target_thread_stat(pid, tid, comm, sizeof(comm), &start))
		return -1;
	*seconds = (target_uptime_ticks() - (double)start) / (double)sysconf(_SC_CLK_TCK);
	return 0;
}

int target_thread_has_children(pid_t pid, pid_t tid)
{
	char path[80], *text;
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid, (int)tid);
	if (core_read_file(path, 4096, &text, &len))
		return -1;
	int some = 0;
	for (size_t i = 0; i < len && !some; i++)
		some = text[i] >= '0' && text[i] <= '9';
	free(text);
	return some;
}
