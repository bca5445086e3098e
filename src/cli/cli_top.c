/* SPDX-License-Identifier: BSD-2-Clause */
/* --top and --prometheus: one target, refreshed every --interval (1 s).
 * Each refresh holds one thread once (epoch and the six figures,
 * act_top_stats), reads each arena's and each thread's counters with no
 * stop, and shows the figures: a full screen on a terminal, one JSON line
 * otherwise, and/or a Prometheus file.
 *
 * Signals: SIGINT, SIGTERM, SIGHUP, SIGPIPE and SIGWINCH stay blocked, as
 * in every jeattach run (main.c): none can end jeattach while a thread is
 * held. Between refreshes they are read from a signalfd, polled with the
 * keyboard, so a Ctrl-C ends the view, the terminal put back, within
 * a hold's length. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <unistd.h>
#include "cli_diag.h"
#include "cli_signal.h"
#include "cli_top.h"
#include "errors.h"
#include "rcall.h"

#define TOP_LOCATE_SHARE 0.3 /* of an interval, for locating new threads */
#define TOP_MISSED (-1)      /* a refresh that held no thread in time: the view goes on */

struct top_run {
	const struct options *o;
	struct target *t;
	int opened, prepared;
	struct top_view v;
	struct top_threads th;
	int screen, json, keys;
	int sfd;
	char msg[1024];
};

/* A failure outside jemalloc's answers, through the one table (errors.c);
 * code is used only if the table has no row for it. */
static int fail(struct top_run *tr, int code, int e, enum ja_stage stage)
{
	/* EPERM's reason (another tracer...) is cli_diag's, as in every run:
	 * without it the line ended in "permission denied: ". */
	char why[400];
	target_why_text(tr->t, why, sizeof(why));
	struct ja_err_ctx c = { .pid = tr->v.pid, .why = why, .prefix = tr->o->prefix,
				.own_fix = ja_reason_own_fix(target_last_reason(tr->t)),
				.denied = cli_diag_denied, .arg = tr->t };
	enum ja_exit x = ja_err_explain(stage, e, &c, tr->msg, sizeof(tr->msg));
	return x ? (int)x : code;
}

static int quit(void *arg)
{
	(void)arg;
	return cli_pending_signal() != 0;
}

static int open_target(struct top_run *tr)
{
	if (!(tr->t = target_new()))
		return fail(tr, JA_EXIT_INTERNAL, -ENOMEM, JA_AT_OPEN);
	int e = target_open(tr->t, tr->v.pid);
	if (e)
		return fail(tr, JA_EXIT_GONE, e, JA_AT_OPEN);
	tr->opened = 1;
	snprintf(tr->v.comm, sizeof(tr->v.comm), "%s", target_get_info(tr->t)->comm);
	struct rcall_opts ro = { .only_tid = tr->o->tid };
	e = target_locate(tr->t, tr->o->prefix);
	if (!e)
		e = rcall_prepare(tr->t, &ro);
	if (!e) /* a Ctrl-C ends a search for a thread at once */
		rcall_set_quit(tr->t, quit, NULL);
	if (e)
		return fail(tr, JA_EXIT_NOJEMALLOC, e, JA_AT_LOCATE);
	tr->prepared = 1;
	return 0;
}

/* The one hold of a refresh. */
static int hold_for_stats(struct top_run *tr)
{
	struct target *t = tr->t;
	if (target_get_info(t)->tracer)
		return fail(tr, JA_EXIT_PERM, -EPERM, JA_AT_ATTACH);
	struct rcall_timing tm;
	rcall_timing(t, &tm); /* holds only: a thread's peek is not one */
	int64_t held_before = tm.us_total;
	rcall_set_deadline(t, core_now_us() + (core_usec_t)(tr->o->timeout_s * 1e6));
	int e = rcall_hold(t);
	if (e == -JA_ERR_INTERRUPTED) /* a Ctrl-C: nothing held, the view ends */
		return 128 + cli_pending_signal();
	if (e == -ETIMEDOUT) {
		/* This refresh only: the next may find a thread (one in a
		 * signal handler, or in the allocator, leaves it). */
		fail(tr, JA_EXIT_TIMEOUT, e, JA_AT_ATTACH);
		return TOP_MISSED;
	}
	if (e)
		return fail(tr, JA_EXIT_UNSAFE, e, JA_AT_ATTACH);
	struct act_result r;
	act_result_init(&r, ACT_STATS);
	enum ja_exit c = act_top_stats(t, &r, &tr->v.st);
	e = rcall_release(t);
	if (c)
		snprintf(tr->msg, sizeof(tr->msg), "%s", r.msg);
	act_result_free(&r);
	if (c)
		return c;
	if (e)
		return fail(tr, JA_EXIT_UNSAFE, e, JA_AT_RELEASE);
	rcall_timing(t, &tm);
	tr->v.hold_us = tm.us_total - held_before;
	tr->v.holds++;
	return 0;
}

/* Each arena's active pages, through the addresses learnt in the first
 * hold: no stop. */
static void read_arenas(struct top_run *tr, double dt)
{
	struct top_view *v = &tr->v;
	for (unsigned i = 0; i < v->st.narenas; i++) {
		uint64_t pages = 0;
		struct iovec l = { &pages, 8 }, r = { (void *)(uintptr_t)v->st.pactivep[i], 8 };
		int ok = v->st.pactivep[i] &&
			 process_vm_readv(target_io_pid(tr->t), &l, 1, &r, 1, 0) == 8;
		uint64_t bytes = pages * v->st.page;
		v->arena_rate[i] = ok && v->arena_ok[i] && dt > 0 ?
					   ((double)bytes - (double)v->arena_active[i]) / dt : 0;
		v->arena_active[i] = bytes;
		v->arena_ok[i] = ok;
	}
}

static int refresh(struct top_run *tr)
{
	struct top_view *v = &tr->v;
	uint64_t before[ACT_TOP_NSTATS];
	memcpy(before, v->st.v, sizeof(before));
	int code = hold_for_stats(tr);
	v->seq++;
	if (code)
		return code;
	core_usec_t now = core_now_us();
	v->dt = v->good ? (double)(now - v->at) / 1e6 : 0;
	v->at = now;
	v->good++;
	for (int i = 0; i < ACT_TOP_NSTATS; i++)
		v->rate[i] = v->dt > 0 ? ((double)v->st.v[i] - (double)before[i]) / v->dt : 0;
	read_arenas(tr, v->dt);
	core_usec_t budget = (core_usec_t)((double)v->interval_us * TOP_LOCATE_SHARE);
	cli_top_threads_refresh(tr->t, &tr->th, &v->st.counters, now + budget, v->dt);
	cli_top_threads_sort(&tr->th, v->sort);
	return 0;
}

/* A refresh that held no thread in time: said where the figures go (the
 * screen keeps the last ones, a JSON line says it was missed; the
 * Prometheus file keeps the last figures), and the view goes on. */
static int show_missed(struct top_run *tr)
{
	char note[1200];
	tr->v.missed++;
	if (tr->screen) {
		snprintf(note, sizeof(note), "refresh #%u missed (%u so far): %.1000s", tr->v.seq,
			 tr->v.missed, tr->msg);
		cli_top_screen_draw(&tr->v, note);
	} else if (tr->json && cli_top_json_missed(stdout, &tr->v, tr->msg)) {
		return 128 + SIGPIPE;
	}
	return 0;
}

static int show(struct top_run *tr)
{
	if (tr->screen)
		cli_top_screen_draw(&tr->v, NULL);
	else if (tr->json && cli_top_json_line(stdout, &tr->v))
		return 128 + SIGPIPE; /* the reader went (SIGPIPE is blocked: EPIPE) */
	if (tr->o->prometheus) {
		int e = cli_top_prom_write(tr->o->prometheus, &tr->v);
		const char *kind = e == -EEXIST ? act_output_kind(tr->o->prometheus) : NULL;
		if (kind) {
			snprintf(tr->msg, sizeof(tr->msg),
				 "cannot write %s: it is %s (made while jeattach ran), and "
				 "jeattach replaces regular files only; it was left alone; give "
				 "another name", tr->o->prometheus, kind);
			return JA_EXIT_OUTPUT;
		}
		if (e) {
			snprintf(tr->msg, sizeof(tr->msg),
				 "cannot write %s: %s; choose a writable directory (node_exporter's "
				 "--collector.textfile.directory)",
				 tr->o->prometheus, strerror(-e));
			return JA_EXIT_OUTPUT;
		}
	}
	return 0;
}

/* A key: q quits (0), s sorts, p pauses; -1 goes on. */
static int key(struct top_run *tr)
{
	char c;
	while (read(STDIN_FILENO, &c, 1) == 1) {
		if (c == 'q' || c == 'Q')
			return 0;
		if (c == 's' || c == 'S') {
			tr->v.sort = (tr->v.sort + 1) % TOP_NSORTS;
			cli_top_threads_sort(&tr->th, tr->v.sort);
		} else if (c == 'p' || c == 'P') {
			tr->v.paused = !tr->v.paused;
		}
		cli_top_screen_draw(&tr->v, NULL);
	}
	return -1;
}

/* Until the next refresh: keys, signals, threads slow to stop let go.
 * Returns -1 to go on, or the exit code. */
static int wait_next(struct top_run *tr, core_usec_t until)
{
	for (;;) {
		core_usec_t left = until - core_now_us();
		if (left <= 0)
			return -1;
		struct pollfd p[2] = { { tr->sfd, POLLIN, 0 }, { STDIN_FILENO, POLLIN, 0 } };
		int ms = (int)((left < RCALL_TICK_US ? left : RCALL_TICK_US) + 999) / 1000;
		int n = poll(p, tr->keys ? 2 : 1, ms);
		rcall_sweep(tr->t);
		if (n > 0 && (p[0].revents & POLLIN)) {
			struct signalfd_siginfo si;
			if (read(tr->sfd, &si, sizeof(si)) == sizeof(si) && si.ssi_signo != SIGWINCH &&
			    si.ssi_signo != SIGPIPE)
				return 128 + (int)si.ssi_signo;
			if (tr->screen && si.ssi_signo == SIGWINCH)
				cli_top_screen_draw(&tr->v, NULL);
		}
		if (n > 0 && tr->keys && (p[1].revents & (POLLIN | POLLHUP))) {
			int k = key(tr);
			if (k >= 0)
				return k;
		}
	}
}

/* The process exited, was killed or replaced its program (target_fate):
 * 1 with the message that ends the view. */
static int ended(struct top_run *tr)
{
	char fate[300];
	if (target_fate(tr->t, fate, sizeof(fate)) == TARGET_AS_WAS)
		return 0;
	snprintf(tr->msg, sizeof(tr->msg), "%s; the view ends", fate);
	return 1;
}

static int loop(struct top_run *tr)
{
	const struct options *o = tr->o;
	int once = !o->top && !o->interval_us;
	core_usec_t next = core_now_us();
	for (;;) {
		if (!tr->v.paused || !tr->v.seq) {
			if (ended(tr))
				return JA_EXIT_GONE;
			int code = refresh(tr);
			if (code == TOP_MISSED && !ended(tr))
				code = show_missed(tr);
			else if (!code)
				code = show(tr);
			if (code)
				return ended(tr) ? JA_EXIT_GONE : code;
		}
		/* A view that never held a thread ends as a --status would. */
		if (once || (o->count && tr->v.seq >= (unsigned)o->count))
			return tr->v.good ? 0 : JA_EXIT_TIMEOUT;
		/* A late refresh is followed by the next one on the same
		 * cadence, not at once: no catch-up row a few ms after it. */
		next += tr->v.interval_us;
		core_usec_t now = core_now_us();
		if (next < now)
			next += ((now - next) / tr->v.interval_us + 1) * tr->v.interval_us;
		int code = wait_next(tr, next);
		if (code >= 0)
			return code;
	}
}

static int signals(struct top_run *tr)
{
	sigset_t set;
	sigemptyset(&set);
	int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGWINCH };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(&set, sigs[i]);
	sigprocmask(SIG_BLOCK, &set, NULL);
	tr->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return tr->sfd < 0 ? -errno : 0;
}

/* Before any target is touched: the Prometheus file's directory. */
static int writable(struct top_run *tr)
{
	char copy[4096];
	if (!tr->o->prometheus)
		return 0;
	/* It is replaced at every refresh, as a regular file only: a device
	 * node, a FIFO, a socket or a symbolic link at that name is never
	 * replaced (act_output_kind; as root, /dev/null would have been). */
	const char *kind = act_output_kind(tr->o->prometheus);
	if (kind) {
		snprintf(tr->msg, sizeof(tr->msg),
			 "--prometheus %s: it is %s, and jeattach replaces regular files only; "
			 "give a file name in node_exporter's --collector.textfile.directory",
			 tr->o->prometheus, kind);
		return JA_EXIT_OUTPUT;
	}
	snprintf(copy, sizeof(copy), "%s", tr->o->prometheus);
	const char *dir = dirname(copy);
	if (!access(dir, W_OK | X_OK))
		return 0;
	snprintf(tr->msg, sizeof(tr->msg),
		 "cannot write %s: %s: %s; choose a writable directory (node_exporter's "
		 "--collector.textfile.directory)",
		 tr->o->prometheus, dir, strerror(errno));
	return JA_EXIT_OUTPUT;
}

int cli_top_main(const struct options *o)
{
	static struct top_run tr; /* large (per-arena arrays): not on the stack */
	tr.o = o;
	tr.v.pid = o->pids[0];
	tr.v.th = &tr.th;
	tr.v.interval_us = o->interval_us ? o->interval_us : 1000000;
	tr.screen = o->top && !o->json && isatty(STDOUT_FILENO);
	tr.json = o->top && !tr.screen;
	tr.keys = tr.screen && isatty(STDIN_FILENO);
	int code = signals(&tr) ? JA_EXIT_INTERNAL : writable(&tr);
	if (!code)
		code = open_target(&tr);
	if (!code && tr.screen && cli_top_screen_open())
		tr.keys = 0; /* no keys, but still a view; Ctrl-C ends it */
	if (!code)
		code = loop(&tr);
	cli_top_screen_close(); /* every way out goes through here */
	if (code && code < 128)
		fprintf(stderr, "jeattach: %d: %s\n", (int)tr.v.pid, tr.msg);
	cli_top_threads_free(&tr.th);
	if (tr.prepared)
		rcall_free(tr.t);
	if (tr.opened)
		target_close(tr.t);
	target_delete(tr.t);
	return code;
}
