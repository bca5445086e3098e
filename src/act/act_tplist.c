/* SPDX-License-Identifier: BSD-2-Clause */
/* Every thread's thread pointer, for the threads jeattach only watches
 * (--top, the per-thread pass's idle check), read from glibc's list of
 * thread descriptors (tplist.c) with process_vm_readv: no thread is
 * stopped. A stop for the registers alone (rcall_peek) could catch a
 * thread that its wait's timer had woken before it left the call, whose
 * io_getevents or semtimedop timeout the interrupt then turned into an
 * EINTR, rewound into a whole new wait (304 ms late on a 300 ms wait,
 * tests/integration/t_waits.sh).
 *
 * The list is found from the one thread a hold borrowed, whose tid and
 * thread pointer act_counters_learn kept. A thread pointer found in the
 * list is a candidate only: act_counters_at still requires the counters to
 * lie in its own mapping, and they are only ever read. */
#include "config.h"

#include <stdlib.h>
#include "act_tplist.h"
#include "rcall.h"

/* The target's memory, through the remote-call layer (rcall_read: the
 * held thread's, else the process's), never ptrace itself. */
static int read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return rcall_read(ctx, addr, buf, len) ? -1 : 0;
}

void act_tplist_learn(struct act_counters *k, struct target *t)
{
	struct tplist_mem m = { read_target, t };
	if (k->state != 1 || k->list || !k->tid)
		return;
	if (!tplist_find(&m, k->tp, k->tid, &k->node_off)) {
		k->list = 1;
		k->walk_tp = k->tp;
	}
}

struct want {
	const pid_t *tids; /* sorted */
	int n;
};

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;
	return (x > y) - (x < y);
}

static int wanted(void *ctx, pid_t tid)
{
	const struct want *w = ctx;
	return bsearch(&tid, w->tids, (size_t)w->n, sizeof(tid), cmp_pid) != NULL;
}

uint64_t act_tplist_tp(const struct tplist_thread *v, int n, pid_t tid)
{
	int lo = 0, hi = n;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (v[mid].tid == tid)
			return v[mid].tp;
		if (v[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

int act_tplist_locate(struct act_counters *k, struct target *t, const pid_t *tids, int n,
		      uint64_t alt_tp, struct tplist_thread *out)
{
	if (!k->list || n <= 0)
		return -1;
	pid_t *sorted = malloc(sizeof(*sorted) * (size_t)n);
	if (!sorted)
		return -1;
	for (int i = 0; i < n; i++)
		sorted[i] = tids[i];
	qsort(sorted, (size_t)n, sizeof(*sorted), cmp_pid);
	struct want w = { sorted, n };
	struct tplist_mem m = { read_target, t };
	/* About two reads a node: each thread's, a few heads and ended
	 * threads' descriptors, the neighbouring lists' probes. */
	int budget = 4 * n + 256;
	int got = tplist_walk(&m, k->walk_tp + (uint64_t)k->node_off, k->node_off, wanted, &w,
			      budget, out, n);
	/* Nothing from there (its stack unmapped: glibc frees cached stacks
	 * beyond its cache's 40 MiB, nptl/nptl-stack.c __nptl_free_stacks,
	 * 2.34+): from alt_tp, a thread located before and listed now. */
	if (got == 0 && alt_tp && alt_tp != k->walk_tp)
		got = tplist_walk(&m, alt_tp + (uint64_t)k->node_off, k->node_off, wanted, &w,
				  budget, out, n);
	/* The next walk starts from a thread alive now: the main thread if
	 * it was found (it lasts as long as the process, mostly), else the
	 * one borrowed if it still is, else any. The first one's node may
	 * by now be on glibc's cache of ended threads' stacks. */
	uint64_t next = got > 0 ? act_tplist_tp(out, got, target_io_pid(t)) : 0;
	if (!next && got > 0 && !act_tplist_tp(out, got, k->tid))
		next = out[0].tp;
	if (next)
		k->walk_tp = next;
	free(sorted);
	return got;
}
