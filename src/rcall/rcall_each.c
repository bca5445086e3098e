/* SPDX-License-Identifier: BSD-2-Clause */
/* rcall_hold_tid: hold one chosen thread, as --tid does for a whole run,
 * for the per-thread pass (cli_each.c), which borrows every thread of the
 * target in turn. Each gets its own deadline, so a thread that cannot stop
 * (an uninterruptible wait) or is never at a safe point costs that budget
 * and no more; rcall_sweep lets it go once it does stop. */
#include "config.h"

#include <errno.h>
#include "rcall_internal.h"

int rcall_hold_tid(struct target *t, pid_t tid, core_usec_t deadline)
{
	struct rcall_ctx *c = t->rc;
	if (!c)
		return -EINVAL;
	if (c->hold)
		return -EBUSY;
	pid_t only = c->only_tid;
	core_usec_t until = c->deadline;
	c->only_tid = tid;
	c->deadline = deadline;
	int e = rcall_hold(t);
	c->only_tid = only;
	c->deadline = until;
	return e;
}
