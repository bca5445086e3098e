/* SPDX-License-Identifier: BSD-2-Clause */
/* jeattach: argv -> options -> plan -> for each target: open, locate
 * jemalloc, then segment by segment: hold one thread, run the actions,
 * release (or wait, holding nothing); report. The only place that prints
 * or exits. */
#include "config.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli_find.h"
#include "cli_frag.h"
#include "cli_progress.h"
#include "cli_report.h"
#include "cli_signal.h"
#include "cli_top.h"
#include "options.h"
#include "plan.h"
#include "rcall.h"

/* One dump's file for one target, before any target is touched (so the
 * target does no work for nothing): the name of a directory, of anything
 * but a regular file (a device, a FIFO, a socket, a symbolic link: never
 * replaced, act_output_kind), an existing file without --force, or a
 * directory that cannot be written is said now. The rename that publishes the dump checks again (act_publish.c). */
static int check_output(const struct act *a, pid_t pid, char *err, size_t len)
{
	char file[4096], copy[4096];
	struct stat st;
	const enum act_output out = act_step_output(a);
	const char *opt = act_output_option(out);
	if (a->keep) { /* --dump DIR/: as act_dump_finish opens it, each dump */
		int fd, e = act_keep_open_dir(a->keep->dir, &fd);
		if (!e && faccessat(fd, ".", W_OK | X_OK, 0) != 0)
			e = -errno;
		if (!e)
			close(fd);
		if (e)
			act_keep_dir_why(a->keep->dir, e, err, len);
		return e ? -1 : 0;
	}
	if (!a->arg)
		snprintf(file, sizeof(file), "x"); /* an automatic name, here */
	else if (act_expand_pattern(a->arg, pid, a->seq, file, sizeof(file)))
		return snprintf(err, len, "%s %s: unknown %% escape", opt, a->arg), -1;
	const char *kind = a->arg ? act_output_kind(file) : NULL;
	if (kind && strcmp(kind, "a directory")) {
		snprintf(err, len, "%s %.200s: it is %s, and jeattach replaces regular files "
			 "only (--force too); give another name", opt, file, kind);
		return -1;
	}
	if (!stat(file, &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, len, "%s %.200s: is a directory: give a file name, such as "
			 "%.200s/x.%s", opt, file, file, out == ACT_OUT_RECORD ? "json" : "heap");
		return -1;
	}
	if (a->arg && !a->force && !lstat(file, &st)) {
		snprintf(err, len, "%s %.200s: the file exists; give --force to replace it, "
			 "or a new name (%%n, %%t, %%p in it make names unique)", opt, file);
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", file);
	const char *dir = dirname(copy);
	if (access(dir, W_OK | X_OK) != 0) {
		snprintf(err, len, "cannot write %s in %s: %s; choose a writable directory",
			 out == ACT_OUT_RECORD ? "a record" : "a profile",
			 dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Fail before touching any target when a dump could not be written: each
 * pattern as it expands for each target and step (%p may name its
 * directory, %n each file of a series), the --baseline's too. */
static int check_outputs(const struct plan *p, const struct options *o, char *err, size_t len)
{
	for (int i = 0; i < p->nsteps; i++) {
		const struct act *a = &p->steps[i];
		if (act_step_output(a) == ACT_OUT_NONE)
			continue;
		for (int k = 0; k < o->npids; k++)
			if (check_output(a, o->pids[k], err, len))
				return -1;
	}
	return 0;
}

/* --all NAME[,NAME...]: the pids of every matching process (cli_find). */
static int find_by_name(struct options *o, char *err, size_t len)
{
	static struct cli_found found[OPT_MAX_PIDS];
	int more = 0;
	int n = cli_find_scan(o->all_name, found, OPT_MAX_PIDS, &more);
	if (n < 0) {
		snprintf(err, len, "cannot list /proc: %s", strerror(-n));
		return -1;
	}
	for (int i = 0; i < n; i++)
		o->pids[o->npids++] = found[i].pid;
	if (!o->npids) {
		cli_find_none(o->all_name, err, len);
		return -1;
	}
	return 0;
}

/* One run of jeattach: what main's steps share. */
struct invocation {
	struct options o;
	struct plan plan;
	struct cli_run *runs; /* one per target, in the order of o.pids */
	sigset_t fatal;       /* blocked for the whole run (see run_plan) */
	int interrupted;      /* the fatal signal taken, or 0 */
	struct cli_progress progress; /* the live view of the run */
	char err[512];
	core_usec_t start; /* when main began */
};

/* What a step returns when main goes on to the next one; any other value
 * is jeattach's exit code. */
#define GO_ON (-1)

static void tune_scheduling(void)
{
	/* Default timer slack (50 us) would stretch the ptrace layer's ppoll
	 * deadlines (pt_wait). */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	/* Every injected call is a round trip: the target thread runs, stops,
	 * and jeattach must run at once to answer. On a machine whose cores
	 * the target's own busy threads saturate, a nice-0 jeattach waits a
	 * scheduler slice per round trip (measured: 15-60 ms holds of a busy
	 * 8-thread victim on 2 cores, 0.6-0.8 ms at nice -20). Only jeattach's
	 * own priority changes; without CAP_SYS_NICE this silently does nothing. */
	setpriority(PRIO_PROCESS, 0, -20);
}

/* argv -> options -> plan; --help, --version and --list-options end here. */
static int setup(struct invocation *in, int argc, char **argv)
{
	if (options_parse(argc, argv, &in->o, in->err, sizeof(in->err))) {
		fprintf(stderr, "jeattach: %s\n", in->err);
		return JA_EXIT_USAGE;
	}
	if (in->o.help || in->o.version || in->o.list_options || in->o.list_controls) {
		if (in->o.list_controls)
			options_list_controls(stdout);
		else if (in->o.help)
			options_usage(stdout);
		else if (in->o.version)
			printf("jeattach %s (%s)\n", PACKAGE_VERSION, ARCH_NAME);
		else
			options_list(stdout);
		return JA_EXIT_OK;
	}
	if (plan_build(&in->plan, &in->o, in->err, sizeof(in->err))) {
		fprintf(stderr, "jeattach: %s\n", in->err);
		return JA_EXIT_USAGE;
	}
	return GO_ON;
}

/* A failure before any target is touched: the line on stderr, and with
 * --json the run's one object on stdout (not for the live views, whose
 * JSON is a frame per refresh). */
static int fail_before_targets(struct invocation *in, enum ja_exit code)
{
	fprintf(stderr, "jeattach: %s\n", in->err);
	if (in->o.json && !in->o.top && !in->o.prometheus) {
		cli_report_json_run_failed(stdout, code, in->err, core_now_us() - in->start);
		fflush(stdout);
	}
	return code;
}

/* Before any target is touched: ptrace set up, the pids of --all NAME,
 * and the directories the dumps go to writable. */
static int find_targets(struct invocation *in)
{
	int e = rcall_init();
	if (e) {
		snprintf(in->err, sizeof(in->err), "cannot set up: %s", strerror(-e));
		return fail_before_targets(in, JA_EXIT_INTERNAL);
	}
	/* The exporter scans /proc itself, at every refresh (cli_export.c). */
	if (in->o.all_name && !cli_export_wanted(&in->o) &&
	    find_by_name(&in->o, in->err, sizeof(in->err)))
		return fail_before_targets(in, JA_EXIT_GONE);
	if (check_outputs(&in->plan, &in->o, in->err, sizeof(in->err)))
		return fail_before_targets(in, JA_EXIT_OUTPUT);
	enum ja_exit fc = cli_frag_check(&in->o, in->err, sizeof(in->err));
	if (fc != JA_EXIT_OK)
		return fail_before_targets(in, fc);
	return GO_ON;
}

/* Does the segment hold a step that puts something back (its row's
 * restores: the end of --for, --recent, --sample)? */
static int seg_restores(const struct invocation *in, const struct plan_seg *seg)
{
	for (int i = seg->first; i < seg->last; i++)
		if (act_row(in->plan.steps[i].kind)->restores)
			return 1;
	return 0;
}

/* A PLAN_HOLD segment, target after target. */
static void hold_segment(struct invocation *in, const struct plan_seg *seg)
{
	for (int k = 0; k < in->o.npids; k++) {
		if (!in->interrupted)
			in->interrupted = cli_pending_signal();
		/* Once interrupted, only what puts a target back (the end of
		 * a --for that started, the sampler's removal) still runs. */
		const struct act_session *s = &in->runs[k].sess;
		if (in->interrupted && s->prev_active < 0 && !(s->sampler && seg_restores(in, seg)))
			cli_run_skip(&in->runs[k], seg, in->interrupted);
		else
			cli_run_segment(&in->runs[k], &in->o, seg);
		/* A run that waits tells each hold's results as they come, so
		 * that a log or a file (> out) is not empty for the whole
		 * --for; --json keeps one object per target, its events
		 * going as they happen (cli_progress.c). */
		if (in->plan.nsegs > 1 && !in->o.json && !in->o.quiet)
			cli_report_steps(stdout, &in->runs[k], seg->last);
	}
}

/* Wait us microseconds, or until SIGINT/SIGTERM/SIGHUP (blocked: taken
 * here with sigtimedwait). Returns the signal, or 0. Every tick, threads
 * that were slow to stop are let go as soon as they have (rcall_sweep),
 * the --sample ring is read, and the time left is told (then: what
 * follows the wait). */
static int wait_interruptibly(struct invocation *in, int64_t us, const char *then)
{
	core_usec_t until = core_now_us() + us;
	for (;;) {
		core_usec_t left = until - core_now_us();
		if (left <= 0)
			return 0;
		struct cli_event e = { .kind = CLI_EV_WAIT, .remaining_us = left, .total_us = us,
				       .then = then };
		cli_progress_event(&in->progress, &e);
		/* The sampler's ring is read at every tick: more often while
		 * one is in (act_sample_tick). */
		int64_t tick = RCALL_TICK_US;
		for (int k = 0; k < in->o.npids; k++)
			if (in->runs[k].sess.sampler)
				tick = ACT_SAMPLE_TICK_US;
		if (left > tick)
			left = tick;
		struct timespec ts = { (time_t)(left / 1000000), (long)(left % 1000000) * 1000 };
		int sig = sigtimedwait(&in->fatal, NULL, &ts);
		if (sig > 0 && sig != SIGPIPE)
			return sig;
		for (int k = 0; k < in->o.npids; k++)
			if (in->runs[k].t) {
				rcall_sweep(in->runs[k].t);
				/* --sample: its ring read while the target runs. */
				act_sample_tick(in->runs[k].t, &in->runs[k].sess);
			}
	}
}

/* What follows the wait seg, in words, and what Ctrl-C does to it: --for
 * still dumps and restores, --every keeps the dumps made. */
static void then_text(const struct invocation *in, const struct plan_seg *seg, char *buf,
		      size_t len)
{
	const struct plan *p = &in->plan;
	const struct plan_seg *next = seg + 1 < p->segs + p->nsegs ? seg + 1 : NULL;
	int restore = 0, dump = -1, recent = 0, sample = 0;
	for (int i = next ? next->first : 0; next && i < next->last; i++) {
		recent |= act_step_output(&p->steps[i]) == ACT_OUT_RECORD;
		sample |= p->steps[i].kind == ACT_SAMPLE_END;
		restore |= act_row(p->steps[i].kind)->restores != NULL;
		if (p->steps[i].kind == ACT_DUMP)
			dump = i;
	}
	if (sample)
		snprintf(buf, len, "take the sampler out and write its profile; Ctrl-C ends the "
			 "wait early, and still does");
	else if (recent)
		snprintf(buf, len, "%stake the record of recent allocations and put back what "
			 "was changed; Ctrl-C ends the wait early, and still does", dump >= 0 ? "dump, " : "");
	else if (restore)
		snprintf(buf, len, "dump and put prof.active back; Ctrl-C ends the wait early, "
			 "and still dumps and restores");
	else if (dump >= 0 && p->repeat)
		snprintf(buf, len, "dump %u, and so on until stopped; Ctrl-C stops, the dumps "
			 "made are kept", p->steps[dump].seq + 1);
	else if (dump >= 0)
		snprintf(buf, len, "dump %u of %ld; Ctrl-C stops, the dumps made are kept",
			 p->steps[dump].seq + 1, p->ndumps);
	else
		snprintf(buf, len, "the next actions; Ctrl-C stops");
}

/* A PLAN_WAIT segment: every target let go meanwhile; a fatal signal ends
 * it early (or skips it, if one came before). */
static void wait_segment(struct invocation *in, const struct plan_seg *seg)
{
	char then[200];
	int live = 0;
	for (int k = 0; k < in->o.npids; k++)
		live |= !in->runs[k].done;
	/* Every target failed already (a refused --baseline): waiting would
	 * only delay the message. */
	if (!live)
		return;
	then_text(in, seg, then, sizeof(then));
	core_usec_t t0 = core_now_us();
	int skipped = in->interrupted != 0;
	int sig = skipped ? in->interrupted : wait_interruptibly(in, seg->wait_us, then);
	if (sig)
		in->interrupted = sig;
	struct cli_event e = { .kind = CLI_EV_WAIT_END, .elapsed_us = core_now_us() - t0,
			       .interrupted = sig != 0 };
	if (!skipped) /* a wait skipped after an interruption never began */
		cli_progress_event(&in->progress, &e);
	for (int k = 0; k < in->o.npids; k++)
		if (skipped)
			cli_run_skip(&in->runs[k], seg, sig);
		else
			cli_run_waited(&in->runs[k], seg, core_now_us() - t0, sig != 0);
}

/* --every without --count: after the round's last segment, another round
 * (a wait, a dump) while no signal came and some target still runs. Each
 * target's results of the round are told (text as they came, --json as
 * "dump" events) before they are made empty for the next; the report at
 * the end has the first dump and the last. */
static int another_round(struct invocation *in)
{
	int live = 0;
	if (!in->plan.repeat)
		return 0;
	if (!in->interrupted)
		in->interrupted = cli_pending_signal();
	for (int k = 0; k < in->o.npids; k++)
		live |= !in->runs[k].done;
	if (in->interrupted || !live)
		return 0;
	plan_repeat(&in->plan);
	for (int k = 0; k < in->o.npids; k++) /* a failed one keeps its failure to report */
		if (!in->runs[k].done)
			cli_run_rewind(&in->runs[k], in->plan.segs[in->plan.repeat_seg].first);
	return 1;
}

/* Every target through the plan, segment by segment. */
static int run_plan(struct invocation *in)
{
	/* SIGINT, SIGTERM, SIGHUP, SIGPIPE stay blocked for the whole run: one
	 * arriving while a thread is borrowed must not kill jeattach mid-call
	 * (the kernel would detach and the target would run into the trap
	 * address), and a second one must not skip a restore. They are taken
	 * by sigtimedwait during waits, and checked between targets; then the
	 * work that restores a target (the end of --for) still runs, and
	 * jeattach exits with 128 + the signal. SIGPIPE only turns writes to a
	 * closed pipe into EPIPE errors. */
	sigemptyset(&in->fatal);
	sigaddset(&in->fatal, SIGINT);
	sigaddset(&in->fatal, SIGTERM);
	sigaddset(&in->fatal, SIGHUP);
	sigaddset(&in->fatal, SIGPIPE);
	sigprocmask(SIG_BLOCK, &in->fatal, NULL);
	in->runs = calloc((size_t)in->o.npids, sizeof(*in->runs));
	if (!in->runs) {
		fprintf(stderr, "jeattach: out of memory\n");
		return JA_EXIT_INTERNAL;
	}
	cli_progress_init(&in->progress, &in->o);
	for (int i = 0; i < in->o.npids; i++) {
		in->runs[i].pid = in->o.pids[i];
		in->runs[i].on_event = cli_progress_event;
		in->runs[i].event_arg = &in->progress;
		cli_run_open(&in->runs[i], &in->o, &in->plan);
	}
	for (int s = 0; s < in->plan.nsegs; s++) {
		const struct plan_seg *seg = &in->plan.segs[s];
		if (seg->kind == PLAN_HOLD)
			hold_segment(in, seg);
		else
			wait_segment(in, seg);
		if (s == in->plan.nsegs - 1 && another_round(in))
			s = in->plan.repeat_seg - 1;
	}
	/* A scratch mapping kept for holds that did not come (a series cut
	 * short): removed before the report, which says if it could not be. */
	for (int k = 0; k < in->o.npids; k++)
		cli_run_end(&in->runs[k], &in->o);
	/* One that came during the last hold (it may have made jeattach leave
	 * a running call) still decides the exit code. */
	if (!in->interrupted)
		in->interrupted = cli_pending_signal();
	struct cli_event done = { .kind = CLI_EV_DONE };
	cli_progress_event(&in->progress, &done);
	return GO_ON;
}

/* The exit code for all targets: 128 + a signal that interrupted the run;
 * else the first failure if every target failed, JA_EXIT_PARTIAL if only
 * some did. */
static int exit_code(int interrupted, int nok, int nfail, enum ja_exit first_fail)
{
	if (interrupted)
		return 128 + interrupted;
	if (!nfail)
		return JA_EXIT_OK;
	return nok ? JA_EXIT_PARTIAL : first_fail;
}

/* Each target's report (its error on stderr), then the target closed. */
static int report(struct invocation *in)
{
	int nok = 0, nfail = 0;
	enum ja_exit first_fail = JA_EXIT_OK;
	for (int k = 0; k < in->o.npids; k++) {
		struct cli_run *run = &in->runs[k];
		run->wall_us = core_now_us() - run->start;
		if (in->o.json)
			cli_report_json(stdout, run);
		else if (!in->o.quiet)
			cli_report_text(stdout, &in->o, run);
		if (run->code) {
			cli_report_error(run);
			nfail++;
			if (!first_fail)
				first_fail = run->code;
		} else {
			nok++;
		}
		cli_run_close(run);
	}
	fflush(stdout);
	return exit_code(in->interrupted, nok, nfail, first_fail);
}

int main(int argc, char **argv)
{
	struct invocation in = { .start = core_now_us() };
	tune_scheduling();
	int code = setup(&in, argc, argv);
	if (code == GO_ON)
		code = find_targets(&in);
	if (code == GO_ON && in.o.top)
		code = cli_top_main(&in.o); /* a live view: no plan, its own loop */
	else if (code == GO_ON && cli_export_wanted(&in.o))
		code = cli_export_main(&in.o); /* the exporter: every target, its own loop */
	if (code == GO_ON)
		code = run_plan(&in);
	if (code == GO_ON)
		code = report(&in);
	free(in.runs);
	plan_free(&in.plan);
	options_free(&in.o);
	return code;
}
