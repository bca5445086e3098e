/* SPDX-License-Identifier: BSD-2-Clause */
/* The real readers behind rcall_reads.h. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "core_read.h"
#include "pt.h"
#include "rcall_internal.h"
#include "rcall_reads.h"
#include "sym_maps.h"

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

struct rcall_reads rcall_reads = { task_file, memory, is_socket, sym_maps_read,
				   rcall_since_clock_offset };
