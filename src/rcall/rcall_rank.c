/* SPDX-License-Identifier: BSD-2-Clause */
/* Which thread to borrow first: the one whose borrowing costs the service
 * least. On Debian's redis-server the main thread serves every request
 * while three bio threads wait in pthread_cond_wait with no timeout; a
 * hold on a bio thread (even one of 92 ms) was not felt by a closed-loop
 * client, a hold on the main thread was, for its whole length. So: threads
 * blocked in a wait with no timeout first, timed waits next, threads
 * running or runnable last (rcall_wait_cost); the leader has no place of
 * its own; among equals the one that has been idle longest, by when it
 * last started to run. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rcall_internal.h"
#include "rcall_reads.h"

const char *rcall_cost_name(enum rcall_cost c)
{
	static const char *const names[] = { "untimed_wait", "untimed_wait", "timed_wait",
					     "timed_wait",   "running",	     "gone" };
	return c <= RCALL_COST_GONE ? names[c] : "unknown";
}

/* When tid last started to run: se.exec_start in /proc/PID/task/TID/sched
 * (kernel/sched/debug.c proc_sched_show_task; the scheduler's clock in
 * milliseconds, updated when the task is put on a CPU and while it runs).
 * Only compared between threads of one process read moments apart, so no
 * clock is converted. 0: unknown (a kernel without the file). */
static double last_ran(struct target *t, pid_t tid)
{
	char *text = rcall_reads.task_file(t->io_pid, tid, "sched");
	const char *v = text ? strstr(text, "se.exec_start") : NULL;
	if (v)
		v = strchr(v, ':');
	double ms = v ? strtod(v + 1, NULL) : 0;
	free(text);
	return ms > 0 ? ms : 0;
}

int rcall_rank_compare(const void *pa, const void *pb)
{
	const struct rcall_candidate *a = pa, *b = pb;
	if (a->cost != b->cost)
		return a->cost < b->cost ? -1 : 1;
	/* Idle longest first; a thread whose last run is unknown after those
	 * whose is known. */
	if (a->last_ran != b->last_ran) {
		if (!a->last_ran || !b->last_ran)
			return a->last_ran ? -1 : 1;
		return a->last_ran < b->last_ran ? -1 : 1;
	}
	return a->tid < b->tid ? -1 : a->tid > b->tid;
}

int rcall_rank(struct target *t, pid_t *tids, int n)
{
	struct rcall_ctx *c = t->rc;
	if (n > c->ranked_cap) {
		struct rcall_candidate *v = realloc(c->ranked, sizeof(*v) * (size_t)n);
		if (!v)
			return -ENOMEM;
		c->ranked = v;
		c->ranked_cap = n;
	}
	int k = 0;
	for (int i = 0; i < n; i++) {
		enum rcall_cost cost = rcall_wait_cost(t, tids[i]);
		if (cost == RCALL_COST_GONE)
			continue;
		c->ranked[k++] = (struct rcall_candidate){ tids[i], cost, last_ran(t, tids[i]) };
	}
	qsort(c->ranked, (size_t)k, sizeof(*c->ranked), rcall_rank_compare);
	for (int i = 0; i < k; i++)
		tids[i] = c->ranked[i].tid;
	c->nranked = k;
	return k;
}

enum rcall_cost rcall_ranked_cost(const struct target *t, pid_t tid)
{
	const struct rcall_ctx *c = t->rc;
	for (int i = 0; i < c->nranked; i++)
		if (c->ranked[i].tid == tid)
			return c->ranked[i].cost;
	return RCALL_COST_RUNNING; /* not ranked: assume the worst */
}

void rcall_set_long_call(struct target *t, int on)
{
	if (t->rc)
		t->rc->long_call = on;
}

int rcall_held_info(const struct target *t, struct rcall_hold_info *out)
{
	const struct rcall_held *h = t->rc ? t->rc->hold : NULL;
	if (!h)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->tid = h->tid;
	out->cost = h->cost;
	out->rank = h->rank;
	out->candidates = h->candidates;
	snprintf(out->comm, sizeof(out->comm), "%s", h->comm);
	return 0;
}

void rcall_comm_read(struct target *t, pid_t tid, char comm[16])
{
	char *text = rcall_reads.task_file(t->io_pid, tid, "comm");
	comm[0] = 0;
	if (text) {
		text[strcspn(text, "\n")] = 0;
		snprintf(comm, 16, "%s", text);
		free(text);
	}
}
