/* SPDX-License-Identifier: BSD-2-Clause */
/* One target of --top or of the exporter (--prometheus): opened and
 * prepared once, then refreshed: one hold for jemalloc's figures
 * (act_top_stats: epoch and the six stats.*), each arena's active pages
 * and each thread's counters read afterwards with process_vm_readv, no
 * thread stopped. What is shown, and how often, is the caller's
 * (cli_top.c: one target's screen or JSON lines; cli_export.c: every
 * target's series in one file). */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "cli_diag.h"
#include "cli_signal.h"
#include "cli_scratch.h"
#include "cli_top.h"
#include "errors.h"
#include "rcall.h"

/* A failure outside jemalloc's answers, through the one table (errors.c);
 * code is used only if the table has no row for it. */
static int fail(struct top_target *x, int code, int e, enum ja_stage stage)
{
	/* EPERM's reason (another tracer...) is cli_diag's, as in every run:
	 * without it the line ended in "permission denied: ". */
	char why[400];
	target_why_text(x->t, why, sizeof(why));
	struct ja_err_ctx c = { .pid = x->v.pid, .why = why, .prefix = x->o->prefix,
				.own_fix = ja_reason_own_fix(target_last_reason(x->t)),
				.denied = cli_diag_denied, .arg = x->t };
	enum ja_exit r = ja_err_explain(stage, e, &c, x->msg, sizeof(x->msg));
	return r ? (int)r : code;
}

static int quit(void *arg)
{
	(void)arg;
	return cli_pending_signal() != 0;
}

int cli_top_target_open(struct top_target *x, const struct options *o, pid_t pid,
			int64_t interval_us)
{
	x->o = o;
	x->v.pid = pid;
	x->v.th = &x->th;
	x->v.interval_us = interval_us;
	if (!(x->t = target_new()))
		return fail(x, JA_EXIT_INTERNAL, -ENOMEM, JA_AT_OPEN);
	int e = target_open(x->t, pid);
	if (e)
		return fail(x, JA_EXIT_GONE, e, JA_AT_OPEN);
	x->opened = 1;
	snprintf(x->v.comm, sizeof(x->v.comm), "%s", target_get_info(x->t)->comm);
	x->start = target_get_info(x->t)->start;
	struct rcall_opts ro = { .only_tid = o->tid };
	e = target_locate(x->t, o->prefix);
	if (!e)
		e = rcall_prepare(x->t, &ro);
	if (!e) /* a Ctrl-C ends a search for a thread at once */
		rcall_set_quit(x->t, quit, NULL);
	/* Refreshes that come often share one scratch mapping, removed at
	 * the end (cli_top_target_close); those seconds apart (the
	 * exporter's), and a single one, make their own. */
	if (!e)
		rcall_keep_scratch(x->t, interval_us <= RCALL_KEEP_ACROSS_US && o->count != 1 ?
						 RCALL_KEEP_ACROSS :
						 0);
	if (e)
		return fail(x, JA_EXIT_NOJEMALLOC, e, JA_AT_LOCATE);
	x->prepared = 1;
	/* Read once: a process that replaces its program is dropped
	 * (target_fate), so these stay true while it is followed. */
	target_ident_read(target_io_pid(x->t), &x->id);
	if (x->id.comm[0]) /* the name itself, not status' escaped form */
		snprintf(x->v.comm, sizeof(x->v.comm), "%s", x->id.comm);
	return 0;
}

/* The one hold of a refresh. */
static int hold_for_stats(struct top_target *x)
{
	struct target *t = x->t;
	if (target_get_info(t)->tracer)
		return fail(x, JA_EXIT_PERM, -EPERM, JA_AT_ATTACH);
	struct rcall_timing tm;
	rcall_timing(t, &tm); /* holds only: a thread's peek is not one */
	int64_t held_before = tm.us_total;
	rcall_set_deadline(t, core_now_us() + (core_usec_t)(x->o->timeout_s * 1e6));
	int e = rcall_hold(t);
	if (e == -JA_ERR_INTERRUPTED) /* a Ctrl-C: nothing held, the view ends */
		return 128 + cli_pending_signal();
	if (e == -ETIMEDOUT) {
		/* This refresh only: the next may find a thread (one in a
		 * signal handler, or in the allocator, leaves it). */
		fail(x, JA_EXIT_TIMEOUT, e, JA_AT_ATTACH);
		return TOP_MISSED;
	}
	if (e)
		return fail(x, JA_EXIT_UNSAFE, e, JA_AT_ATTACH);
	struct act_result r;
	act_result_init(&r, ACT_STATS);
	enum ja_exit c = act_top_stats(t, &r, &x->v.st);
	e = rcall_release(t);
	if (c)
		snprintf(x->msg, sizeof(x->msg), "%s", r.msg);
	act_result_free(&r);
	if (c)
		return c;
	if (e)
		return fail(x, JA_EXIT_UNSAFE, e, JA_AT_RELEASE);
	rcall_timing(t, &tm);
	x->v.hold_us = tm.us_total - held_before;
	x->v.holds++;
	return 0;
}

/* Each arena's active pages, through the addresses learnt in the first
 * hold: no stop. */
static void read_arenas(struct top_target *x, double dt)
{
	struct top_view *v = &x->v;
	for (unsigned i = 0; i < v->st.narenas; i++) {
		uint64_t pages = 0;
		struct iovec l = { &pages, 8 }, r = { (void *)(uintptr_t)v->st.pactivep[i], 8 };
		int ok = v->st.pactivep[i] &&
			 process_vm_readv(target_io_pid(x->t), &l, 1, &r, 1, 0) == 8;
		uint64_t bytes = pages * v->st.page;
		v->arena_rate[i] = ok && v->arena_ok[i] && dt > 0 ?
					   ((double)bytes - (double)v->arena_active[i]) / dt : 0;
		v->arena_active[i] = bytes;
		v->arena_ok[i] = ok;
	}
}

int cli_top_target_refresh(struct top_target *x, core_usec_t locate_until)
{
	struct top_view *v = &x->v;
	uint64_t before[ACT_TOP_NSTATS];
	memcpy(before, v->st.v, sizeof(before));
	int code = hold_for_stats(x);
	v->seq++;
	x->held = !code;
	if (code == TOP_MISSED)
		v->missed++;
	if (code)
		return code;
	core_usec_t now = core_now_us();
	v->dt = v->good ? (double)(now - v->at) / 1e6 : 0;
	v->at = now;
	v->good++;
	for (int i = 0; i < ACT_TOP_NSTATS; i++)
		v->rate[i] = v->dt > 0 ? ((double)v->st.v[i] - (double)before[i]) / v->dt : 0;
	read_arenas(x, v->dt);
	cli_top_threads_refresh(x->t, &x->th, &v->st.counters, locate_until, v->dt);
	cli_top_threads_sort(&x->th, v->sort);
	return 0;
}

int cli_top_target_ended(const struct top_target *x, char *fate, size_t len)
{
	return (int)target_fate(x->t, fate, len);
}

void cli_top_target_sweep(struct top_target *x)
{
	if (x->prepared)
		rcall_sweep(x->t);
}

void cli_top_target_close(struct top_target *x)
{
	cli_top_threads_free(&x->th);
	char why[300];
	if (x->prepared) {
		if (cli_scratch_drop(x->t, x->o->timeout_s, why, sizeof(why)))
			fprintf(stderr, "jeattach: %d: %s\n", (int)x->v.pid, why);
		rcall_free(x->t);
	}
	if (x->opened)
		target_close(x->t);
	target_delete(x->t);
	x->t = NULL;
	x->prepared = x->opened = 0;
}

core_usec_t cli_top_next(core_usec_t prev, int64_t interval_us, core_usec_t now)
{
	core_usec_t next = prev + interval_us;
	if (next < now)
		next += ((now - next) / interval_us + 1) * interval_us;
	return next;
}
