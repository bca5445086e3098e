/* SPDX-License-Identifier: BSD-2-Clause */
/* Children that inherited the dump's pipe: its ends closed in them.
 *
 * The pipe jemalloc writes a profile into (act_dump_pipe.c) is made with
 * O_CLOEXEC, which covers an exec only. A fork while it is open gives the
 * child both ends, for the child's life: a prefork server's worker, Redis'
 * BGSAVE child. Waiting in jemalloc's prefork handler (jemalloc_prefork
 * takes prof_dump_mtx, which prof.dump holds) a fork asked for during the
 * dump goes on the moment the dump lets the lock go, while jeattach has not
 * yet closed the ends: victim_limits -S's children kept them in 3 dumps of
 * 5. No flag keeps a descriptor from a fork (Linux has no O_CLOFORK), and
 * the held thread cannot own a table of its own (unshare(CLONE_FILES) is
 * for good). So after the release, the process's children born since the
 * pipe (and theirs) are looked at, and in each that holds an end of it
 * (its /proc/PID/fd link names the pipe's inode, unique while any end of
 * the pipe is open) one thread is held as the target's are, and close()
 * made there, for each such descriptor.
 *
 * A child with more than one thread is left alone and named: between the
 * look at its descriptor and the close, another thread of it could close
 * that number and open something else there. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "act.h"
#include "core_clock.h"
#include "errors.h"
#include "rcall.h"
#include "rproc.h"
#include "target.h"

/* At most this many processes looked at, and this many descriptors of
 * the pipe per child (two ends, each perhaps dup'ed). */
#define CHILDREN_MAX 4096
#define FDS_MAX 8
/* How long a child's thread may take to reach a safe point. */
#define CHILD_HOLD_US 1000000

/* The descriptors of pid that are the pipe ino: how many (at most max). */
static int pipe_fds(pid_t pid, uint64_t ino, long *fds, int max)
{
	char path[64], link[64], want[40];
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	snprintf(want, sizeof(want), "pipe:[%llu]", (unsigned long long)ino);
	DIR *d = opendir(path);
	if (!d)
		return 0;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)) && n < max) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);
		if (*end || end == de->d_name)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)pid, fd);
		ssize_t len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0)
			continue;
		link[len] = 0;
		if (!strcmp(link, want))
			fds[n++] = fd;
	}
	closedir(d);
	return n;
}

/* Is fd of pid still the pipe ino? */
static int still_pipe(pid_t pid, long fd, uint64_t ino)
{
	char path[64], link[64], want[40];
	snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)pid, fd);
	snprintf(want, sizeof(want), "pipe:[%llu]", (unsigned long long)ino);
	ssize_t len = readlink(path, link, sizeof(link) - 1);
	if (len <= 0)
		return 0;
	link[len] = 0;
	return !strcmp(link, want);
}

/* Close fds (the pipe ino) in child pid, a fork of jemalloc's process
 * with jemalloc at its parent's prefix: 0, or why not in why. */
static int close_in_child(pid_t pid, const char *prefix, uint64_t ino, const long *fds, int n,
			  char *why, size_t wlen)
{
	struct target *c = target_new();
	if (!c)
		return snprintf(why, wlen, "out of memory"), -ENOMEM;
	int e = target_open(c, pid);
	pid_t tids[2];
	if (!e && target_threads(pid, tids, 2) != 1)
		e = -EBUSY, snprintf(why, wlen, "it has threads of its own");
	if (!e)
		e = target_locate(c, prefix);
	struct rcall_opts ro = { 0 };
	if (!e)
		e = rcall_prepare(c, &ro);
	if (!e) {
		rcall_set_deadline(c, core_now_us() + CHILD_HOLD_US);
		e = rcall_hold(c);
	}
	for (int i = 0; !e && i < n; i++) {
		long ret = 0;
		/* Its only thread is held: nothing else can change the number
		 * between this look and the close. */
		if (still_pipe(pid, fds[i], ino))
			e = rproc_close(c, fds[i], &ret);
	}
	int r = rcall_release(c);
	if (!e)
		e = r;
	if (e && !*why)
		target_why_text(c, why, wlen);
	if (e && !*why)
		snprintf(why, wlen, "%s", ja_err_text(-e));
	rproc_free(c);
	rcall_free(c);
	target_close(c);
	target_delete(c);
	return e;
}

/* Born after the pipe (its start time in ticks since boot)? */
static int born_since(pid_t pid, double since)
{
	char comm[32];
	unsigned long long start;
	return !target_thread_stat(pid, pid, comm, sizeof(comm), &start) && (double)start >= since;
}

void act_dump_children(struct target *t, struct act_result *r)
{
	struct act_dump_out *d = &r->out.dump;
	if (!d->pipe_ino)
		return;
	/* A breadth-first walk from the target: its children, then theirs. */
	pid_t *queue = malloc(CHILDREN_MAX * sizeof(*queue));
	if (!queue)
		return;
	int head = 0, tail = 0;
	unsigned long long closed = 0, left = 0;
	struct rcall_kids k = { 0 };
	pid_t from = target_pid(t);
	for (;;) {
		if (!rcall_kids_read(from, &k))
			for (size_t i = 0; i < k.n && tail < CHILDREN_MAX; i++)
				if (born_since(k.pid[i], d->pipe_born))
					queue[tail++] = k.pid[i];
		if (head == tail)
			break;
		pid_t pid = queue[head++];
		from = pid;
		long fds[FDS_MAX];
		int n = pipe_fds(pid, d->pipe_ino, fds, FDS_MAX);
		if (!n)
			continue;
		char why[200] = "";
		if (!close_in_child(pid, target_jemalloc(t)->prefix, d->pipe_ino, fds, n, why,
				    sizeof(why))) {
			closed++;
			continue;
		}
		/* It may have exited or exec'd meanwhile: then nothing is kept. */
		if (!pipe_fds(pid, d->pipe_ino, fds, FDS_MAX))
			continue;
		if (!left++ && !r->warning[0])
			snprintf(r->warning, sizeof(r->warning),
				 "child %d, forked during the dump, keeps the dump's pipe (fd %ld) "
				 "until it exits or execs: not closed there (%s)",
				 (int)pid, fds[0], why);
	}
	rcall_kids_free(&k);
	free(queue);
	act_field_u64(r, "children_closed", closed);
	if (left)
		act_field_u64(r, "children_left", left);
}
