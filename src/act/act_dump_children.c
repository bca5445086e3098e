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
 * (a fork keeps descriptor numbers: the numbers the ends had in the
 * target, whose /proc/PID/fd link names the pipe's inode, unique while any
 * end of the pipe is open) its thread is held as the target's are, and
 * close() made there, for each such descriptor, looked at again while the
 * thread is held.
 *
 * Left alone and counted (--json children_left, a warning naming the
 * first): a child with more than one thread (another of its threads could
 * close the number and open something else there between the look and the
 * close), one in uninterruptible sleep (a vfork parent waiting for its
 * child: it would stay stopped once it woke, with nobody to let it go),
 * one whose seccomp filter does not allow close, one that cannot be held.
 * The walk is bounded (CHILDREN_HOLDS holds, CHILDREN_US in all): what it
 * did not reach is counted too. Not found: a child that moved the
 * descriptor to another number, one sharing its descriptor table with
 * another process (CLONE_FILES without CLONE_THREAD). */
#include "config.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "act.h"
#include "core_clock.h"
#include "errors.h"
#include "rcall.h"
#include "rproc.h"
#include "target.h"

/* At most this many processes listed, this many holds, this long. */
#define CHILDREN_MAX 4096
#define CHILDREN_HOLDS 64
#define CHILDREN_US 5000000
/* How long a child's thread may take to reach a safe point. */
#define CHILD_HOLD_US 1000000

/* Is fd of pid the pipe ino? 1, 0 (not, or no such descriptor), or
 * -errno when its descriptors cannot be read. */
static int is_pipe(pid_t pid, long fd, uint64_t ino)
{
	char path[64], link[64], want[40];
	if (fd < 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)pid, fd);
	snprintf(want, sizeof(want), "pipe:[%llu]", (unsigned long long)ino);
	ssize_t len = readlink(path, link, sizeof(link) - 1);
	if (len <= 0)
		return errno == ENOENT || errno == ESRCH ? 0 : -errno;
	link[len] = 0;
	return !strcmp(link, want);
}

/* Which of the pipe's numbers child pid holds (held[i] set): how many,
 * or -errno. */
static int held_ends(pid_t pid, const struct act_dump_out *d, int held[2])
{
	int n = 0;
	for (int i = 0; i < 2; i++) {
		int v = is_pipe(pid, d->pipe_fd[i], d->pipe_ino);
		if (v < 0)
			return v;
		held[i] = v;
		n += v;
	}
	return n;
}

/* Close the pipe's ends in child pid, a fork of jemalloc's process with
 * jemalloc at its parent's prefix: 1 closed, 0 nothing of the pipe there
 * any more, -1 not closed (why). */
static int close_in_child(pid_t pid, const char *prefix, const struct act_dump_out *d, char *why,
			  size_t wlen)
{
	if (target_thread_state(pid, pid) == 'D') {
		snprintf(why, wlen, "it is in uninterruptible sleep (a vfork parent waiting?)");
		return -1;
	}
	struct target *c = target_new();
	if (!c)
		return snprintf(why, wlen, "out of memory"), -1;
	int e = target_open(c, pid);
	if (!e)
		e = target_locate(c, prefix);
	struct rcall_opts ro = { 0 };
	if (!e)
		e = rcall_prepare(c, &ro);
	if (!e) {
		rcall_set_deadline(c, core_now_us() + CHILD_HOLD_US);
		e = rcall_hold(c);
	}
	int done = -1;
	pid_t tids[2];
	/* Its thread is held: it makes no thread now, and if it is the only
	 * one nothing changes the numbers between this look and the close. */
	if (!e && target_threads(pid, tids, 2) != 1) {
		snprintf(why, wlen, "it has threads of its own");
		e = -EBUSY;
	}
	int held[2] = { 0, 0 };
	if (!e && (e = held_ends(pid, d, held)) >= 0) {
		done = e ? 1 : 0;
		e = 0;
	}
	for (int i = 0; !e && i < 2; i++) {
		long ret = 0;
		uint32_t verdict = SECCOMP_RET_ALLOW;
		const uint64_t args[6] = { (uint64_t)d->pipe_fd[i] };
		if (!held[i])
			continue;
		/* Its own filter: a worker may have tightened it after the fork. */
		if (rcall_seccomp(c, SYS_close, args, &verdict) || verdict != SECCOMP_RET_ALLOW) {
			snprintf(why, wlen, "its seccomp filter does not allow close()");
			e = -EPERM;
		} else if (!(e = rproc_close(c, d->pipe_fd[i], &ret)) && ret) {
			e = (int)ret;
		}
	}
	int r = rcall_release(c);
	if (!e)
		e = r;
	if (e) {
		done = -1;
		if (!*why)
			target_why_text(c, why, wlen);
		if (!*why)
			snprintf(why, wlen, "%s", ja_err_text(-e));
	}
	rproc_free(c);
	rcall_free(c);
	target_close(c);
	target_delete(c);
	return done;
}

/* Born after the pipe (its start time in ticks since boot)? */
static int born_since(pid_t pid, double since)
{
	char comm[32];
	unsigned long long start;
	return !target_thread_stat(pid, pid, comm, sizeof(comm), &start) && (double)start >= since;
}

/* One more child not closed: counted, and the first named. */
static void left_one(struct act_result *r, unsigned long long *left, pid_t pid, const char *why)
{
	if ((*left)++)
		return;
	act_result_warn(r, "child %d, forked while the dump's pipe was open, keeps its ends: not "
			   "closed there (%s)",
			(int)pid, why);
}

void act_dump_children(struct target *t, struct act_result *r)
{
	const struct act_dump_out *d = &r->out.dump;
	if (!d->pipe_ino)
		return;
	/* A breadth-first walk from the target: its children, then theirs. */
	pid_t *queue = malloc(CHILDREN_MAX * sizeof(*queue));
	if (!queue)
		return;
	int head = 0, tail = 0, holds = 0;
	unsigned long long closed = 0, left = 0, unseen = 0;
	struct rcall_kids k = { 0 };
	const core_usec_t end = core_now_us() + CHILDREN_US;
	pid_t from = target_pid(t);
	for (;;) {
		if (!rcall_kids_read(from, &k))
			for (size_t i = 0; i < k.n; i++)
				if (born_since(k.pid[i], d->pipe_born)) {
					if (tail < CHILDREN_MAX)
						queue[tail++] = k.pid[i];
					else
						unseen++;
				}
		if (head == tail)
			break;
		pid_t pid = queue[head++];
		from = pid;
		int held[2];
		int n = held_ends(pid, d, held);
		if (!n)
			continue;
		if (n < 0) {
			left_one(r, &left, pid, "its descriptors cannot be read");
			continue;
		}
		if (holds >= CHILDREN_HOLDS || core_now_us() >= end) {
			unseen++;
			continue;
		}
		holds++;
		char why[160] = "";
		int c = close_in_child(pid, target_jemalloc(t)->prefix, d, why, sizeof(why));
		if (c > 0)
			closed++;
		/* It may have exited or exec'd meanwhile: then nothing is kept. */
		else if (c < 0 && held_ends(pid, d, held) > 0)
			left_one(r, &left, pid, why);
	}
	rcall_kids_free(&k);
	free(queue);
	act_field_u64(r, "children_closed", closed);
	if (left)
		act_field_u64(r, "children_left", left);
	if (unseen) {
		act_field_u64(r, "children_unexamined", unseen);
		act_result_warn(r, "%llu children forked while the dump's pipe was open were not "
				   "looked at (more than one dump looks at): they may keep its ends",
				unseen);
	}
}
