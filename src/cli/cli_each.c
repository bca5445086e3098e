/* SPDX-License-Identifier: BSD-2-Clause */
/* The per-thread pass: after a hold whose actions asked for it (activation
 * on jemalloc 5.2, --name-threads), borrow every thread of the target, one
 * at a time, each for one short hold, and have it make its own profiling
 * mallctls (act_thread.c). Never more than one thread is stopped, and
 * never for longer than a normal call: the others run on meanwhile.
 *
 * Each thread gets a budget to be found at a safe point (CLI_EACH_BUDGET_US,
 * or --timeout if shorter): a thread in an uninterruptible wait (D state, a
 * vfork parent) or one that stays inside the allocator costs that and is
 * reported, never waited on for good. Threads born after the pass started
 * need nothing: their first sample threshold is drawn when they make their
 * tdata (prof_tdata_init), with prof.active already on, and so do threads
 * that never allocated (idle()), which are let go without a call. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "act_tplist.h"
#include "cli_each.h"
#include "cli_scratch.h"
#include "cli_signal.h"
#include "errors.h"
#include "rcall.h"
#include "sym_maps.h"

#define CLI_EACH_BUDGET_US 500000
#define CLI_EACH_MAX_THREADS 65536
/* Where the threads' counters cannot be located (act_counters.c), a
 * thread younger than this is not borrowed. A thread caught on its way
 * out, after its pthread key destructors ran, with no tsd yet, gets a tsd
 * and a tcache from our mallctl (tsd_fetch_slow) that nothing frees: the
 * tcache stays on its arena's list in memory the next thread reuses, and
 * the next "epoch", the target's own or ours, walks it (seen as a SIGSEGV
 * inside epoch that left jemalloc's ctl lock taken, on a victim that makes
 * threads nonstop; doc/robustness.md). Short-lived threads end before they
 * are this old. Where the counters can be located, a thread whose counters
 * read zero is never borrowed instead (idle()), which covers that case
 * whatever the thread's age. */
#define CLI_EACH_MIN_AGE_S 1.0

struct each_tally {
	int done, named, missed, idle;
	int peeked; /* stops for the registers alone (rcall_peek) */
	struct sym_maps maps; /* read at the start, to locate counters */
	/* Thread pointers from glibc's list (act_tplist.c), read at the
	 * start; nlisted -1 when the list is not known here. */
	struct tplist_thread *listed;
	int nlisted;
	char missed_list[4000]; /* "TID (why); ..." as far as it fits */
	int64_t *us;            /* each borrowed thread's hold, for the median */
	int nus;
	/* The longest wait for a thread to be held: its search, the watch
	 * of a timed wait, threads passed over. Apart from the holds, which
	 * are what the thread felt. */
	int64_t wait_max;
};

static void missed(struct each_tally *y, pid_t tid, const char *why)
{
	size_t n = strlen(y->missed_list);
	y->missed++;
	if (n + 140 < sizeof(y->missed_list))
		snprintf(y->missed_list + n, sizeof(y->missed_list) - n, "%s%d (%.110s)",
			 n ? "; " : "", (int)tid, why);
	else if (!strstr(y->missed_list, "; ..."))
		snprintf(y->missed_list + n, sizeof(y->missed_list) - n, "; ...");
}

/* Why tid could not be held, in a few words: for one thread, the reason
 * the hold gives (rcall_hold_miss) is the news. */
static const char *hold_failure(struct target *t, int e)
{
	if (e == -JA_ERR_NOT_THREAD || e == -ESRCH)
		return "exited";
	if (e != -ETIMEDOUT)
		return ja_err_text(-e);
	const char *reason;
	switch (rcall_hold_miss(t, &reason)) {
	case RCALL_MISS_NOT_STOPPED:
		return "did not stop within its budget: an uninterruptible wait (D state, vfork)";
	case RCALL_MISS_UNSAFE:
		return reason;
	default:
		return "not at a safe point within its budget";
	}
}

/* Has the thread with thread pointer tp made no allocation, by its
 * counters (act_counters.c)? Then jemalloc has no tsd for it, or an empty
 * one, and a mallctl would make one with a tcache (about 32 KiB: 5.3
 * src/tsd.c tsd_data_init), or on a thread past its key destructors one
 * that is never freed. Nothing to rearm or name in it either: it has no
 * profiling data, and its first allocation draws its first sample
 * threshold with profiling as it is then. 1 idle, 0 allocated or counters
 * not known, -1 its thread pointer does not lead to them (a thread glibc
 * did not create). */
static int idle(struct cli_run *run, const struct sym_maps *maps, uint64_t tp)
{
	const struct act_counters *k = &run->sess.counters;
	uint64_t at[2], v[2];
	if (k->state != 1)
		return 0;
	if (act_counters_at(k, maps, tp, at) ||
	    rcall_read(run->t, at[0], &v[0], 8) || rcall_read(run->t, at[1], &v[1], 8))
		return -1;
	return !v[0] && !v[1];
}

/* Before a hold: is the thread idle, found without a hold? Its thread
 * pointer from glibc's list, no thread stopped (act_tplist.c). A thread
 * not in the list (created since the list was read, or not by glibc) is
 * not stopped just to look: the hold, which it needs anyway if it is not
 * idle, checks it (one stop instead of two). Only where the list is not
 * known, a stop for the registers alone (rcall_peek) tells an idle thread
 * at a fraction of a hold's cost (no errno call, no scratch mapping), and
 * it is let go with nothing run in it. That stop can catch a thread its
 * wait's timer has woken before it left the call, and stretch that wait
 * (doc/robustness.md): the fallback, not the rule. */
static int peek_idle(struct cli_run *run, pid_t tid, struct each_tally *y,
		     core_usec_t deadline)
{
	uint64_t tp;
	/* Settling: a thread with counters at zero may still have a tsd in
	 * jemalloc's list (one an earlier mallctl of jeattach's made). */
	if (run->sess.counters.state != 1 || run->sess.pass_settle)
		return 0;
	if (y->nlisted >= 0) {
		tp = act_tplist_tp(y->listed, y->nlisted, tid);
		return tp && idle(run, &y->maps, tp) > 0;
	}
	y->peeked++;
	if (rcall_peek(run->t, tid, deadline, &tp))
		return 0;
	return idle(run, &y->maps, tp) > 0;
}

/* One thread: hold it, let it make its calls, give it back. */
static void one_thread(struct cli_run *run, const struct options *o, pid_t tid,
		       struct each_tally *y)
{
	struct target *t = run->t;
	int64_t budget = CLI_EACH_BUDGET_US;
	if (o->timeout_s * 1e6 < (double)budget)
		budget = (int64_t)(o->timeout_s * 1e6);
	target_reason(t, (struct ja_reason){ .kind = JA_WHY_NONE });
	core_usec_t t0 = core_now_us();
	if (peek_idle(run, tid, y, t0 + (core_usec_t)budget)) {
		y->idle++;
		return;
	}
	/* The hold's budget its own: a thread in a timed wait was watched
	 * by the peek until its wait began, and is again by the hold. */
	struct rcall_timing after;
	int e = rcall_hold_tid(t, tid, core_now_us() + (core_usec_t)budget);
	if (e) {
		missed(y, tid, hold_failure(t, e));
		return;
	}
	/* Again under the hold: the tid may be another thread's by now. */
	char why[160] = "";
	uint64_t tp;
	int named = 0,
	    none = run->sess.pass_settle || rcall_held_tp(t, &tp) ? 0 : idle(run, &y->maps, tp);
	if (none < 0)
		snprintf(why, sizeof(why), "its thread pointer does not lead to jemalloc's data");
	e = none ? 0 : act_thread_pass(t, &run->sess, tid, &named, why, sizeof(why));
	int r = rcall_release(t);
	/* Its hold, from its interrupt to its release (rcall's own clock),
	 * and the wait before it apart. */
	rcall_timing(t, &after);
	const int64_t held = after.us_last, waited = core_now_us() - t0 - held;
	if (waited > y->wait_max)
		y->wait_max = waited;
	if (none > 0 && !r) {
		y->idle++;
		return;
	}
	if (none < 0)
		e = -EIO;
	y->us[y->nus++] = held;
	if (e || r) {
		missed(y, tid, e ? why : "could not be restored");
		return;
	}
	y->done++;
	y->named += named;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void report(struct act_result *r, const struct act_session *s, struct each_tally *y,
		   int64_t wall_us)
{
	if (s->pass_rearm)
		act_field_u64(r, "threads_rearmed", (uint64_t)y->done);
	if (s->pass_name)
		act_field_u64(r, "threads_named", (uint64_t)y->named);
	if (s->pass_settle)
		act_field_u64(r, "threads_settled", (uint64_t)y->done);
	act_field_u64(r, "threads_idle", (uint64_t)y->idle);
	act_field_u64(r, "threads_peeked", (uint64_t)y->peeked);
	act_field_u64(r, "threads_missed", (uint64_t)y->missed);
	act_field_str(r, "threads_missed_list", y->missed_list);
	qsort(y->us, (size_t)y->nus, sizeof(*y->us), cmp_i64);
	act_field_u64(r, "pass_us", (uint64_t)wall_us);
	act_field_u64(r, "pass_hold_us_median", y->nus ? (uint64_t)y->us[y->nus / 2] : 0);
	act_field_u64(r, "pass_hold_us_max", y->nus ? (uint64_t)y->us[y->nus - 1] : 0);
	act_field_u64(r, "pass_wait_us_max", (uint64_t)y->wait_max);
}

void cli_each_pass(struct cli_run *run, const struct options *o)
{
	struct act_session *s = &run->sess;
	if (!act_session_pass_wanted(s) || s->pass_step < 0)
		return;
	struct act_result *r = &run->res[s->pass_step];
	struct each_tally y = { 0 };
	pid_t *tids = malloc(sizeof(*tids) * CLI_EACH_MAX_THREADS);
	int n = tids ? target_threads(run->pid, tids, CLI_EACH_MAX_THREADS) : -ENOMEM;
	y.us = n > 0 ? calloc((size_t)n, sizeof(*y.us)) : NULL;
	/* After the listing: every thread listed has its stack mapped. Read
	 * for each pass (--sample has two in one run). */
	if (s->counters.state >= 1 && sym_maps_read(target_io_pid(run->t), &y.maps)) {
		s->counters.state = -1; /* cannot locate: threads a second old only */
		snprintf(s->counters.why, sizeof(s->counters.why), "its maps cannot be read");
	}
	act_counters_check(&s->counters, &y.maps);
	act_tplist_learn(&s->counters, run->t);
	y.listed = n > 0 ? malloc(sizeof(*y.listed) * (size_t)n) : NULL;
	y.nlisted = y.listed && s->counters.state == 1 ?
			    act_tplist_locate(&s->counters, run->t, tids, n, 0, y.listed) :
			    -1;
	core_usec_t t0 = core_now_us();
	/* One scratch mapping for the whole pass, the one the hold that
	 * asked for it made, removed by the pass's last hold
	 * (rcall_keep_scratch): a hold without its mmap, madvise and munmap
	 * is three calls shorter. */
	rcall_keep_scratch(run->t, RCALL_KEEP_NEXT);
	for (int i = 0; y.us && i < n; i++) {
		if (i == n - 1)
			rcall_keep_scratch(run->t, run->keep_scratch);
		if (cli_pending_signal()) {
			missed(&y, tids[i], "interrupted: not tried");
			continue;
		}
		if (target_io_pid(run->t) != run->pid && tids[i] == run->pid)
			continue; /* the main thread has ended (a zombie): nothing to borrow */
		/* The settle is for every thread's safety, not the user's
		 * choice of one. */
		if (o->tid && tids[i] != o->tid && !s->pass_settle) {
			missed(&y, tids[i], "--tid names another thread");
			continue;
		}
		double age;
		if (s->counters.state != 1 && !target_thread_age(target_io_pid(run->t), tids[i], &age) &&
		    age < CLI_EACH_MIN_AGE_S) {
			missed(&y, tids[i], "started less than a second ago: not borrowed");
			continue;
		}
		one_thread(run, o, tids[i], &y);
	}
	if (!y.us)
		missed(&y, run->pid, n < 0 ? ja_err_text(-n) : "out of memory");
	/* The last thread was not held (idle, missed): one more hold
	 * removes the mapping, unless the next hold takes it over. */
	char why[300];
	if (!run->keep_scratch && cli_scratch_drop(run->t, o->timeout_s, why, sizeof(why)))
		act_result_warn(r, "%s", why);
	report(r, s, &y, core_now_us() - t0);
	/* Every thread missed because the process is gone: that is the story. */
	char fate[300];
	if (target_fate(run->t, fate, sizeof(fate)) != TARGET_AS_WAS) {
		snprintf(run->msg, sizeof(run->msg),
			 "%s while jeattach borrowed its threads one by one", fate);
		run->code = JA_EXIT_GONE;
		run->done = 1;
	}
	free(y.us);
	free(y.listed);
	free(tids);
	sym_maps_free(&y.maps);
	s->pass_rearm = s->pass_name = s->pass_settle = 0;
	s->pass_step = -1;
}
