/* SPDX-License-Identifier: BSD-2-Clause */
/* --top's threads: each borrowed once for the addresses of its counters
 * (act_top_thread_addrs), then read with process_vm_readv at every refresh,
 * no thread stopped.
 *
 * A counter lives in the thread's tsd, inside its static TLS block, on
 * memory glibc reuses for the next thread it creates (its stack cache,
 * nptl/allocatestack.c). After a thread exits, its addresses may hold
 * another thread's counters, or anything. So a read counts only for a
 * thread seen alive, with the same start time (field 22 of
 * /proc/PID/task/TID/stat: a reused tid has another), both before the read
 * (the previous refresh's listing) and after it (this refresh's): it was
 * alive throughout. Reading is the only thing done with those addresses:
 * nothing is ever written, so a wrong one costs a wrong figure, dropped. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "cli_signal.h"
#include "cli_top.h"
#include "core_read.h"
#include "rcall.h"

#define TOP_MAX_THREADS 65536
#define TOP_BORROW_BUDGET_US 50000 /* to find one thread at a safe point */
#define TOP_BORROW_TRIES 3         /* refreshes a thread is tried at */
#define TOP_IOV 512                /* counters read per process_vm_readv */
#define TOP_MIN_AGE_S 1.0          /* a younger thread is not borrowed yet */

/* One thread's two counters, one by one (after a batch failed). */
static int read_one(pid_t pid, struct top_thread *x, uint64_t out[2])
{
	struct iovec l = { out, 16 }, r[2] = { { (void *)(uintptr_t)x->allocp, 8 },
					       { (void *)(uintptr_t)x->deallocp, 8 } };
	return process_vm_readv(pid, &l, 1, r, 2, 0) == 16 ? 0 : -1;
}

/* Every known thread's counters into vals[2i], vals[2i+1]; ok[i] 1 if read. */
static void read_counters(pid_t pid, struct top_threads *th, uint64_t *vals, char *ok)
{
	struct iovec r[2 * TOP_IOV];
	int idx[TOP_IOV];
	for (int i = 0; i < th->n;) {
		int k = 0;
		for (; i < th->n && k < TOP_IOV; i++) {
			ok[i] = 0;
			if (!th->v[i].allocp)
				continue;
			r[2 * k] = (struct iovec){ (void *)(uintptr_t)th->v[i].allocp, 8 };
			r[2 * k + 1] = (struct iovec){ (void *)(uintptr_t)th->v[i].deallocp, 8 };
			idx[k++] = i;
		}
		if (!k)
			continue;
		uint64_t got[2 * TOP_IOV];
		struct iovec l = { got, (size_t)k * 16 };
		int whole = process_vm_readv(pid, &l, 1, r, (unsigned long)(2 * k), 0) ==
			    (ssize_t)k * 16;
		for (int j = 0; j < k; j++) {
			uint64_t *dst = &vals[2 * idx[j]];
			if (whole)
				memcpy(dst, &got[2 * j], 16);
			ok[idx[j]] = whole || !read_one(pid, &th->v[idx[j]], dst);
		}
	}
}

static struct top_thread *find(struct top_threads *th, pid_t tid)
{
	for (int i = 0; i < th->n; i++)
		if (th->v[i].tid == tid)
			return &th->v[i];
	return NULL;
}

/* The new table: threads listed now, each keeping what it had if it is
 * the same thread (tid and start time), with the counters read before
 * the listing when it was seen before it too. */
static int relist(pid_t pid, struct top_threads *th, const uint64_t *vals, const char *ok,
		  double dt, struct top_thread *out, const pid_t *tids, int n)
{
	int m = 0;
	for (int i = 0; i < n; i++) {
		struct top_thread x = { .tid = tids[i] };
		if (target_thread_stat(pid, tids[i], x.comm, sizeof(x.comm), &x.start))
			continue; /* gone since the listing */
		struct top_thread *old = find(th, tids[i]);
		if (old && old->start == x.start) {
			char comm[sizeof(x.comm)];
			memcpy(comm, x.comm, sizeof(comm)); /* a thread may rename itself */
			x = *old;
			memcpy(x.comm, comm, sizeof(comm));
			x.valid = 0;
			size_t k = (size_t)(old - th->v);
			if (ok[k]) {
				x.alloc_rate = old->valid && dt > 0 ? (double)(vals[2 * k] - old->alloc) / dt : 0;
				x.dealloc_rate = old->valid && dt > 0 ? (double)(vals[2 * k + 1] - old->dealloc) / dt : 0;
				x.alloc = vals[2 * k];
				x.dealloc = vals[2 * k + 1];
				x.valid = 1;
			}
		}
		out[m++] = x;
	}
	return m;
}

/* A thread just borrowed: its counters now, so that a single refresh
 * (--prometheus once) has them. It was alive, with this start time, when
 * it was held; if it still is after the read, the read was its own. */
static void first_read(struct target *t, struct top_thread *x)
{
	uint64_t v[2];
	unsigned long long start;
	char comm[sizeof(x->comm)];
	if (read_one(t->io_pid, x, v) ||
	    target_thread_stat(t->pid, x->tid, comm, sizeof(comm), &start) || start != x->start) {
		x->allocp = x->deallocp = 0; /* gone: its addresses are no one's */
		return;
	}
	x->alloc = v[0];
	x->dealloc = v[1];
	x->valid = 1;
}


/* Borrow threads that have no addresses yet, one short hold each, until
 * deadline or a signal. A thread is borrowed only once it is a second old.
 * Seen here: SIGSEGV at 0x14 inside epoch on victim_dyn -c (which makes
 * and joins threads nonstop), about one --top run in seven, never with
 * --stats alone. The likely path (read in jemalloc's sources, not traced):
 * a thread caught on its way out, after jemalloc's tsd destructor ran
 * (tsd_cleanup, a pthread key destructor), has its tsd and tcache made
 * again by the mallctl (tsd_fetch_slow's reincarnation), and nothing
 * frees them: the tcache stays on its arena's list in memory the next
 * thread reuses, and the next epoch's ctl_refresh walks it (the fault
 * left jemalloc's ctl lock taken: every later mallctl blocked). Short-lived
 * threads die before they are old enough; a long-lived one is borrowed
 * long before it ends. */
static void borrow_new(struct target *t, struct top_threads *th, pt_usec_t deadline)
{
	double now = target_uptime_ticks(), min_age = TOP_MIN_AGE_S * (double)sysconf(_SC_CLK_TCK);
	th->pending = 0;
	for (int i = 0; i < th->n; i++) {
		struct top_thread *x = &th->v[i];
		if (x->allocp || x->tries >= TOP_BORROW_TRIES)
			continue;
		if (now - (double)x->start < min_age) {
			th->pending++;
			continue;
		}
		if (pt_now_us() >= deadline || cli_pending_signal()) {
			th->pending++;
			continue;
		}
		pt_usec_t t0 = pt_now_us();
		char why[160];
		uint64_t a = 0, d = 0;
		int e = rcall_hold_tid(t, x->tid, t0 + TOP_BORROW_BUDGET_US);
		if (!e)
			e = act_top_thread_addrs(t, &a, &d, why, sizeof(why));
		int r = rcall_release(t);
		int64_t us = pt_now_us() - t0;
		th->borrow_us_max = us > th->borrow_us_max ? us : th->borrow_us_max;
		if (e || r) {
			x->tries++;
			th->missed++;
			continue;
		}
		x->allocp = a;
		x->deallocp = d;
		th->borrowed++;
		first_read(t, x);
	}
}

void cli_top_threads_refresh(struct target *t, struct top_threads *th, pt_usec_t deadline,
			     double dt)
{
	if (!th->tids && !(th->tids = malloc(sizeof(*th->tids) * TOP_MAX_THREADS)))
		return;
	size_t cap = (size_t)th->n + 1;
	uint64_t *vals = calloc(cap * 2, sizeof(*vals));
	char *ok = calloc(cap, 1);
	if (vals && ok) /* before the listing: a read counts if listed on both sides */
		read_counters(t->io_pid, th, vals, ok); /* a live thread: an ended leader has no mm */
	int n = vals && ok ? target_threads(t->pid, th->tids, TOP_MAX_THREADS) : -1;
	struct top_thread *fresh = n > 0 ? calloc((size_t)n, sizeof(*fresh)) : NULL;
	if (fresh) {
		int m = relist(t->pid, th, vals, ok, dt, fresh, th->tids, n);
		free(th->v);
		th->v = fresh;
		th->n = m;
		borrow_new(t, th, deadline);
	}
	free(vals);
	free(ok);
}

const char *const top_sort_names[TOP_NSORTS] = { "alloc/s", "free/s", "allocated", "tid" };

static enum top_sort sort_how; /* qsort's comparator takes no argument */

static double sort_key(const struct top_thread *x)
{
	switch (sort_how) {
	case TOP_SORT_ALLOC:
		return x->alloc_rate;
	case TOP_SORT_FREE:
		return x->dealloc_rate;
	case TOP_SORT_TOTAL:
		return (double)x->alloc;
	default:
		return -(double)x->tid; /* ascending */
	}
}

/* Largest first. */
static int by_key(const void *a, const void *b)
{
	double x = sort_key(a), y = sort_key(b);
	return (y > x) - (y < x);
}

void cli_top_threads_sort(struct top_threads *th, enum top_sort how)
{
	sort_how = how;
	if (th->n > 1)
		qsort(th->v, (size_t)th->n, sizeof(*th->v), by_key);
}

void cli_top_threads_free(struct top_threads *th)
{
	free(th->tids);
	th->tids = NULL;
	free(th->v);
	th->v = NULL;
	th->n = 0;
}

void cli_top_bytes(double b, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;
	double a = b < 0 ? -b : b;
	while (a >= 1024 && u < 4) {
		a /= 1024;
		b /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", b, units[u]);
}
