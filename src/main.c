/* SPDX-License-Identifier: BSD-2-Clause */
/* jeattach: argv -> options -> for each target: open, locate jemalloc, hold
 * one thread, run the actions, release, report. The only place that prints
 * or exits. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>
#include "cli_diag.h"
#include "cli_report.h"
#include "options.h"
#include "rcall.h"

static void narrate(const struct options *o, pid_t pid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void narrate(const struct options *o, pid_t pid, const char *fmt, ...)
{
	if (!o->verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "jeattach: %d: ", (int)pid);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static enum je_exit fail(struct cli_run *run, enum je_exit code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum je_exit fail(struct cli_run *run, enum je_exit code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(run->msg, sizeof(run->msg), fmt, ap);
	va_end(ap);
	run->code = code;
	return code;
}

static enum je_exit open_error(struct cli_run *run, int e)
{
	const struct target *t = &run->t;
	switch (e) {
	case -ESRCH:
		return fail(run, JE_EXIT_GONE, "no such process; check the pid (ps -e)");
	case -EDOM:
		return fail(run, JE_EXIT_USAGE,
			    "this is a thread id, not a process id; give the process id (Tgid in "
			    "/proc/%d/status)", (int)run->pid);
	case -EINVAL:
		return fail(run, JE_EXIT_UNSAFE, "cannot attach: it is a kernel thread, which has no "
			    "user memory and no allocator");
	case -ECHILD:
		return fail(run, JE_EXIT_GONE, "cannot attach: it is a zombie (exited, not yet "
			    "reaped by its parent)");
	case -ENOEXEC:
		return fail(run, JE_EXIT_UNSAFE, "cannot attach: it is a 32-bit process; jeattach "
			    "handles 64-bit (%s) processes only", ARCH_NAME);
	case -EACCES:
	case -EPERM: {
		char why[512];
		target_find_tracer(&run->t);
		cli_diag_ptrace_denied(t, why, sizeof(why));
		return fail(run, JE_EXIT_PERM, "cannot read its /proc entries: permission denied: %s",
			    why);
	}
	default:
		return fail(run, JE_EXIT_INTERNAL, "cannot read /proc/%d: %s", (int)run->pid,
			    strerror(-e));
	}
}

static enum je_exit locate_error(struct cli_run *run, const struct options *o, int e)
{
	if (e == -ENOENT && o->prefix)
		return fail(run, JE_EXIT_NOJEMALLOC,
			    "no jemalloc found: no object of the process defines %smallctl%s%s; "
			    "check --prefix, or the binary may be stripped (keep its .symtab)",
			    o->prefix, run->t.why[0] ? ": " : "", run->t.why);
	if (e == -ENOENT)
		return fail(run, JE_EXIT_NOJEMALLOC,
			    "no jemalloc found: no object of the process defines mallctl, je_mallctl "
			    "or _rjem_mallctl%s%s; if it uses another prefix give --prefix, if the "
			    "binary is stripped it cannot be found",
			    run->t.why[0] ? ": " : "", run->t.why);
	return fail(run, JE_EXIT_INTERNAL, "cannot locate jemalloc: %s%s%s", strerror(-e),
		    run->t.why[0] ? ": " : "", run->t.why);
}

static enum je_exit hold_error(struct cli_run *run, int e)
{
	switch (e) {
	case -EPERM:
	case -EACCES: {
		char why[512];
		target_find_tracer(&run->t);
		cli_diag_ptrace_denied(&run->t, why, sizeof(why));
		return fail(run, JE_EXIT_PERM, "cannot attach: permission denied: %s", why);
	}
	case -ESRCH:
		if (run->t.why[0])
			return fail(run, JE_EXIT_GONE, "cannot attach: %s", run->t.why);
		return fail(run, JE_EXIT_GONE, "the process exited while jeattach attached");
	case -ETIMEDOUT:
		return fail(run, JE_EXIT_TIMEOUT, "cannot attach: %s; retry, or give a larger "
			    "--timeout", run->t.why[0] ? run->t.why : "timeout");
	case -ENOEXEC:
		return fail(run, JE_EXIT_UNSAFE, "cannot attach: a thread runs in 32-bit mode");
	default:
		return fail(run, JE_EXIT_INTERNAL, "cannot attach: %s", strerror(-e));
	}
}

/* Everything up to the release: any early return still releases (the
 * caller calls target_release before it reports). */
static enum je_exit run_held(struct cli_run *run, const struct options *o)
{
	struct target *t = &run->t;
	if (t->info.shadow_stack)
		return fail(run, JE_EXIT_UNSAFE,
			    "cannot attach safely: the process runs with x86 shadow stacks (CET), "
			    "which an injected call's return would violate; this is not supported yet");
	if (t->info.tracer) /* the main thread's TracerPid, read by target_open */
		return hold_error(run, -EPERM);
	narrate(o, run->pid, "holding a thread at a safe point");
	int e = target_hold(t);
	if (e)
		return hold_error(run, e);
	narrate(o, run->pid, "holding thread %d", (int)rcall_held_tid(t));
	for (int i = 0; i < o->nactions; i++) {
		struct act_result *r = &run->res[run->nres++];
		act_result_init(r, o->actions[i].kind);
		narrate(o, run->pid, "%s", r->action);
		if (act_run(t, &o->actions[i], r) != JE_EXIT_OK)
			return fail(run, r->code, "%s", r->msg);
	}
	return JE_EXIT_OK;
}

static enum je_exit run_target(struct cli_run *run, const struct options *o)
{
	struct target *t = &run->t;
	pt_usec_t start = pt_now_us();
	t->deadline = start + (pt_usec_t)(o->timeout_s * 1e6);
	t->verbose = o->verbose;
	t->only_tid = o->tid;
	int e = target_open(t, run->pid);
	if (e) {
		open_error(run, e);
		goto out;
	}
	run->opened = 1;
	narrate(o, run->pid, "%s, %zu mappings", t->info.comm, t->maps.n);
	e = target_locate(t, o->prefix);
	if (e) {
		locate_error(run, o, e);
		goto out;
	}
	run->located = 1;
	narrate(o, run->pid, "jemalloc: %s (prefix '%s'%s%s), mallctl at %#llx", t->je.object,
		t->je.prefix, t->je.is_main_executable ? ", linked into the program" : "",
		t->je.found_by_link_map ? ", confirmed by link_map" : "",
		(unsigned long long)t->je.mallctl);
	run_held(run, o);
	/* Restore the target before anything is reported. */
	e = target_release(t);
	if (e && run->code == JE_EXIT_OK)
		fail(run, e == -ESRCH ? JE_EXIT_GONE : JE_EXIT_INTERNAL,
		     "cannot restore the borrowed thread: %s", strerror(-e));
	narrate(o, run->pid, "released");
	for (int i = 0; i < run->nres && run->code == JE_EXIT_OK; i++)
		if (act_finish(t, &o->actions[i], &run->res[i]) != JE_EXIT_OK)
			fail(run, run->res[i].code, "%s", run->res[i].msg);
out:
	/* Whatever failed, if the process is gone that is the whole story
	 * (an exiting process loses its mappings, threads and /proc entries
	 * one by one, and each stage fails its own way). */
	if (run->opened && run->code != JE_EXIT_OK && run->code != JE_EXIT_USAGE &&
	    !target_alive(t))
		fail(run, JE_EXIT_GONE, "the process exited while jeattach worked on it");
	for (int i = 0; i < run->nres; i++)
		act_result_free(&run->res[i]);
	target_close(t);
	run->wall_us = pt_now_us() - start;
	return run->code;
}

/* Fail before touching any target when a dump could not be written. */
static int check_outputs(const struct options *o, char *err, size_t len)
{
	for (int i = 0; i < o->nactions; i++) {
		const char *f = o->actions[i].arg;
		if (o->actions[i].kind != ACT_DUMP)
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

int main(int argc, char **argv)
{
	struct options o;
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
		return JE_EXIT_USAGE;
	}
	if (o.help) {
		options_usage(stdout);
		return JE_EXIT_OK;
	}
	if (o.version) {
		printf("jeattach %s (%s)\n", PACKAGE_VERSION, ARCH_NAME);
		return JE_EXIT_OK;
	}
	int e = pt_init();
	if (e) {
		fprintf(stderr, "jeattach: cannot set up: %s\n", strerror(-e));
		return JE_EXIT_INTERNAL;
	}
	if (check_outputs(&o, err, sizeof(err))) {
		fprintf(stderr, "jeattach: %s\n", err);
		return JE_EXIT_OUTPUT;
	}
	/* Ctrl-C, SIGTERM, SIGHUP or SIGPIPE while a thread is borrowed must not
	 * kill jeattach mid-call (the kernel would detach and the target would
	 * run into the trap address): they wait, blocked, until the target is
	 * restored and released, and then take effect. */
	sigset_t fatal, old;
	sigemptyset(&fatal);
	sigaddset(&fatal, SIGINT);
	sigaddset(&fatal, SIGTERM);
	sigaddset(&fatal, SIGHUP);
	sigaddset(&fatal, SIGPIPE);
	int nok = 0, nfail = 0;
	enum je_exit first_fail = JE_EXIT_OK;
	struct cli_run *run = malloc(sizeof(*run));
	if (!run) {
		fprintf(stderr, "jeattach: out of memory\n");
		return JE_EXIT_INTERNAL;
	}
	for (int i = 0; i < o.npids; i++) {
		memset(run, 0, sizeof(*run));
		run->pid = o.pids[i];
		sigprocmask(SIG_BLOCK, &fatal, &old);
		enum je_exit c = run_target(run, &o);
		if (o.json)
			cli_report_json(stdout, run);
		else if (!o.quiet)
			cli_report_text(stdout, &o, run);
		if (c)
			cli_report_error(run);
		fflush(stdout);
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (c) {
			nfail++;
			if (!first_fail)
				first_fail = c;
		} else {
			nok++;
		}
	}
	free(run);
	if (!nfail)
		return JE_EXIT_OK;
	return nok ? JE_EXIT_PARTIAL : first_fail;
}
