/* SPDX-License-Identifier: BSD-2-Clause */
/* target_limits: the target's own limits that an injected action's work
 * counts against, read before the action: free descriptors under
 * RLIMIT_NOFILE, RLIMIT_FSIZE, and the memory its cgroup (and each
 * ancestor) may still be charged. The tl_* functions parse recorded file
 * contents and touch nothing (tests/check_limits.c); target_limits_read
 * reads the files of a live process. */
#ifndef JEATTACH_TARGET_LIMITS_H
#define JEATTACH_TARGET_LIMITS_H

#include <stdint.h>
#include <sys/types.h>

#define TL_UNLIMITED UINT64_MAX

/* The soft limit of /proc/PID/limits' line name ("Max open files"):
 * 0 and *soft (TL_UNLIMITED for "unlimited"), or -1 not found. */
int tl_limit_soft(const char *limits, const char *name, uint64_t *soft);
/* A cgroup file's number: "max" is TL_UNLIMITED, and so is v1's "no
 * limit" (PAGE_COUNTER_MAX pages: 2^63 rounded down to a page). 0 or -1. */
int tl_cg_number(const char *text, uint64_t *v);
/* The value of the line "key N" in a flat keyed file (memory.stat,
 * /proc/PID/status "FDSize:\t64"); 0 if absent. */
uint64_t tl_keyed(const char *text, const char *key);
/* What a memory cgroup may still be charged: limit - (usage - reclaimable),
 * 0 when over; TL_UNLIMITED without a limit. */
uint64_t tl_headroom(uint64_t limit, uint64_t usage, uint64_t reclaimable);

struct target_limits {
	uint64_t nofile;       /* RLIMIT_NOFILE's soft limit; 0: unknown */
	uint64_t fds_free;     /* unused descriptor numbers below it */
	uint64_t fsize;        /* RLIMIT_FSIZE's soft limit (TL_UNLIMITED) */
	uint64_t mem_headroom; /* TL_UNLIMITED: no memory limit found */
	char mem_file[700];    /* the limit file that binds, "" if none */
};

/* Read the limits of the process of thread pid (a live thread's view: the
 * descriptor table and rlimits are the process's). Where a file cannot be
 * read, the answer is "no limit known" (unlimited), with nofile 0. */
void target_limits_read(pid_t pid, struct target_limits *l);

#endif
