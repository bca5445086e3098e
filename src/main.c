/* SPDX-License-Identifier: BSD-2-Clause */
/* jeattach: argv -> options -> plan -> for each target: open, locate
 * jemalloc, then segment by segment: hold one thread, run the actions,
 * release (or wait, holding nothing); report. The only place that prints
 * or exits. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "cli_report.h"
#include "options.h"
#include "plan.h"
#include "rcall.h"

/* Fail before touching any target when a dump could not be written. */
static int check_outputs(const struct plan *p, char *err, size_t len)
{
	for (int i = 0; i < p->nsteps; i++) {
		const char *f = p->steps[i].arg;
		if (p->steps[i].kind != ACT_DUMP)
			continue;
		char copy[4200];
		snprintf(copy, sizeof(copy), "%s", f ? f : "x");
		const char *dir = dirname(copy);
		if (access(dir, W_OK | X_OK) != 0) {
			snprintf(err, len, "cannot write a profile in %s: %s; choose a writable directory",
				 dir, strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* --all NAME: every process whose comm or executable basename is NAME. */
static int find_by_name(struct options *o, char *err, size_t len)
{
	DIR *d = opendir("/proc");
	if (!d) {
		snprintf(err, len, "cannot list /proc: %s", strerror(errno));
		return -1;
	}
	struct dirent *de;
	while ((de = readdir(d)) && o->npids < OPT_MAX_PIDS) {
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid <= 0 || pid == getpid())
			continue;
		char path[64], comm[64] = "", exe[4096];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		FILE *f = fopen(path, "re");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = 0;
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		ssize_t n = readlink(path, exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = 0;
		const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
		if (!strcmp(comm, o->all_name) || !strcmp(base, o->all_name))
			o->pids[o->npids++] = pid;
	}
	closedir(d);
	if (!o->npids) {
		snprintf(err, len, "no process named %s; check the name (ps -e)", o->all_name);
		return -1;
	}
	return 0;
}

/* Wait us microseconds, or until SIGINT/SIGTERM/SIGHUP (blocked: taken
 * here with sigtimedwait). Returns the signal, or 0. */
static int wait_interruptibly(const sigset_t *fatal, int64_t us)
{
	pt_usec_t until = pt_now_us() + us;
	for (;;) {
		pt_usec_t left = until - pt_now_us();
		if (left <= 0)
			return 0;
		struct timespec ts = { (time_t)(left / 1000000), (long)(left % 1000000) * 1000 };
		int sig = sigtimedwait(fatal, NULL, &ts);
		if (sig > 0 && sig != SIGPIPE)
			return sig;
	}
}

static int pending_fatal(const sigset_t *fatal)
{
	sigset_t p;
	sigpending(&p);
	for (int sig = 1; sig < 32; sig++)
		if (sig != SIGPIPE && sigismember(fatal, sig) && sigismember(&p, sig))
			return sig;
	return 0;
}

int main(int argc, char **argv)
{
	struct options o;
	struct plan plan = { 0 };
	char err[512];
	/* Default timer slack (50 us) would stretch pt_wait's ppoll deadlines. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	/* Every injected call is a round trip: the target thread runs, stops,
	 * and jeattach must run at once to answer. On a machine whose cores
	 * the target's own busy threads saturate, a nice-0 jeattach waits a
	 * scheduler slice per round trip (measured: 15-60 ms holds of a busy
	 * 8-thread victim on 2 cores, 0.6-0.8 ms at nice -20). Only jeattach's
	 * own priority changes; without CAP_SYS_NICE this silently does nothing. */
	setpriority(PRIO_PROCESS, 0, -20);
	if (options_parse(argc, argv, &o, err, sizeof(err))) {
		fprintf(stderr, "jeattach: %s\n", err);
		options_free(&o);
		return JE_EXIT_USAGE;
	}
	if (o.help || o.version) {
		if (o.help)
			options_usage(stdout);
		else
			printf("jeattach %s (%s)\n", PACKAGE_VERSION, ARCH_NAME);
		options_free(&o);
		return JE_EXIT_OK;
	}
	if (plan_build(&plan, &o, err, sizeof(err))) {
		fprintf(stderr, "jeattach: %s\n", err);
		plan_free(&plan);
		options_free(&o);
		return JE_EXIT_USAGE;
	}
	int e = pt_init();
	enum je_exit early = JE_EXIT_OK;
	if (e) {
		fprintf(stderr, "jeattach: cannot set up: %s\n", strerror(-e));
		early = JE_EXIT_INTERNAL;
	} else if (o.all_name && find_by_name(&o, err, sizeof(err))) {
		fprintf(stderr, "jeattach: %s\n", err);
		early = JE_EXIT_GONE;
	} else if (check_outputs(&plan, err, sizeof(err))) {
		fprintf(stderr, "jeattach: %s\n", err);
		early = JE_EXIT_OUTPUT;
	}
	if (early) {
		plan_free(&plan);
		options_free(&o);
		return early;
	}
	/* SIGINT, SIGTERM, SIGHUP, SIGPIPE stay blocked for the whole run: one
	 * arriving while a thread is borrowed must not kill jeattach mid-call
	 * (the kernel would detach and the target would run into the trap
	 * address), and a second one must not skip a restore. They are taken
	 * by sigtimedwait during waits, and checked between targets; then the
	 * work that restores a target (the end of --for) still runs, and
	 * jeattach exits with 128 + the signal. SIGPIPE only turns writes to a
	 * closed pipe into EPIPE errors. */
	sigset_t fatal;
	sigemptyset(&fatal);
	sigaddset(&fatal, SIGINT);
	sigaddset(&fatal, SIGTERM);
	sigaddset(&fatal, SIGHUP);
	sigaddset(&fatal, SIGPIPE);
	sigprocmask(SIG_BLOCK, &fatal, NULL);
	struct cli_run *runs = calloc((size_t)o.npids, sizeof(*runs));
	if (!runs) {
		fprintf(stderr, "jeattach: out of memory\n");
		plan_free(&plan);
		options_free(&o);
		return JE_EXIT_INTERNAL;
	}
	int interrupted = 0;
	for (int i = 0; i < o.npids; i++) {
		runs[i].pid = o.pids[i];
		cli_run_open(&runs[i], &o, &plan);
	}
	for (int s = 0; s < plan.nsegs; s++) {
		const struct plan_seg *seg = &plan.segs[s];
		if (seg->kind == PLAN_HOLD) {
			for (int k = 0; k < o.npids; k++) {
				if (!interrupted)
					interrupted = pending_fatal(&fatal);
				/* Once interrupted, only what puts a target back (the
				 * end of a --for that started) still runs. */
				if (interrupted && runs[k].sess.prev_active < 0)
					cli_run_skip(&runs[k], seg);
				else
					cli_run_segment(&runs[k], &o, seg);
			}
			continue;
		}
		pt_usec_t t0 = pt_now_us();
		int sig = interrupted ? interrupted : wait_interruptibly(&fatal, seg->wait_us);
		if (sig)
			interrupted = sig;
		for (int k = 0; k < o.npids; k++)
			cli_run_waited(&runs[k], seg, pt_now_us() - t0, sig != 0);
	}
	int nok = 0, nfail = 0;
	enum je_exit first_fail = JE_EXIT_OK;
	for (int k = 0; k < o.npids; k++) {
		struct cli_run *run = &runs[k];
		run->wall_us = pt_now_us() - run->start;
		if (o.json)
			cli_report_json(stdout, run);
		else if (!o.quiet)
			cli_report_text(stdout, &o, run);
		if (run->code)
			cli_report_error(run);
		if (run->code) {
			nfail++;
			if (!first_fail)
				first_fail = run->code;
		} else {
			nok++;
		}
		cli_run_close(run);
	}
	fflush(stdout);
	free(runs);
	plan_free(&plan);
	options_free(&o);
	if (interrupted)
		return 128 + interrupted;
	if (!nfail)
		return JE_EXIT_OK;
	return nok ? JE_EXIT_PARTIAL : first_fail;
}
