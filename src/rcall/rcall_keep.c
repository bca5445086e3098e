/* SPDX-License-Identifier: BSD-2-Clause */
/* One scratch mapping for holds that follow one another at once (the
 * per-thread pass): kept by a release while asked (rcall_scratch_close),
 * taken over by the next hold (take_kept, rcall_scratch.c), and removed by
 * the last, or here by one more hold when the last thread was not held.
 * Above the hold: it holds a thread itself. */
#include "config.h"

#include <errno.h>
#include "rcall_internal.h"

/* The thread that kept it gets this long; then any thread, for what is
 * left of the deadline. */
#define KEPT_TID_BUDGET_US 100000

void rcall_keep_scratch(struct target *t, int how)
{
	if (t->rc)
		t->rc->keep_scratch = how;
}

int rcall_scratch_drop(struct target *t, uint64_t *addr)
{
	struct rcall_ctx *c = t->rc;
	*addr = c ? c->kept_addr : 0;
	if (!c || !c->kept_addr)
		return 0;
	c->keep_scratch = 0;
	/* Any thread will do: its hold takes the mapping over and its
	 * release removes it. The one that kept it first, idle at a safe
	 * point a moment ago: a search ranks every thread (the pass's 206
	 * threads: 2 ms). */
	const core_usec_t first = core_now_us() + KEPT_TID_BUDGET_US;
	int e;
	if (c->hold)
		e = -EBUSY;
	else if (!c->kept_tid)
		e = -ESRCH; /* adopted from a killed jeattach: any thread */
	else
		e = rcall_hold_tid(t, c->kept_tid, first < c->deadline ? first : c->deadline);
	if (e && e != -EBUSY && c->kept_addr)
		e = rcall_hold(t);
	if (!e)
		e = rcall_release(t);
	*addr = c->kept_addr; /* still there only if no thread was held */
	return e;
}

void rcall_scratch_leftovers(const struct target *t, int *found, int *removed, int *left)
{
	const struct rcall_ctx *c = t->rc;
	*found = c ? c->nstale_found + c->nstale_left : 0;
	*removed = c ? c->nstale_removed : 0;
	*left = c ? c->nstale_left : 0;
}
