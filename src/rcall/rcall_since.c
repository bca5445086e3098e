/* SPDX-License-Identifier: BSD-2-Clause */
/* When did a sleeping thread's wait begin? Interrupted, a wait whose
 * timeout the kernel does not shorten (epoll_wait's milliseconds, a
 * relative timespec rewound by the EINTR undo) is re-made with what is
 * left, which needs its start. Watching for the next wait to begin (the
 * old rule) took as long as the wait: a process idle in epoll_wait(10 s)
 * on every thread could not be attached within --timeout (3 of 4 --status
 * runs failed after 5.1 s).
 *
 * The scheduler knows: se.exec_start in /proc/PID/task/TID/sched is set
 * by update_curr() whenever the task's runtime is accounted, the last time
 * when it was dequeued to sleep, i.e. when its wait began (kernel/sched/
 * fair.c update_curr_se; kernel/sched/debug.c prints it in ms). It is on
 * its CPU's rq_clock_task, which leaves out IRQ and steal time and so
 * lags CLOCK_MONOTONIC by an offset of its own per CPU (6.43 s and 6.48 s
 * on the two CPUs here after 8 hours), growing slowly. That offset is
 * measured on the spot: jeattach moves itself to the thread's CPU, sleeps
 * a few microseconds so that it is put back on that CPU afresh (which
 * sets its own exec_start to that rq's clock_task: set_next_entity ->
 * update_stats_curr_start), reads its own exec_start and CLOCK_MONOTONIC,
 * and moves back. The estimate errs late, never early: the monotonic
 * reading comes after its own exec_start, and the thread's exec_start
 * after its call's entry, so a wait re-made from it ends no earlier than
 * it would have. */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rcall_internal.h"
#include "rcall_reads.h"
#include "target.h"

/* exec_start in a sched file's text, in microseconds; -1 if absent. */
static int64_t exec_start_us(const char *text)
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
static int stat_cpu(const char *text)
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

static char *self_sched(void)
{
	char *text = NULL;
	FILE *f = fopen("/proc/thread-self/sched", "re");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	text = malloc(cap);
	if (text)
		n = fread(text, 1, cap - 1, f);
	fclose(f);
	if (text)
		text[n] = 0;
	return text;
}

/* CLOCK_MONOTONIC minus cpu's rq_clock_task, in microseconds (the real
 * one behind rcall_reads.clock_offset). */
int rcall_since_clock_offset(int cpu, int64_t *offset)
{
	cpu_set_t old, one;
	if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getaffinity(0, sizeof(old), &old))
		return -1;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (sched_setaffinity(0, sizeof(one), &one))
		return -1; /* not allowed there (a cpuset): unknown */
	/* Off the CPU and back on it: exec_start becomes that rq's
	 * clock_task of this moment. */
	struct timespec ts = { 0, 20000 };
	nanosleep(&ts, NULL);
	char *text = self_sched();
	core_usec_t now = core_now_us();
	int64_t mine = exec_start_us(text);
	free(text);
	sched_setaffinity(0, sizeof(old), &old);
	if (mine < 0)
		return -1;
	*offset = now - mine;
	return 0;
}

int rcall_wait_since(struct target *t, pid_t tid, core_usec_t *began)
{
	char *a = rcall_reads.task_file(t->io_pid, tid, "status");
	char *stat = rcall_reads.task_file(t->io_pid, tid, "stat");
	char *sched = rcall_reads.task_file(t->io_pid, tid, "sched");
	char *b = rcall_reads.task_file(t->io_pid, tid, "status");
	const char *va = a ? target_status_field(a, "voluntary_ctxt_switches") : NULL;
	const char *vb = b ? target_status_field(b, "voluntary_ctxt_switches") : NULL;
	/* Asleep in the same wait while exec_start was read. */
	int same = va && vb && strtoull(va, NULL, 10) == strtoull(vb, NULL, 10);
	int cpu = stat_cpu(stat);
	int64_t start = exec_start_us(sched), offset = 0;
	free(a);
	free(stat);
	free(sched);
	free(b);
	if (!same || cpu < 0 || start < 0 || rcall_reads.clock_offset(cpu, &offset))
		return -1;
	core_usec_t at = start + offset, now = core_now_us();
	if (at > now || at < now - (core_usec_t)86400 * 1000000)
		return -1; /* not a start this clock can vouch for */
	*began = at;
	return 0;
}
