/* SPDX-License-Identifier: BSD-2-Clause */
/* target_cgroup: where a process's cgroup lives in jeattach's own mounts,
 * for the files the kernel keeps about it (the freezer's state, the memory
 * controller's limits). The parsing is pure (text in, answer out) so unit
 * tests feed recorded /proc files; target_cgroup_find reads them. */
#ifndef JEATTACH_TARGET_CGROUP_H
#define JEATTACH_TARGET_CGROUP_H

#include <stddef.h>
#include <sys/types.h>

/* A cgroup as jeattach sees it: the hierarchy's mount point and the
 * cgroup's path below it ("/" for the root). dir(): mount + path. */
struct target_cgroup {
	char mount[512];
	char path[600];
};

/* The line after p in text, or NULL at the end. */
const char *target_cgroup_next_line(const char *p);

/* From /proc/PID/cgroup's text and /proc/self/mountinfo's: the cgroup of
 * controller (NULL: the v2 unified hierarchy, "0::PATH"; else a v1
 * hierarchy whose controllers include it, "ID:CTL,CTL:PATH"), mounted at
 * its root. 0 found, -1 not (not mounted here, or a path outside our
 * cgroup namespace). */
int target_cgroup_parse(const char *cgroups, const char *mountinfo, const char *controller,
			struct target_cgroup *cg);

/* The same for process pid, reading the files. */
int target_cgroup_find(pid_t pid, const char *controller, struct target_cgroup *cg);

/* Step cg to its parent: 0, or -1 at the hierarchy's root. */
int target_cgroup_parent(struct target_cgroup *cg);

/* mount + path + "/" + file, for reading. */
void target_cgroup_file(const struct target_cgroup *cg, const char *file, char *buf, size_t len);

/* The first line of a small kernel file, or "" if it cannot be read. */
void target_cgroup_first_line(const char *path, char *buf, size_t len);

#endif
