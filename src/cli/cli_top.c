/* SPDX-License-Identifier: BSD-2-Clause */
/* --top: one target, refreshed every --interval (1 s). Each refresh
 * (cli_top_target.c) holds one thread once (epoch and the six figures,
 * act_top_stats), reads each arena's and each thread's counters with no
 * stop; here the figures are shown: a full screen on a terminal, one JSON
 * line otherwise, and with --prometheus a file too (cli_prom_write.c).
 * --prometheus without --top is the exporter (cli_export.c).
 *
 * Signals: SIGINT, SIGTERM, SIGHUP, SIGPIPE and SIGWINCH stay blocked, as
 * in every jeattach run (main.c): none can end jeattach while a thread is
 * held. Between refreshes they are read from a signalfd, polled with the
 * keyboard, so a Ctrl-C ends the view, the terminal put back, within
 * a hold's length. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "cli_prom.h"
#include "cli_signal.h"
#include "cli_top.h"
#include "rcall.h"

#define TOP_LOCATE_SHARE 0.3 /* of an interval, for locating new threads */

struct top_run {
	const struct options *o;
	struct top_target x;
	const struct top_target *one; /* the file's one target */
	struct cli_prom_file pf;
	int counted; /* --count N ended the view: the file stays */
	int screen, json, keys;
	int sfd;
	char msg[1024];
};

static int refresh(struct top_run *tr)
{
	core_usec_t budget = (core_usec_t)((double)tr->x.v.interval_us * TOP_LOCATE_SHARE);
	int code = cli_top_target_refresh(&tr->x, core_now_us() + budget);
	if (code) /* a missed one's too: the last ends a view that never held */
		snprintf(tr->msg, sizeof(tr->msg), "%s", tr->x.msg);
	return code;
}

/* A refresh that held no thread in time: said where the figures go (the
 * screen keeps the last ones, a JSON line says it was missed; the
 * Prometheus file keeps the last figures), and the view goes on. */
static int show_missed(struct top_run *tr)
{
	char note[1200];
	if (tr->screen) {
		snprintf(note, sizeof(note), "refresh #%u missed (%u so far): %.1000s", tr->x.v.seq,
			 tr->x.v.missed, tr->x.msg);
		cli_top_screen_draw(&tr->x.v, note);
	} else if (tr->json && cli_top_json_missed(stdout, &tr->x.v, tr->x.msg)) {
		return 128 + SIGPIPE;
	}
	return 0;
}

static int show(struct top_run *tr)
{
	if (tr->screen)
		cli_top_screen_draw(&tr->x.v, NULL);
	else if (tr->json && cli_top_json_line(stdout, &tr->x.v))
		return 128 + SIGPIPE; /* the reader went (SIGPIPE is blocked: EPIPE) */
	if (tr->o->prometheus) {
		tr->one = &tr->x;
		tr->pf.file = tr->o->prometheus;
		tr->pf.targets = &tr->one;
		tr->pf.n = 1;
		tr->pf.following = 1;
		return cli_prom_publish(&tr->pf, tr->msg, sizeof(tr->msg));
	}
	return 0;
}

/* A key: q quits (0), s sorts, p pauses; -1 goes on. */
static int key(struct top_run *tr)
{
	struct top_view *v = &tr->x.v;
	char c;
	while (read(STDIN_FILENO, &c, 1) == 1) {
		if (c == 'q' || c == 'Q')
			return 0;
		if (c == 's' || c == 'S') {
			v->sort = (v->sort + 1) % TOP_NSORTS;
			cli_top_threads_sort(&tr->x.th, v->sort);
		} else if (c == 'p' || c == 'P') {
			v->paused = !v->paused;
		}
		cli_top_screen_draw(v, NULL);
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
		cli_top_target_sweep(&tr->x);
		if (n > 0 && (p[0].revents & POLLIN)) {
			int sig = cli_signal_take(tr->sfd);
			if (sig == SIGWINCH && tr->screen)
				cli_top_screen_draw(&tr->x.v, NULL);
			else if (sig > 0 && sig != SIGWINCH && sig != SIGPIPE)
				return 128 + sig;
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
	if (!cli_top_target_ended(&tr->x, fate, sizeof(fate)))
		return 0;
	snprintf(tr->msg, sizeof(tr->msg), "%s; the view ends", fate);
	return 1;
}

static int loop(struct top_run *tr)
{
	const struct options *o = tr->o;
	struct top_view *v = &tr->x.v;
	core_usec_t next = core_now_us();
	for (;;) {
		if (!v->paused || !v->seq) {
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
		if (o->count && v->seq >= (unsigned)o->count) {
			tr->counted = 1;
			return v->good ? 0 : JA_EXIT_TIMEOUT;
		}
		/* A late refresh is followed by the next one on the same
		 * cadence, not at once: no catch-up row a few ms after it. */
		next = cli_top_next(next, v->interval_us, core_now_us());
		int code = wait_next(tr, next);
		if (code >= 0)
			return code;
	}
}

int cli_top_main(const struct options *o)
{
	static struct top_run tr; /* large (per-arena arrays): not on the stack */
	tr.o = o;
	int64_t interval = o->interval_us ? o->interval_us : 1000000;
	tr.screen = !o->json && isatty(STDOUT_FILENO);
	tr.json = !tr.screen;
	tr.keys = tr.screen && isatty(STDIN_FILENO);
	int code = 0;
	if ((tr.sfd = cli_signal_fd(1)) < 0) {
		snprintf(tr.msg, sizeof(tr.msg), "cannot take signals: %s", strerror(-tr.sfd));
		code = JA_EXIT_INTERNAL;
	}
	if (!code && o->prometheus && cli_prom_check(o->prometheus, tr.msg, sizeof(tr.msg)))
		code = JA_EXIT_OUTPUT;
	if (!code && (code = cli_top_target_open(&tr.x, o, o->pids[0], interval)))
		snprintf(tr.msg, sizeof(tr.msg), "%s", tr.x.msg);
	if (!code && tr.screen && cli_top_screen_open())
		tr.keys = 0; /* no keys, but still a view; Ctrl-C ends it */
	if (!code)
		code = loop(&tr);
	cli_top_screen_close(); /* every way out goes through here */
	/* The file is the view's: its series go with it, unless --count
	 * ended the view (node_exporter exports whatever a textfile says
	 * until it is gone). */
	if (!tr.counted)
		cli_prom_remove(&tr.pf);
	if (code && code < 128)
		fprintf(stderr, "jeattach: %d: %s\n", (int)o->pids[0], tr.msg);
	cli_top_target_close(&tr.x);
	return code;
}
