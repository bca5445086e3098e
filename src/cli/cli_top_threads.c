/* SPDX-License-Identifier: BSD-2-Clause */
/* --top's threads: each located once, then its counters read with
 * process_vm_readv at every refresh, no thread stopped.
 *
 * Located by its thread pointer, jemalloc's tsd being in static TLS
 * (act_counters.c), and the thread pointer read from glibc's list of
 * thread descriptors (act_tplist.c): no thread is stopped for it. A stop
 * for the registers (rcall_peek), what was done before, could catch a
 * thread that its wait's timer had woken before it left the call: the
 * interrupt turned its io_getevents or semtimedop timeout into an EINTR,
 * rewound into a whole new wait (304 ms late on a 300 ms wait, t_waits).
 * A thread not in the list (created as the list was read, or not by
 * glibc: a raw clone(), whose counters are not its own anyway) is looked
 * for again at the next refreshes, TOP_PEEK_TRIES in all, then shown as
 * not located: never stopped. Only where the list is not known (a libc
 * whose descriptors do not have glibc's layout) is each new thread still
 * stopped once, for its registers only, as before.
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
#include "act_tplist.h"
#include "cli_signal.h"
#include "cli_top.h"
#include "core_read.h"
#include "rcall.h"
#include "sym_maps.h"

#define TOP_MAX_THREADS 65536
#define TOP_PEEK_TRIES 3         /* refreshes a thread is tried at */
#define TOP_IOV 512                /* counters read per process_vm_readv */

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

/* A thread just located: its counters now, so that a single refresh
 * (--prometheus once) has them. It was alive, with this start time, when
 * the threads were listed, before its thread pointer was read (from
 * glibc's list, or a stop); if it still is after the read, the read was
 * its own. */
static void first_read(struct target *t, struct top_thread *x)
{
	uint64_t v[2];
	unsigned long long start;
	char comm[sizeof(x->comm)];
	if (read_one(target_io_pid(t), x, v) ||
	    target_thread_stat(target_pid(t), x->tid, comm, sizeof(comm), &start) || start != x->start) {
		x->allocp = x->deallocp = 0; /* gone: its addresses are no one's */
		return;
	}
	x->alloc = v[0];
	x->dealloc = v[1];
	x->valid = 1;
}


/* Stop x once for its thread pointer, and find its counters from it. A
 * thread in a timed wait is watched until its next wait begins, for as
 * long as the refresh's budget allows (rcall_peek). */
static int peek(struct target *t, struct top_threads *th, struct top_thread *x,
		const struct act_counters *k, const struct sym_maps *maps, core_usec_t deadline,
		uint64_t at[2])
{
	th->peeked++;
	core_usec_t t0 = core_now_us();
	int e = rcall_peek(t, x->tid, deadline, &x->tp);
	int64_t us = core_now_us() - t0;
	th->peek_us_max = us > th->peek_us_max ? us : th->peek_us_max;
	if (e)
		return e;
	/* A thread glibc did not create (a raw clone() without CLONE_SETTLS)
	 * shares its creator's thread pointer: the counters there are the
	 * other thread's. Neither is believed. */
	for (int i = 0; i < th->n; i++)
		if (th->v[i].tid != x->tid && th->v[i].tp == x->tp) {
			th->v[i].allocp = th->v[i].deallocp = 0;
			th->v[i].tries = TOP_PEEK_TRIES;
			return -1;
		}
	return act_counters_at(k, maps, x->tp, at);
}

static int by_tid(const void *a, const void *b)
{
	pid_t x = (*(struct top_thread *const *)a)->tid, y = (*(struct top_thread *const *)b)->tid;
	return (x > y) - (x < y);
}

/* The threads to locate, in tid order from the one after the last tried,
 * so that threads a refresh's budget does not reach (one long watch of a
 * timed wait can take it all) come first at the next. */
static int to_locate(struct target *t, struct top_threads *th, struct top_thread **out,
		     int *first)
{
	int m = 0;
	for (int i = 0; i < th->n; i++) {
		struct top_thread *x = &th->v[i];
		/* An ended leader (a zombie) has no thread to stop. */
		if (!x->allocp && x->tries < TOP_PEEK_TRIES &&
		    !(target_io_pid(t) != target_pid(t) && x->tid == target_pid(t)))
			out[m++] = x;
	}
	qsort(out, (size_t)m, sizeof(*out), by_tid);
	for (*first = 0; *first < m && out[*first]->tid <= th->last_tid;)
		++*first;
	return m;
}

/* The threads of todo[0..m) from glibc's list, no thread stopped: 0, or
 * -1 when the list is not known here (the caller peeks). A thread not in
 * it is tried at the next refreshes. */
static int locate_listed(struct target *t, struct top_threads *th, struct act_counters *k,
			 const struct sym_maps *maps, struct top_thread **todo, int m)
{
	pid_t *tids = malloc(sizeof(*tids) * (size_t)(th->n + 1));
	struct tplist_thread *v = malloc(sizeof(*v) * (size_t)(th->n + 1));
	int n = 0;
	uint64_t alt = 0; /* a thread located before, listed now */
	for (int i = 0; tids && i < th->n; i++) {
		tids[n++] = th->v[i].tid;
		alt = th->v[i].allocp && th->v[i].tp ? th->v[i].tp : alt;
	}
	int got = tids && v ? act_tplist_locate(k, t, tids, n, alt, v) : -1;
	for (int j = 0; got >= 0 && j < m; j++) {
		struct top_thread *x = todo[j];
		uint64_t at[2];
		x->tp = act_tplist_tp(v, got, x->tid);
		if (!x->tp || act_counters_at(k, maps, x->tp, at)) {
			x->tp = 0;
			if (++x->tries < TOP_PEEK_TRIES)
				th->pending++; /* not in the list yet: at the next refresh */
			else
				th->missed++;
			continue;
		}
		x->allocp = at[0];
		x->deallocp = at[1];
		th->located++;
		first_read(t, x);
	}
	free(tids);
	free(v);
	return got >= 0 ? 0 : -1;
}

/* Each of todo[0..m) stopped once for its thread pointer (rcall_peek),
 * where glibc's list is not known: until deadline or a signal. */
static void locate_peeked(struct target *t, struct top_threads *th, struct act_counters *k,
			  const struct sym_maps *maps, struct top_thread **todo, int m,
			  int first, core_usec_t deadline)
{
	for (int j = 0; j < m; j++) {
		struct top_thread *x = todo[(first + j) % m];
		uint64_t at[2];
		if (core_now_us() >= deadline || cli_pending_signal()) {
			th->pending += m - j; /* at the next refresh */
			break;
		}
		th->last_tid = x->tid;
		int e = peek(t, th, x, k, maps, deadline, at);
		if (e > 0) {
			th->pending++; /* not now (a wait, a signal): later */
		} else if (e < 0) {
			x->tries++;
			th->missed++;
		} else {
			x->allocp = at[0];
			x->deallocp = at[1];
			th->located++;
			first_read(t, x);
		}
	}
}

/* Locate the counters of threads that have none yet. Where they cannot be
 * located from thread pointers (k->state not 1: a jemalloc whose tsd is
 * not in static TLS), threads are listed with no figures, and the output
 * says why: the other way, borrowing each thread for its own
 * thread.allocatedp, costs a thread that never allocated a tsd and a
 * tcache, and one caught as it ends a tcache that is never freed, which a
 * later epoch walks into (a SIGSEGV with jemalloc's ctl lock taken, seen
 * on victim_dyn -c; act_counters.c). */
static void locate_new(struct target *t, struct top_threads *th, struct act_counters *k,
		       core_usec_t deadline)
{
	struct sym_maps maps = { 0 };
	struct top_thread **todo = k->state == 1 || k->state == 2 ?
					   malloc(sizeof(*todo) * (size_t)(th->n + 1)) :
					   NULL;
	th->pending = 0;
	if (!todo)
		return;
	int first, m = to_locate(t, th, todo, &first);
	/* Read after the listing: every thread listed has its stack. */
	int have = (m || k->state == 2) && !sym_maps_read(target_io_pid(t), &maps);
	if (have && k->state == 2) { /* the first refresh: what its hold learnt */
		act_counters_check(k, &maps);
		act_tplist_learn(k, t);
	}
	if (!have || k->state != 1)
		m = 0; /* maps not read: at the next refresh */
	if (m && locate_listed(t, th, k, &maps, todo, m))
		locate_peeked(t, th, k, &maps, todo, m, first, deadline);
	sym_maps_free(&maps);
	free(todo);
}

void cli_top_threads_refresh(struct target *t, struct top_threads *th,
			     struct act_counters *k, core_usec_t deadline, double dt)
{
	if (!th->tids && !(th->tids = malloc(sizeof(*th->tids) * TOP_MAX_THREADS)))
		return;
	size_t cap = (size_t)th->n + 1;
	uint64_t *vals = calloc(cap * 2, sizeof(*vals));
	char *ok = calloc(cap, 1);
	if (vals && ok) /* before the listing: a read counts if listed on both sides */
		read_counters(target_io_pid(t), th, vals, ok); /* a live thread: an ended leader has no mm */
	int n = vals && ok ? target_threads(target_pid(t), th->tids, TOP_MAX_THREADS) : -1;
	struct top_thread *fresh = n > 0 ? calloc((size_t)n, sizeof(*fresh)) : NULL;
	if (fresh) {
		int m = relist(target_pid(t), th, vals, ok, dt, fresh, th->tids, n);
		free(th->v);
		th->v = fresh;
		th->n = m;
		locate_new(t, th, k, deadline);
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
