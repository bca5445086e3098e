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
 * tdata (prof_tdata_init), with prof.active already on. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli_each.h"
#include "cli_signal.h"
#include "errors.h"
#include "rcall.h"

#define CLI_EACH_BUDGET_US 500000
#define CLI_EACH_MAX_THREADS 65536
/* A thread younger than this is not borrowed. A thread caught on its way
 * out, after jemalloc's tsd destructor ran (tsd_cleanup, a pthread key
 * destructor), has its tsd and tcache made again by our mallctl
 * (tsd_fetch_slow's reincarnation) and nothing frees them: the tcache stays
 * on its arena's list in memory the next thread reuses, and the next
 * "epoch", the target's own or ours, walks it (seen as a SIGSEGV inside
 * epoch that left jemalloc's ctl lock taken, on a victim that makes
 * threads nonstop; doc/robustness.md). Short-lived threads end before they
 * are this old; a long-lived one is rarely caught ending. A mitigation,
 * not a proof: see doc/robustness.md. */
#define CLI_EACH_MIN_AGE_S 1.0

struct each_tally {
	int done, named, missed;
	char missed_list[4000]; /* "TID (why); ..." as far as it fits */
	int64_t *us;            /* each borrowed thread's hold, for the median */
	int nus;
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

/* Why tid could not be held, in a few words. rcall_hold's timeout says
 * "no thread was at a safe point before the timeout (REASON)": for one
 * thread, REASON is the news. */
static const char *hold_failure(struct target *t, int e)
{
	if (e == -JE_ERR_NOT_THREAD || e == -ESRCH)
		return "exited";
	if (e != -ETIMEDOUT)
		return je_err_text(-e);
	char *open = strchr(t->why, '('), *close = strrchr(t->why, ')');
	if (!open || !close || close < open)
		return "not at a safe point within its budget";
	*close = 0;
	if (!strcmp(open + 1, "none could be stopped"))
		return "did not stop within its budget: an uninterruptible wait (D state, vfork)";
	return open + 1;
}

/* One thread: hold it, let it make its calls, give it back. */
static void one_thread(struct cli_run *run, const struct options *o, pid_t tid,
		       struct each_tally *y)
{
	struct target *t = &run->t;
	int64_t budget = CLI_EACH_BUDGET_US;
	if (o->timeout_s * 1e6 < (double)budget)
		budget = (int64_t)(o->timeout_s * 1e6);
	t->why[0] = 0;
	pt_usec_t t0 = pt_now_us();
	int e = rcall_hold_tid(t, tid, t0 + (pt_usec_t)budget);
	if (e) {
		missed(y, tid, hold_failure(t, e));
		return;
	}
	char why[160] = "";
	int named = 0;
	e = act_thread_pass(t, &run->sess, tid, &named, why, sizeof(why));
	int r = rcall_release(t);
	y->us[y->nus++] = pt_now_us() - t0;
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
	act_field_u64(r, "threads_missed", (uint64_t)y->missed);
	act_field_str(r, "threads_missed_list", y->missed_list);
	qsort(y->us, (size_t)y->nus, sizeof(*y->us), cmp_i64);
	act_field_u64(r, "pass_us", (uint64_t)wall_us);
	act_field_u64(r, "pass_hold_us_median", y->nus ? (uint64_t)y->us[y->nus / 2] : 0);
	act_field_u64(r, "pass_hold_us_max", y->nus ? (uint64_t)y->us[y->nus - 1] : 0);
}

void cli_each_pass(struct cli_run *run, const struct options *o)
{
	struct act_session *s = &run->sess;
	if (!(s->pass_rearm || s->pass_name) || s->pass_step < 0)
		return;
	struct act_result *r = &run->res[s->pass_step];
	struct each_tally y = { 0 };
	pid_t *tids = malloc(sizeof(*tids) * CLI_EACH_MAX_THREADS);
	int n = tids ? target_threads(run->pid, tids, CLI_EACH_MAX_THREADS) : -ENOMEM;
	y.us = n > 0 ? calloc((size_t)n, sizeof(*y.us)) : NULL;
	pt_usec_t t0 = pt_now_us();
	for (int i = 0; y.us && i < n; i++) {
		if (cli_pending_signal()) {
			missed(&y, tids[i], "interrupted: not tried");
			continue;
		}
		if (run->t.io_pid != run->pid && tids[i] == run->pid)
			continue; /* the main thread has ended (a zombie): nothing to borrow */
		if (o->tid && tids[i] != o->tid) {
			missed(&y, tids[i], "--tid names another thread");
			continue;
		}
		double age;
		if (!target_thread_age(run->t.io_pid, tids[i], &age) && age < CLI_EACH_MIN_AGE_S) {
			missed(&y, tids[i], "started less than a second ago: not borrowed");
			continue;
		}
		one_thread(run, o, tids[i], &y);
	}
	if (!y.us)
		missed(&y, run->pid, n < 0 ? je_err_text(-n) : "out of memory");
	report(r, s, &y, pt_now_us() - t0);
	/* Every thread missed because the process is gone: that is the story. */
	if (!target_alive(&run->t)) {
		snprintf(run->msg, sizeof(run->msg),
			 "the process exited while jeattach borrowed its threads one by one");
		run->code = JE_EXIT_GONE;
		run->done = 1;
	}
	free(y.us);
	free(tids);
	s->pass_rearm = s->pass_name = 0;
	s->pass_step = -1;
}
