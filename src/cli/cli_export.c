/* SPDX-License-Identifier: BSD-2-Clause */
/* The exporter: --prometheus FILE without --top. Every interval it finds
 * the processes to follow (--all NAME[,NAME...]: a fresh scan of /proc,
 * cli_find; -p PID,...: the processes given, each while it lives), drops
 * those that exited, were killed or replaced their program (target_fate),
 * opens the new ones, refreshes each with one hold (cli_top_target.c, the
 * same code as --top's), and writes every one's series into FILE
 * (cli_prom_write.c). A process is its pid and its start time: a pid the
 * kernel gave again is a new process.
 *
 * No target ends the loop: one that cannot be followed (no jemalloc, no
 * permission, another tracer...) is said once on stderr and not tried
 * again while that same process lives; a refresh that found no safe thread
 * in time keeps the last figures (jeattach_refresh_held 0). The loop ends
 * by a signal (the file removed: node_exporter exports whatever a textfile
 * says until it is gone), after --count N refreshes (the file kept if any
 * refresh held a thread), or, with -p, when none of the processes given is
 * left (the file removed).
 *
 * Signals are taken as in --top (cli_top.c): blocked, read from a
 * signalfd between refreshes, so none ends jeattach while a thread is
 * held. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_find.h"
#include "cli_prom.h"
#include "cli_signal.h"
#include "cli_top.h"
#include "errors.h"
#include "rcall.h"

/* Of an interval, for locating the threads of every target (shared). */
#define EXPORT_LOCATE_SHARE 0.3

struct export_run {
	const struct options *o;
	int64_t interval_us;
	struct top_target *x[OPT_MAX_EXPORT]; /* followed, in the order found */
	const struct top_target *cx[OPT_MAX_EXPORT]; /* the same, for the writer */
	int n;
	struct cli_found given[OPT_MAX_PIDS]; /* -p: the processes given, still live */
	int ngiven;
	struct cli_found cand[OPT_MAX_PIDS], fresh[OPT_MAX_PIDS], skipped[OPT_MAX_PIDS];
	int nskipped;
	int bound_said;  /* the bound on targets was told */
	int held_once;   /* some refresh held a thread */
	int gone;        /* some process followed ended */
	int matched;     /* some process matched or was given alive */
	int first_fail;  /* the first target's failure, for the exit code */
	int keep;        /* ended by --count N or once: the file stays */
	int sfd;
	struct cli_prom_file pf;
};

static void say(pid_t pid, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(pid_t pid, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (pid)
		fprintf(stderr, "jeattach: %d: ", (int)pid);
	else
		fputs("jeattach: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void drop(struct export_run *er, int i)
{
	cli_top_target_close(er->x[i]);
	free(er->x[i]);
	memmove(&er->x[i], &er->x[i + 1], (size_t)(er->n - i - 1) * sizeof(er->x[0]));
	er->n--;
}

/* -p: a process given that cannot be followed, or that replaced its
 * program, is not waited for. */
static void forget_given(struct export_run *er, pid_t pid)
{
	for (int i = 0; !er->o->all_name && i < er->ngiven; i++)
		if (er->given[i].pid == pid) {
			er->given[i] = er->given[--er->ngiven];
			break;
		}
}

static void skip(struct export_run *er, pid_t pid, unsigned long long start, int code,
		 const char *why)
{
	say(pid, "%s; not followed while this process runs", why);
	if (!er->first_fail)
		er->first_fail = code;
	if (er->nskipped < OPT_MAX_PIDS)
		er->skipped[er->nskipped++] = (struct cli_found){ pid, start };
	forget_given(er, pid);
}

/* A followed process ended: exited or killed (its pid and start time are
 * remembered, silently: a zombie not yet reaped still matches, and must not
 * be tried and said again), or replaced its program (with --all, a new
 * program that still matches is followed anew, its series labelled with its
 * own exe and build id). */
static void ended(struct export_run *er, int i, int how, const char *fate)
{
	struct top_target *x = er->x[i];
	say(x->v.pid, "%s; its series leave %s", fate, er->o->prometheus);
	if (how == TARGET_GONE && er->nskipped < OPT_MAX_PIDS)
		er->skipped[er->nskipped++] = (struct cli_found){ x->v.pid, x->start };
	forget_given(er, x->v.pid);
	er->gone = 1;
	drop(er, i);
}

/* The processes that may be followed now, into er->cand. */
static int candidates(struct export_run *er)
{
	if (!er->o->all_name) {
		/* -p: each given process while it is the one given. */
		int k = 0;
		for (int i = 0; i < er->ngiven; i++)
			if (cli_find_start(er->given[i].pid) == er->given[i].start)
				er->given[k++] = er->given[i];
		er->ngiven = k;
		memcpy(er->cand, er->given, (size_t)k * sizeof(er->cand[0]));
		return k;
	}
	int more = 0;
	int n = cli_find_scan(er->o->all_name, er->cand, OPT_MAX_PIDS, &more);
	if (n < 0)
		say(0, "cannot list /proc: %s; trying again at the next refresh", strerror(-n));
	return n < 0 ? 0 : n;
}

/* The followed processes that ended are dropped; their series leave the
 * file at this write. */
static void drop_ended(struct export_run *er)
{
	char fate[300];
	for (int i = 0; i < er->n;) {
		int how = cli_top_target_ended(er->x[i], fate, sizeof(fate));
		if (how)
			ended(er, i, how, fate);
		else
			i++;
	}
}

/* Open the processes found that are neither followed nor skipped. */
static void pick_up(struct export_run *er, int ncand)
{
	static struct cli_found followed[OPT_MAX_EXPORT];
	for (int i = 0; i < er->n; i++)
		followed[i] = (struct cli_found){ er->x[i]->v.pid, er->x[i]->start };
	int nfresh = cli_find_new(er->cand, ncand, followed, er->n, er->skipped, &er->nskipped,
				  er->fresh, OPT_MAX_PIDS);
	er->matched |= ncand > 0;
	for (int i = 0; i < nfresh; i++) {
		if (er->n == OPT_MAX_EXPORT) {
			if (!er->bound_said)
				say(0, "more than %d processes match --all %s: following %d; run "
				    "another jeattach with fewer names for the rest",
				    OPT_MAX_EXPORT, er->o->all_name, OPT_MAX_EXPORT);
			er->bound_said = 1;
			return;
		}
		struct top_target *x = calloc(1, sizeof(*x));
		if (!x) {
			say(er->fresh[i].pid, "out of memory; trying again at the next refresh");
			return;
		}
		int code = cli_top_target_open(x, er->o, er->fresh[i].pid, er->interval_us);
		/* Opened: the same process as found (a pid reused between the
		 * scan and the open would have another start time). */
		if (!code && x->start != er->fresh[i].start)
			code = JA_EXIT_GONE;
		/* Gone since the scan: nothing to say, nothing to remember. */
		if (code && cli_find_start(er->fresh[i].pid) != er->fresh[i].start) {
			cli_top_target_close(x);
			free(x);
			forget_given(er, er->fresh[i].pid);
			continue;
		}
		if (code) {
			skip(er, er->fresh[i].pid, er->fresh[i].start, code, x->msg);
			cli_top_target_close(x);
			free(x);
			continue;
		}
		er->x[er->n++] = x;
	}
}

/* One hold per process; 128 + a signal that came meanwhile, else 0. */
static int refresh_all(struct export_run *er)
{
	int64_t share = (int64_t)((double)er->interval_us * EXPORT_LOCATE_SHARE) /
			(er->n ? er->n : 1);
	for (int i = 0; i < er->n;) {
		struct top_target *x = er->x[i];
		int code = cli_top_target_refresh(x, core_now_us() + share);
		if (code > 128)
			return code;
		if (!code || code == TOP_MISSED) {
			er->held_once |= !code;
			i++;
			continue;
		}
		char fate[300];
		int how = cli_top_target_ended(x, fate, sizeof(fate));
		if (how) {
			ended(er, i, how, fate);
			continue;
		}
		skip(er, x->v.pid, x->start, code, x->msg);
		drop(er, i);
	}
	return 0;
}

static int publish(struct export_run *er)
{
	char msg[1200];
	for (int i = 0; i < er->n; i++)
		er->cx[i] = er->x[i];
	er->pf.targets = er->cx;
	er->pf.n = er->n;
	er->pf.following = (unsigned)er->n;
	int code = cli_prom_publish(&er->pf, msg, sizeof(msg));
	if (code)
		say(0, "%s", msg);
	return code;
}

/* Until the next refresh: signals, and threads slow to stop let go.
 * -1 to go on, or 128 + the signal. */
static int wait_next(struct export_run *er, core_usec_t until)
{
	for (;;) {
		core_usec_t left = until - core_now_us();
		if (left <= 0)
			return -1;
		struct pollfd p = { er->sfd, POLLIN, 0 };
		int ms = (int)((left < RCALL_TICK_US ? left : RCALL_TICK_US) + 999) / 1000;
		int n = poll(&p, 1, ms);
		for (int i = 0; i < er->n; i++)
			cli_top_target_sweep(er->x[i]);
		int sig = n > 0 ? cli_signal_take(er->sfd) : 0;
		if (sig > 0 && sig != SIGPIPE)
			return 128 + sig;
	}
}

/* The exit code of a run that ended with nothing held, or nothing left. */
static int nothing(const struct export_run *er)
{
	if (er->o->all_name && !er->matched) {
		char err[300];
		cli_find_none(er->o->all_name, err, sizeof(err));
		say(0, "%s", err);
		return JA_EXIT_GONE;
	}
	return er->first_fail ? er->first_fail : JA_EXIT_TIMEOUT;
}

static int loop(struct export_run *er)
{
	const struct options *o = er->o;
	int once = !o->interval_us;
	core_usec_t next = core_now_us();
	for (unsigned round = 1;; round++) {
		int ncand = candidates(er);
		drop_ended(er);
		pick_up(er, ncand);
		int code = refresh_all(er);
		if (code)
			return code;
		/* -p: none of the processes given is left. */
		if (!o->all_name && !er->n && !er->ngiven) {
			say(0, "none of the processes given is left to follow%s",
			    er->pf.published ? "; the file is removed" : "");
			/* Gone, unless the only story is a failure to follow. */
			return er->gone || !er->first_fail ? JA_EXIT_GONE : er->first_fail;
		}
		/* Once, --all: no match is today's "no process named", and no file. */
		if (once && o->all_name && !er->matched)
			return nothing(er);
		if ((code = publish(er)))
			return code;
		/* Ended by its count: the file stays, if it holds any figure. */
		if (once || (o->count && round >= (unsigned)o->count)) {
			er->keep = er->held_once;
			return er->held_once ? 0 : nothing(er);
		}
		next = cli_top_next(next, er->interval_us, core_now_us());
		if ((code = wait_next(er, next)) >= 0)
			return code;
	}
}

/* -p: each process given, as it is now (its start time). */
static void take_given(struct export_run *er)
{
	for (int i = 0; i < er->o->npids; i++) {
		pid_t pid = er->o->pids[i];
		int twice = 0; /* -p A,A: one process, followed once */
		for (int k = 0; k < i; k++)
			twice |= er->o->pids[k] == pid;
		if (twice)
			continue;
		unsigned long long start = cli_find_start(pid);
		if (!start) {
			say(pid, "no such process; check the pid (ps -e)");
			if (!er->first_fail)
				er->first_fail = JA_EXIT_GONE;
			continue;
		}
		er->given[er->ngiven++] = (struct cli_found){ pid, start };
	}
}

int cli_export_wanted(const struct options *o)
{
	return o->prometheus && !o->top;
}

int cli_export_main(const struct options *o)
{
	static struct export_run er; /* large (the scans' lists): not on the stack */
	char msg[1200];
	er.o = o;
	er.interval_us = o->interval_us ? o->interval_us : 1000000;
	er.pf.file = o->prometheus;
	if ((er.sfd = cli_signal_fd(0)) < 0) {
		say(0, "cannot take signals: %s", strerror(-er.sfd));
		return JA_EXIT_INTERNAL;
	}
	if (cli_prom_check(o->prometheus, msg, sizeof(msg))) {
		say(0, "%s", msg);
		return JA_EXIT_OUTPUT;
	}
	take_given(&er);
	int code = loop(&er);
	/* A loop ended by a signal or with no process left takes its series
	 * with it; after --count N (or once) the file stays, as written. */
	if (!er.keep)
		cli_prom_remove(&er.pf);
	while (er.n)
		drop(&er, er.n - 1);
	close(er.sfd);
	return code;
}
