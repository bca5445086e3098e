/* SPDX-License-Identifier: BSD-2-Clause */
/* rcall_peek: stop one thread just long enough to read its registers, then
 * let it go, nothing injected and nothing written. What --top and the
 * per-thread pass's idle check needed of a thread they only watch: its
 * thread pointer, from which its static TLS, and jemalloc's counters
 * there, are found (act_counters.c). Cheaper for the target than a
 * borrow, and unlike a borrow it makes jemalloc create nothing: a mallctl
 * on a thread that never allocated gives it a tsd and a tcache (5.3
 * src/tsd.c tsd_data_init -> tsd_tcache_enabled_data_init), about 32 KiB
 * that every later "epoch" merges.
 *
 * Now the fallback only: on glibc, both read thread pointers from glibc's
 * list of thread descriptors with no stop at all (act_tplist.c). A stop
 * can catch a thread that its wait's timer has woken but that has not
 * left the call yet (/proc shows it "running", so rcall_wait_check sees
 * no wait to watch): the interrupt turns io_getevents' or semtimedop's
 * timeout into EINTR, which is rewound into a whole new wait (304 ms late
 * on a 300 ms wait, t_waits). Used where that list is not known (a libc
 * whose descriptors are not glibc's).
 *
 * The stop is a hold's first half (rcall_stop.c): a thread in a timed
 * wait that an interrupt would stretch is watched until its wait begins,
 * and the EINTR the interrupt causes is undone before it runs again. */
#include "config.h"

#include <errno.h>
#include "rcall_internal.h"

int rcall_peek_regs(struct target *t, pid_t tid, core_usec_t deadline, arch_gpregs_t *r)
{
	struct rcall_ctx *c = t->rc;
	if (!c)
		return -EINVAL;
	if (c->hold)
		return -EBUSY;
	rcall_sweep(t);
	for (size_t i = 0; i < c->nstragglers; i++)
		if (c->stragglers[i].tid == tid)
			return 1; /* interrupted before, still not stopped */
	/* Waiting on a socket, whose SO_RCVTIMEO cannot be read from outside
	 * (rcall_wait.c is_socket): the interrupt's EINTR would be rewound
	 * into a whole new wait. Tried again later, when it is not. */
	if (rcall_wait_timed(t, tid) == RCALL_WAIT_SOCKET)
		return 1;
	/* A thread with children, as for a hold (rcall_stop.c). */
	pid_t two[2];
	const int alone = target_threads(t->pid, two, 2) == 1;
	char reason[160];
	if (rcall_has_children(t, tid, alone, reason, sizeof(reason)))
		return 1;
	/* rcall_wait_check watches a timed wait until this deadline, as it
	 * does for the one thread of --tid. */
	pid_t only = c->only_tid;
	core_usec_t until = c->deadline;
	c->only_tid = tid;
	c->deadline = deadline;
	struct rcall_held h = { .tid = tid, .look_only = 1 };
	int e = rcall_wait_check(t, tid, 1, &h.wait_began, reason, sizeof(reason));
	c->only_tid = only;
	c->deadline = until;
	if (e)
		return 1;
	if ((e = rcall_stop_thread(t, tid, &h)))
		return e;
	/* Its first stop undid our EINTR (rcall_stop.c): the registers read
	 * now are the thread's own, and letting go restarts what it was in.
	 * Forked just before its stop: let go at once, unread. */
	if (rcall_has_children(t, tid, alone, reason, sizeof(reason)))
		return pt_detach(tid, 0) ?: 1;
	e = pt_get_gpregs(tid, r);
	int d = pt_detach(tid, 0);
	return e ? e : d;
}

int rcall_peek(struct target *t, pid_t tid, core_usec_t deadline, uint64_t *tp)
{
	arch_gpregs_t r;
	int e = rcall_peek_regs(t, tid, deadline, &r);
	if (!e)
		*tp = arch_thread_pointer(&r);
	return e;
}

int rcall_held_tp(const struct target *t, uint64_t *tp)
{
	const struct rcall_ctx *c = t->rc;
	if (!c || !c->hold)
		return -EINVAL;
	*tp = arch_thread_pointer(&c->hold->regs);
	return 0;
}
