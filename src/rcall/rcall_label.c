/* SPDX-License-Identifier: BSD-2-Clause */
/* The label at the top of every scratch mapping (rcall_scratch.c): what
 * tells a later jeattach that a mapping is jeattach's, whose, and whether
 * a call may still run on it.
 *
 * One attach keeps its mapping from hold to hold, across its waits
 * (rcall_keep_scratch), and a jeattach killed with SIGKILL, in a wait or
 * in a hold, cannot remove it. The next jeattach on that process finds it
 * by its label (rcall_scratch_adopt), takes the first over as its own
 * kept mapping and unmaps the others in its first hold: a kill leaves a
 * mapping only until the next attach, never for the process's life.
 *
 * A mapping is only touched when its owner is certainly gone (no process
 * has its pid in this pid namespace, or one with another start time) and
 * no call can still run on it: kept between holds, or its held thread gone
 * or seen outside it (a crash-safe call the killed jeattach had started
 * runs on to its rt_sigreturn on that mapping's stack: rcall.c). An owner
 * that cannot be looked at (hidepid, another user's) counts as alive.
 * Looking, taking over and unmapping are one attach's at a time: a lock
 * per target process, held from the look to the first release (two
 * attaches after one kill both took one mapping over, an adversarial
 * review found: the target died of SIGSEGV). A label the program forged
 * only makes jeattach unmap that program's own memory, and reading or
 * judging thousands of them is bounded (RCALL_LABELS_MAX). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>
#include "rcall_internal.h"
#include "rcall_reads.h"
#include "sym_maps.h"
#include "target.h"

static const char label_magic[8] = { 'j', 'e', 'a', 't', 't', 'a', 'c', 'h' };

/* This process's owner fields, read once. */
static void self_owner(struct rcall_label *l)
{
	static uint64_t start, pidns, timens;
	static int known;
	if (!known) {
		unsigned long long s = 0;
		struct stat st;
		if (!target_thread_stat(getpid(), getpid(), NULL, 0, &s))
			start = s;
		if (!stat("/proc/self/ns/pid", &st))
			pidns = st.st_ino;
		if (!stat("/proc/self/ns/time", &st))
			timens = st.st_ino;
		known = 1;
	}
	l->owner_pid = getpid();
	l->owner_start = start;
	l->owner_pidns = pidns;
	l->owner_timens = timens;
}

uint64_t rcall_label_addr(uint64_t map_end)
{
	return map_end - RCALL_LABEL_LEN;
}

int rcall_label_write(pid_t tid, uint64_t map_addr, const struct rcall_label_state *s)
{
	struct rcall_label l = { 0 };
	memcpy(l.magic, label_magic, sizeof(l.magic));
	self_owner(&l);
	l.token = s->token;
	l.state = s->state;
	l.held_tid = s->held_tid;
	l.grows = s->grows;
	return pt_write(tid, rcall_label_addr(map_addr + RCALL_SCRATCH_MAP_LEN), &l, sizeof(l));
}

int rcall_label_same(pid_t tid, uint64_t map_end, const struct rcall_label *was)
{
	struct rcall_label l;
	return !rcall_label_read(tid, map_end, &l) && !memcmp(&l, was, sizeof(l));
}

int rcall_label_read(pid_t pid, uint64_t map_end, struct rcall_label *l)
{
	int e = rcall_reads.memory(pid, rcall_label_addr(map_end), l, sizeof(*l));
	if (e)
		return e;
	return memcmp(l->magic, label_magic, sizeof(l->magic)) ? -ENOENT : 0;
}

int rcall_label_mine(const struct rcall_label *l)
{
	struct rcall_label me;
	self_owner(&me);
	return l->owner_pid == me.owner_pid && l->owner_start == me.owner_start &&
	       l->owner_pidns == me.owner_pidns && l->owner_timens == me.owner_timens;
}

enum rcall_leftover rcall_label_judge(const struct rcall_label *l, const struct rcall_label *me,
				      int owner_alive, enum rcall_label_thread on_it)
{
	/* Another pid namespace's pid says nothing here, nor another time
	 * namespace's start time. */
	if (l->owner_pidns != me->owner_pidns || l->owner_timens != me->owner_timens)
		return RCALL_LEFTOVER_ELSEWHERE;
	if (owner_alive)
		return RCALL_LEFTOVER_OWNED;
	if (l->state == RCALL_LABEL_KEPT)
		return RCALL_LEFTOVER_STALE;
	if (l->state != RCALL_LABEL_IN_HOLD)
		return RCALL_LEFTOVER_OWNED; /* not a state jeattach writes: left alone */
	return on_it == RCALL_LABEL_THREAD_OFF ? RCALL_LEFTOVER_STALE : RCALL_LEFTOVER_BUSY;
}

/* Is the label's owner still running? Gone only when no process has its
 * pid (kill: ESRCH; EPERM is a process) or the one that has it started at
 * another time (the pid reused); one that cannot be read is alive. */
static int owner_alive(const struct rcall_label *l)
{
	unsigned long long start;
	if (l->owner_pid <= 0)
		return 0;
	if (kill(l->owner_pid, 0) && errno == ESRCH)
		return 0;
	if (!target_thread_stat(l->owner_pid, l->owner_pid, NULL, 0, &start))
		return start == l->owner_start;
	return 1;
}

/* Where the label's held thread is, for a mapping [lo, hi): gone or
 * outside it is off; blocked with its sp inside, on; running, a stop for
 * its registers alone (rcall_peek_regs) tells. */
static enum rcall_label_thread thread_on(struct target *t, pid_t tid, uint64_t lo, uint64_t hi)
{
	char *text = tid > 0 ? rcall_reads.task_file(t->io_pid, tid, "syscall") : NULL;
	if (!text)
		return tid > 0 ? RCALL_LABEL_THREAD_OFF : RCALL_LABEL_THREAD_UNKNOWN;
	struct arch_blocked_call b;
	pt_parse_blocked_call(text, &b);
	free(text);
	uint64_t sp;
	arch_gpregs_t r;
	if (b.valid) {
		sp = b.sp;
	} else {
		t->rc->label_peeks++;
		int e = rcall_peek_regs(t, tid, core_now_us() + RCALL_LABEL_PEEK_US, &r);
		if (e == -ESRCH)
			return RCALL_LABEL_THREAD_OFF;
		if (e)
			return RCALL_LABEL_THREAD_UNKNOWN;
		sp = arch_sp(&r);
	}
	return sp >= lo && sp < hi ? RCALL_LABEL_THREAD_ON : RCALL_LABEL_THREAD_OFF;
}

/* One candidate area [start, end) of the maps: labels at its end and, for
 * mappings of ours merged into one area (mm/mmap.c vma_merge: same flags),
 * every RCALL_SCRATCH_MAP_LEN below it. */
static void look_at(struct target *t, const struct sym_map *m, struct rcall_label *me)
{
	struct rcall_ctx *c = t->rc;
	for (uint64_t end = m->end; end - m->start >= RCALL_SCRATCH_MAP_LEN;
	     end -= RCALL_SCRATCH_MAP_LEN) {
		struct rcall_label l;
		if (c->labels_read >= RCALL_LABELS_MAX || rcall_label_read(t->io_pid, end, &l))
			return;
		c->labels_read++;
		/* One that grew down (rcall_scratch.c map_start) begins at
		 * the area's start. */
		const uint64_t lo = l.grows && end == m->end ? m->start : end - RCALL_SCRATCH_MAP_LEN;
		/* The owner first: a thread is stopped to look at it only
		 * for a mapping that is otherwise free to go. */
		const int alive = owner_alive(&l);
		enum rcall_leftover v = rcall_label_judge(&l, me, alive, RCALL_LABEL_THREAD_OFF);
		if (v == RCALL_LEFTOVER_STALE && l.state == RCALL_LABEL_IN_HOLD)
			v = rcall_label_judge(&l, me, alive,
					      c->label_peeks < RCALL_LABEL_PEEKS_MAX ?
						      thread_on(t, l.held_tid, lo, end) :
						      RCALL_LABEL_THREAD_UNKNOWN);
		/* Beyond the bound, left for the next run. */
		if (v == RCALL_LEFTOVER_STALE && c->nstale < RCALL_STALE_MAX)
			c->stale[c->nstale++] = (struct rcall_stale){ lo, end, l };
		else
			c->nstale_left++;
	}
}

/* The lock of this target process (its pid and start time): an abstract
 * unix socket's name, bound by one process at a time and let go by the
 * kernel when that process dies, however it dies: no file to leave, to be
 * planted by another user, or to lack a directory for (a lock file in
 * /run/lock was first; the arm64 guest's run then looked at nothing, as
 * a lock it could not have does). Abstract names are per network
 * namespace: two jeattach
 * runs in different ones are not kept apart. Taken within
 * RCALL_CLAIM_WAIT_US or not at all. */
#define RCALL_CLAIM_WAIT_US 2000000
static int claim(struct target *t)
{
	struct rcall_ctx *c = t->rc;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, "jeattach-scratch-%d-%llu",
			 (int)t->pid, (unsigned long long)target_get_info(t)->start);
	const socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
	const core_usec_t until = core_now_us() + RCALL_CLAIM_WAIT_US;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	while (bind(fd, (struct sockaddr *)&sa, len)) {
		if (errno != EADDRINUSE || core_now_us() >= until) {
			close(fd);
			return -1;
		}
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	c->claim_fd = fd;
	return 0;
}

void rcall_label_unlock(struct rcall_ctx *c)
{
	if (c->claim_fd < 0)
		return;
	close(c->claim_fd);
	c->claim_fd = -1;
}

void rcall_scratch_adopt(struct target *t)
{
	struct rcall_ctx *c = t->rc;
	struct rcall_label me;
	self_owner(&me);
	/* Another attach is at it (or the lock cannot be had): nothing
	 * looked at, nothing taken. */
	if (claim(t))
		return;
	for (size_t i = 0; i < t->maps.n; i++) {
		const struct sym_map *m = &t->maps.v[i];
		if (!m->path[0] && m->r && m->w && !m->x && m->p == 1 &&
		    m->end - m->start >= RCALL_SCRATCH_MAP_LEN)
			look_at(t, m, &me);
	}
	c->nstale_found = c->nstale;
	if (!c->nstale) {
		rcall_label_unlock(c);
		return;
	}
	/* The first becomes this run's kept mapping: its first hold takes it
	 * over (take_kept) instead of making one. */
	if (!c->kept_addr && c->stale[0].end - c->stale[0].lo == RCALL_SCRATCH_MAP_LEN) {
		c->kept_addr = c->stale[0].lo;
		c->kept_token = c->stale[0].label.token;
		c->kept_label = c->stale[0].label;
		c->kept_grows = c->stale[0].label.grows;
		c->kept_tid = 0;
		c->kept_foreign = 1;
		c->stale[0] = c->stale[--c->nstale];
	}
}
