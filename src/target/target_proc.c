/* SPDX-License-Identifier: BSD-2-Clause */
/* What /proc says of one thread, read by pid and tid alone (no struct
 * target): its status fields, its stat line (state, comm, start time), its
 * age and its children. The lowest part of the target layer: target.c and
 * target_fate.c read through it. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core_read.h"
#include "target.h"

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

/* exec_start in a sched file's text, in microseconds; -1 if absent. */
int64_t target_sched_exec_start_us(const char *text)
{
	const char *v = text ? strstr(text, "se.exec_start") : NULL;
	if (!v || !(v = strchr(v, ':')))
		return -1;
	/* "%lld.%06ld" milliseconds (SPLIT_NS) */
	long long ms = 0, frac = 0;
	int digits = 0;
	const char *p = v + 1;
	while (*p == ' ' || *p == '\t')
		p++;
	if (sscanf(p, "%lld", &ms) != 1 || ms < 0)
		return -1;
	const char *dot = strchr(p, '.');
	if (dot && dot < p + 24)
		for (const char *q = dot + 1; *q >= '0' && *q <= '9' && digits < 6; q++, digits++)
			frac = frac * 10 + (*q - '0');
	while (digits++ < 6)
		frac *= 10;
	return ms * 1000 + frac / 1000;
}

/* The CPU a task last ran on: /proc/.../stat field 39, counted after the
 * comm's closing parenthesis (a comm may hold spaces and parentheses). */
int target_stat_cpu(const char *text)
{
	const char *p = text ? strrchr(text, ')') : NULL;
	if (!p)
		return -1;
	p++;
	/* fields 3.. follow: the 37th token after ')' is field 39 */
	for (int field = 3; field < 39; field++) {
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')
			p++;
		if (!*p)
			return -1;
	}
	int cpu = -1;
	return sscanf(p, " %d", &cpu) == 1 ? cpu : -1;
}
