/* SPDX-License-Identifier: BSD-2-Clause */
/* A hold that times out on threads in timed waits: a thread whose wait
 * cannot be dated is watched for its next wait to begin (rcall_wait.c),
 * and without --tid each watch lasts WATCH_MAX_US, so several threads in
 * 5 s waits can all be passed over until --timeout runs out. The message
 * then names every such thread, not the last one tried, and the timeout
 * that would do: under --tid the watch lasts to the deadline, so one of
 * the wait's length and a second more sees the next wait begin. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "core_list.h"
#include "rcall_internal.h"

void rcall_late_reset(struct rcall_ctx *c)
{
	c->late = (struct rcall_late){ 0 };
}

void rcall_late_note(struct rcall_ctx *c, pid_t tid, int64_t timeout_us)
{
	struct rcall_late *l = &c->late;
	for (int i = 0; i < l->n && i < RCALL_LATE_MAX; i++)
		if (l->tids[i] == tid)
			return;
	if (l->n < RCALL_LATE_MAX)
		l->tids[l->n] = tid;
	l->n++;
	if (timeout_us > l->longest_us)
		l->longest_us = timeout_us;
}

int rcall_late_reason(const struct rcall_ctx *c, struct ja_reason *r)
{
	const struct rcall_late *l = &c->late;
	if (!l->n)
		return 0;
	*r = (struct ja_reason){ .kind = JA_WHY_TIMED_WAITS, .tid = l->tids[0] };
	/* whole seconds, rounded up, and one more for the attach itself */
	r->n = (unsigned long long)((l->longest_us + 999999) / 1000000) + 1;
	char tids[120] = "";
	int k = l->n < RCALL_LATE_MAX ? l->n : RCALL_LATE_MAX;
	for (int i = 0; i < k; i++) {
		char one[16];
		snprintf(one, sizeof(one), "%d", (int)l->tids[i]);
		core_list_add_some(tids, sizeof(tids), (size_t)i, (size_t)k, (size_t)l->n, one);
	}
	snprintf(r->detail, sizeof(r->detail), "%s %s stayed in %s of %.3g s%s", l->n > 1 ? "threads" : "thread",
		 tids, l->n > 1 ? "timed waits" : "a timed wait", (double)l->longest_us / 1e6,
		 l->n > 1 ? " at most" : "");
	return 1;
}
