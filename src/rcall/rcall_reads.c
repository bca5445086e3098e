/* SPDX-License-Identifier: BSD-2-Clause */
/* The real readers behind rcall_reads.h. */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>
#include "core_read.h"
#include "pt.h"
#include "rcall_internal.h"
#include "rcall_reads.h"
#include "sym_maps.h"
#include "target.h"

static char *task_file(pid_t pid, pid_t tid, const char *name)
{
	char path[96], *text;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid, name);
	return core_read_file(path, CORE_READ_PROC_MAX, &text, NULL) ? NULL : text;
}

static int memory(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	return pt_read(pid, addr, buf, len);
}

/* A descriptor's link in /proc names its socket "socket:[inode]". (Its
 * timeout stays unknown: see rcall_wait.c.) */
static int is_socket(pid_t pid, uint64_t fd)
{
	char path[64], link[32];
	if (fd > 0x7fffffff)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, (int)fd);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	return n >= 7 && !memcmp(link, "socket:", 7);
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
	char *text = NULL;
	const int there = sched_getcpu() == cpu;
	if (there && core_read_file("/proc/thread-self/sched", CORE_READ_PROC_MAX, &text, NULL))
		text = NULL;
	core_usec_t now = core_now_us();
	int64_t mine = text ? target_sched_exec_start_us(text) : -1;
	free(text);
	sched_setaffinity(0, sizeof(old), &old);
	if (mine < 0)
		return -1; /* not moved there, or no sched file */
	*offset = now - mine;
	return 0;
}

struct rcall_reads rcall_reads = { task_file, memory, is_socket, sym_maps_read,
				   rcall_since_clock_offset, target_threads };
