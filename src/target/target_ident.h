/* SPDX-License-Identifier: BSD-2-Clause */
/* target_ident: who a process is, for the labels of its series
 * (--prometheus): its executable's path and build id, its cgroup v2 path.
 * The process chose every byte of them (a path, a cgroup's name): they are
 * bounded here and escaped where printed. The cgroup line's parsing is pure
 * (text in, answer out), for unit tests. */
#ifndef JEATTACH_TARGET_IDENT_H
#define JEATTACH_TARGET_IDENT_H

#include <stddef.h>
#include <sys/types.h>

/* A path longer than this is cut to it (a label value has no limit in the
 * exposition format, but a file rewritten every interval should). */
#define TARGET_IDENT_MAX 1024

struct target_ident {
	/* /proc/PID/comm as the kernel keeps it: /proc/PID/status' Name: is
	 * escaped (a backslash doubled, fs/proc/array.c proc_task_name), the
	 * comm file is not (proc_comm_show). */
	char comm[64];
	char exe[TARGET_IDENT_MAX + 1];    /* /proc/PID/exe's link, "" unknown */
	char build_id[68];                 /* NT_GNU_BUILD_ID in hex, "" none */
	char cgroup[TARGET_IDENT_MAX + 1]; /* the "0::" line's path, "" none */
};

/* The path of the "0::PATH" line of a /proc/PID/cgroup text into buf ("" if
 * there is none: a v1-only host); 0 found, -1 not. */
int target_ident_cgroup_v2(const char *cgroups, char *buf, size_t len);

/* All of it for pid; what cannot be read stays "". */
void target_ident_read(pid_t pid, struct target_ident *id);

#endif
