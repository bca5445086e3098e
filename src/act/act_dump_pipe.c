/* SPDX-License-Identifier: BSD-2-Clause */
/* The way a profile leaves the target: a pipe, drained by jeattach while
 * jemalloc writes, into a memfd of jeattach's own.
 *
 * Why not a file in the target (a memfd, as before): its pages are shmem,
 * charged to the target's memory cgroup and not reclaimable without swap
 * (a target 40 MB below its limit was OOM-killed by a 92 MB profile), and
 * writes to it are checked against RLIMIT_FSIZE (SIGXFSZ, delivered when
 * the call's mask is lifted, killed the target). A pipe is neither: only
 * what is in flight is charged (fs/pipe.c pipe_write allocates each page
 * GFP_HIGHUSER | __GFP_ACCOUNT), and RLIMIT_FSIZE applies to regular
 * files only (generic_write_check_limits).
 *
 * What a pipe must never do to the target, even if jeattach is killed
 * (SIGKILL: no code of ours runs) or leaves the call (SIGTERM):
 * - SIGPIPE: pipe_write sends it when no reader is left, and a blocked
 *   SIGPIPE is delivered when the thread's mask comes back (rt_sigreturn):
 *   the default action kills. So the target keeps its own read end open
 *   until the call has returned: a dead jeattach never leaves the pipe
 *   without a reader.
 * - A writer blocked for ever on a full pipe nobody drains (with jemalloc's
 *   dump lock held). So the write end is O_NONBLOCK (pipe2's flag, on the
 *   open file description jemalloc writes through): a full pipe answers
 *   EAGAIN, jemalloc's prof_dump_flush records an error and writes no more
 *   (prof_sys.c prof_dump_check_possible_error), prof.dump fails, its locks
 *   are released and the thread restores itself. Called through mallctl
 *   (prof_mdump: propagate_err true, so handle_error_locally false), that
 *   error is only returned: jemalloc prints nothing and does not abort, even
 *   with opt.abort (5.3; 4.x printed and aborted only when !propagate_err
 *   too). While jeattach lives, each
 *   of jemalloc's writes (at most PROF_DUMP_BUFSIZE, 64 KiB) stops at its
 *   syscall entry and the pipe is drained empty first, so a write smaller
 *   than the pipe always goes in whole (a non-blocking pipe_write of n
 *   bytes into an empty pipe of more than n bytes copies them all); one
 *   larger is failed with EFBIG, never cut short (jemalloc does not look at
 *   a short write's count).
 * - jemalloc opens its file itself (creat of the name it is given), which
 *   would make a new, blocking file description. So it is given the empty
 *   name: creat("") fails with ENOENT whatever happens, and jeattach, at
 *   that creat's exit stop, answers it with the write end instead. A
 *   jeattach gone before that stop leaves the failure: the dump fails
 *   cleanly. jemalloc closes the write end when it is done.
 * Left in the target by a killed jeattach, at most: the read end (and,
 *   before jemalloc took it, the write end), with what the pipe holds (its
 *   capacity, DUMP_PIPE_SIZE): far less than the whole profile a memfd kept. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "act_dump_pipe.h"
#include "core_read.h"
#include "errors.h"
#include "core_clock.h"
#include "rproc.h"
#include "target_struct.h"

/* 4 x jemalloc's largest write (PROF_DUMP_BUFSIZE, 64 KiB in every 4.x and
 * 5.x): a pipe that many pages long takes any write whole once drained. It
 * is also all a dead jeattach can leave pinned in the target's cgroup. */
#define DUMP_PIPE_SIZE (256 * 1024)

/* Read what the pipe holds, at most 8 MiB a call (another thread of the
 * target writing into it for ever must not keep jeattach here): 1 once it
 * is empty with no write end open anywhere (read's 0), else 0. */
static int drain(struct dump_pipe *p)
{
	static char buf[1 << 16];
	for (size_t total = 0; p->rd >= 0 && total < (8u << 20);) {
		ssize_t n = read(p->rd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0; /* EAGAIN: empty; 0: no writer left */
		total += (size_t)n;
		p->received += (uint64_t)n;
		size_t keep = p->stored >= p->max ? 0
			      : (uint64_t)n > p->max - p->stored ? (size_t)(p->max - p->stored)
								  : (size_t)n;
		if (keep && !p->store_err) {
			int e = core_write_all(p->out, buf, keep);
			if (e)
				p->store_err = -e;
			else
				p->stored += keep;
		}
	}
	return 0;
}

static int close_all(struct dump_pipe *p);

/* Is this syscall entry jemalloc's creat() of the empty name we gave it?
 * creat (x86_64 glibc), open, or openat(AT_FDCWD) with O_CREAT. */
static int is_dump_open(struct dump_pipe *p, const struct rcall_sysstop *s)
{
	uint64_t name;
	switch (s->nr) {
#ifdef SYS_creat
	case SYS_creat:
		name = s->args[0];
		break;
#endif
#ifdef SYS_open
	case SYS_open:
		if (!(s->args[1] & O_CREAT))
			return 0;
		name = s->args[0];
		break;
#endif
	case SYS_openat:
		if ((int)s->args[0] != AT_FDCWD || !(s->args[2] & O_CREAT))
			return 0;
		name = s->args[1];
		break;
	default:
		return 0;
	}
	char c = 1;
	return !rcall_read(p->t, name, &c, 1) && c == 0;
}

void dump_pipe_hook(void *arg, struct rcall_sysstop *s)
{
	struct dump_pipe *p = arg;
	if (!s) {
		drain(p);
		return;
	}
	if (!s->entry) {
		if (p->in_write && s->ret > 0)
			p->written += (uint64_t)s->ret;
		p->in_write = 0;
		return;
	}
	if (!p->taken && p->tw >= 0 && is_dump_open(p, s)) {
		s->set_result = 1; /* creat("") fails; it returns the write end */
		s->result = p->tw;
		p->taken = 1;
		return;
	}
	if (!p->taken || s->nr != SYS_write || (long)s->args[0] != p->tw)
		return;
	drain(p); /* empty: this write goes in whole */
	if (s->args[2] > p->cap) {
		/* write(fd, buf, 0) does nothing; jemalloc sees EFBIG */
		s->args[2] = 0;
		s->args_changed = 1;
		s->set_result = 1;
		s->result = -EFBIG;
		p->oversize = 1;
		return;
	}
	p->in_write = 1;
}

/* Our own read end, opened through the target's descriptor tr after its
 * link was checked to be the pipe just made (tw's): another thread of the
 * target could have put something else at that number meanwhile, and
 * opening a device or a FUSE file it chose could act or wait. */
static int open_read_end(struct dump_pipe *p, char *seen, size_t len)
{
	char path[80], other[64];
	struct stat st;
	pid_t tid = rcall_held_tid(p->t);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/fd/%ld", (int)p->t->pid, (int)tid, p->tw);
	ssize_t n = readlink(path, other, sizeof(other) - 1);
	other[n > 0 ? n : 0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/fd/%ld", (int)p->t->pid, (int)tid, p->tr);
	n = readlink(path, seen, len - 1);
	seen[n > 0 ? n : 0] = 0;
	unsigned long long ino;
	if (strncmp(seen, "pipe:[", 6) || strcmp(seen, other) || sscanf(seen, "pipe:[%llu]", &ino) != 1)
		return -EBADF;
	p->rd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (p->rd < 0)
		return -errno;
	if (fstat(p->rd, &st) || !S_ISFIFO(st.st_mode) || st.st_ino != ino) {
		close(p->rd);
		p->rd = -1;
		return -EBADF;
	}
	/* Larger than a write; the kernel may refuse (pipe-max-size, too many
	 * pipe pages for the user): the size it has is then used. */
	p->ino = (uint64_t)st.st_ino;
	fcntl(p->rd, F_SETPIPE_SZ, DUMP_PIPE_SIZE);
	int cap = fcntl(p->rd, F_GETPIPE_SZ);
	p->cap = cap > 0 ? (size_t)cap : 4096;
	return 0;
}

/* Close the target's end *fd (if open): 0 or a transport error. */
static int close_remote(struct dump_pipe *p, long *fd)
{
	long ret;
	if (*fd < 0)
		return 0;
	int e = rproc_close(p->t, *fd, &ret);
	if (!e)
		*fd = -1;
	return e;
}

enum ja_exit dump_pipe_make(struct target *t, struct act_result *r, const char *doing,
			    uint64_t max, struct dump_pipe *p)
{
	memset(p, 0, sizeof(*p));
	p->t = t;
	p->tr = p->tw = -1;
	p->rd = p->out = -1;
	p->max = max;
	long fds[2], ret;
	/* A child forked from here on may inherit the pipe's ends (close-on-
	 * exec covers only an exec): act_dump_children looks at those born
	 * since, a tick early for the clock's granularity. */
	r->out.dump.pipe_born = target_uptime_ticks() - 1;
	int e = rproc_pipe(t, O_CLOEXEC | O_NONBLOCK, fds, &ret);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (ret < 0)
		return act_syscall_failed(t, r, doing, "pipe2", (int)-ret);
	p->tr = fds[0];
	p->tw = fds[1];
	char seen[64];
	if ((e = open_read_end(p, seen, sizeof(seen)))) {
		if (e == -EBADF) {
			p->tr = p->tw = -1; /* not ours any more: left alone */
			return act_fail(r, JA_EXIT_UNSAFE,
					"%s: the pipe jeattach just made in the target is not at "
					"its descriptors any more (%s): another thread of the "
					"process replaced it; nothing was dumped, and it was left open",
					doing, seen[0] ? seen : "unreadable");
		}
		act_fail(r, JA_EXIT_INTERNAL, "%s: cannot open the target's pipe: %s", doing,
			 strerror(-e));
		goto undo;
	}
	r->out.dump.pipe_ino = p->ino;
	r->out.dump.pipe_fd[0] = p->tr;
	r->out.dump.pipe_fd[1] = p->tw;
	p->out = memfd_create("jeattach-profile", MFD_CLOEXEC);
	if (p->out < 0) {
		act_fail(r, JA_EXIT_INTERNAL, "%s: memfd_create in jeattach: %s", doing,
			 strerror(errno));
		goto undo;
	}
	r->out.dump.fd = p->out;
	return JA_EXIT_OK;
undo:
	close_all(p);
	return r->code;
}

/* How long the last reader waits for the last write end to go. */
#define NO_WRITER_US 20000

/* The target's ends, then ours: 0 or a transport error. No reader goes
 * while a write end is open anywhere: a write another thread of the
 * target has begun holds the write end's file after its descriptor is
 * closed, and if it takes the pipe's lock after the last reader went, it
 * raises SIGPIPE (fs/pipe.c pipe_write), whose default action kills the
 * process (victim -G, a thread writing into the pipe: killed once in about
 * 70 dumps). So the read ends stay until a read says no writer is left
 * (0, not EAGAIN), or NO_WRITER_US (a child forked meanwhile holds one:
 * act_dump_children closes it after the release). */
static int close_all(struct dump_pipe *p)
{
	int e = 0;
	/* jemalloc closed the write end it was given; else it is ours. */
	if (!p->taken)
		e = close_remote(p, &p->tw);
	p->tw = -1;
	const core_usec_t until = core_now_us() + NO_WRITER_US;
	while (!e && !drain(p) && p->rd >= 0 && core_now_us() < until) {
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
	if (!e)
		e = close_remote(p, &p->tr);
	drain(p);
	if (p->rd >= 0)
		close(p->rd);
	p->rd = -1;
	return e;
}

int dump_pipe_end(struct dump_pipe *p)
{
	int e = close_all(p);
	if (p->out >= 0)
		lseek(p->out, 0, SEEK_SET);
	return e;
}
