/* SPDX-License-Identifier: BSD-2-Clause */
/* The process's child processes, across all its threads.
 *
 * Used after a dump to find the children that may have inherited its pipe
 * (act_dump_children.c). A child is listed in the children file of the
 * thread that forked it (fs/proc/array.c, get_children_pid: the task's
 * children list, CONFIG_PROC_CHILDREN), so the union over /proc/PID/task/
 * is every child of the process that has joined that list: not a fork
 * still in progress (kernel/fork.c copy_process links it only after its
 * memory and descriptors are copied), nor a CLONE_PARENT child (its
 * parent's parent's), nor one moved to another thread as the thread that
 * forked it ended after that thread's file was read. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include "rcall_internal.h"
#include "rcall_reads.h"

/* Past this many children or threads the snapshot is not kept: unknown. */
#define KIDS_MAX 65536

static int add(struct rcall_kids *k, pid_t pid)
{
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 16;
		if (cap > KIDS_MAX)
			return -E2BIG;
		pid_t *p = realloc(k->pid, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		k->pid = p;
		k->cap = cap;
	}
	k->pid[k->n++] = pid;
	return 0;
}

/* The ids in a children file: decimal numbers separated by spaces. */
static int add_file(struct rcall_kids *k, const char *text)
{
	for (const char *p = text; *p;) {
		if (*p < '0' || *p > '9') {
			p++;
			continue;
		}
		long v = 0;
		while (*p >= '0' && *p <= '9' && v < (1L << 30))
			v = v * 10 + (*p++ - '0');
		int e = add(k, (pid_t)v);
		if (e)
			return e;
	}
	return 0;
}

int rcall_kids_read(pid_t pid, struct rcall_kids *k)
{
	k->n = 0;
	pid_t *tids = NULL;
	int n = 0, e = 0;
	/* The thread list may grow as it is read: again, larger, until the
	 * buffer had room to spare. */
	int max = 256;
	for (;; max *= 4) {
		free(tids);
		tids = malloc((size_t)max * sizeof(*tids));
		if (!tids)
			return -ENOMEM;
		n = rcall_reads.tasks(pid, tids, max);
		if (n < max || max >= KIDS_MAX)
			break;
	}
	if (n < 0)
		e = n;
	else if (n == max)
		e = -E2BIG; /* more threads than are looked at: not all listed */
	for (int i = 0; !e && i < n; i++) {
		char *text = rcall_reads.task_file(pid, tids[i], "children");
		/* A thread that ended since the listing took its children list
		 * with it (they went to another thread of the process, whose
		 * file is read too, or to the reaper, out of the process). A
		 * leader whose file cannot be read means no children files
		 * here at all (no CONFIG_PROC_CHILDREN): unknown. */
		if (!text) {
			if (tids[i] == pid)
				e = -ENOENT;
			continue;
		}
		e = add_file(k, text);
		free(text);
	}
	free(tids);
	return e;
}

void rcall_kids_free(struct rcall_kids *k)
{
	free(k->pid);
	*k = (struct rcall_kids){ 0 };
}
