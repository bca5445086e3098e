/* SPDX-License-Identifier: BSD-2-Clause */
/* One target through the plan: open, then one hold per PLAN_HOLD segment. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli_diag.h"
#include "cli_each.h"
#include "cli_frag.h"
#include "cli_run.h"
#include "cli_signal.h"
#include "core_text.h"
#include "errors.h"
#include "rcall.h"
#include "rproc.h"
#include "cli_scratch.h"

static void narrate(const struct options *o, pid_t pid, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void narrate(const struct options *o, pid_t pid, const char *fmt, ...)
{
	if (!o->verbose)
		return;
	char line[8192], safe[sizeof(line) * 4];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	core_text_escape(line, safe, sizeof(safe)); /* it names the target's comm, paths */
	fprintf(stderr, "jeattach: %d: %s\n", (int)pid, safe);
}

static enum ja_exit fail(struct cli_run *run, enum ja_exit code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static enum ja_exit fail(struct cli_run *run, enum ja_exit code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(run->msg, sizeof(run->msg), fmt, ap);
	va_end(ap);
	run->code = code;
	run->done = 1;
	return code;
}

/* A failure outside the actions, through the one table (errors.c). */
static enum ja_exit stage_error(struct cli_run *run, const struct options *o,
				enum ja_stage stage, int e)
{
	char why[400];
	target_why_text(run->t, why, sizeof(why));
	struct ja_err_ctx c = { .pid = run->pid, .why = why, .prefix = o->prefix,
				.own_fix = ja_reason_own_fix(target_last_reason(run->t)),
				.denied = cli_diag_denied, .arg = run->t };
	char msg[sizeof(run->msg)];
	enum ja_exit code = ja_err_explain(stage, e, &c, msg, sizeof(msg));
	return fail(run, code, "%s", msg);
}

/* After a failure: is the process alive, or in the middle of exiting (an
 * exit_group kills threads one by one, and a borrowed thread can see
 * strange stops meanwhile)? Give an exit 100 ms to show itself. */
static int target_settled_alive(const struct target *t)
{
	for (int i = 0; i < 10; i++) {
		if (!target_alive(t))
			return 0;
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	return target_alive(t);
}

/* rcall's progress hook: a call has run for elapsed_us. Once a second, for
 * a dump, tell how long and how much jemalloc has written (the event's
 * receiver decides who sees it); ask to leave when the user sent SIGINT,
 * SIGTERM or SIGHUP.
 * A call that is not crash-safe cannot be left (the thread would return
 * into the trap address with no one to catch it): say so once. */
static int on_progress(void *arg, int64_t elapsed_us, int can_leave)
{
	struct cli_run *run = arg;
	const struct act_result *r = &run->res[run->current];
	int leave = cli_pending_signal() != 0;
	int64_t s = elapsed_us / 1000000;
	struct stat st;
	/* jeattach drains jemalloc's pipe into its own memfd as it is written
	 * (act_dump_pipe.c): its size is how far the dump has got. */
	if (s >= 1 && s != run->progress_s && run->on_event) {
		int dumping = act_result_out_kind(r) == ACT_RES_DUMP && r->out.dump.fd >= 0 &&
			      !fstat(r->out.dump.fd, &st);
		struct cli_event e = { .kind = dumping ? CLI_EV_DUMP_RUNNING : CLI_EV_RUNNING,
				       .pid = run->pid, .r = r, .elapsed_us = elapsed_us,
				       .bytes = dumping ? (uint64_t)st.st_size : 0 };
		run->on_event(run->event_arg, &e);
		run->progress_s = s;
	}
	if (leave && !can_leave && !run->said_cannot_leave) {
		fprintf(stderr, "jeattach: %d: cannot leave before the call ends: it is not crash-safe "
				"here, and the thread would die of it; waiting\n",
			(int)run->pid);
		run->said_cannot_leave = 1;
	}
	return leave;
}

/* rcall's quit hook: a Ctrl-C (SIGTERM, SIGHUP) while no thread is held
 * yet ends the search at once, unless the hold is to put the target back
 * (jeattach(1): signals wait only while a thread is borrowed). */
static int on_quit(void *arg)
{
	const struct cli_run *run = arg;
	return run->quittable && cli_pending_signal();
}

enum ja_exit cli_run_open(struct cli_run *run, const struct options *o, const struct plan *p)
{
	struct target *t = run->t = target_new();
	run->start = core_now_us();
	run->sess.prev_active = -1;
	run->sess.recent_prev = -1;
	run->sess.pass_step = -1;
	run->plan = p;
	run->res = calloc((size_t)p->nsteps, sizeof(*run->res));
	if (!run->res || !t)
		return fail(run, JA_EXIT_INTERNAL, "out of memory");
	run->nsteps = p->nsteps;
	for (int i = 0; i < p->nsteps; i++)
		act_result_init(&run->res[i], p->steps[i].kind);
	int e = target_open(t, run->pid);
	if (e)
		return stage_error(run, o, JA_AT_OPEN, e);
	run->opened = 1;
	narrate(o, run->pid, "%s, %zu mappings", target_get_info(t)->comm, target_nmaps(t));
	e = target_locate(t, o->prefix);
	char fate[300];
	if (e && (!target_settled_alive(t) || target_fate(t, fate, sizeof(fate)) == TARGET_EXECED))
		return fail(run, JA_EXIT_GONE, "%s while jeattach read it",
			    (target_fate(t, fate, sizeof(fate)), fate));
	if (!e) {
		struct rcall_opts ro = { .only_tid = o->tid };
		unsigned needs = 0;
		for (int i = 0; i < p->nsteps; i++)
			needs |= act_row(p->steps[i].kind)->needs;
		e = rcall_prepare(t, &ro);
		if (!e)
			e = rproc_prepare(t, needs);
		run->verbose = o->verbose;
		rcall_set_progress(t, on_progress, run);
		rcall_set_quit(t, on_quit, run);
	}
	if (e)
		return stage_error(run, o, JA_AT_LOCATE, e);
	run->located = 1;
	const struct sym_jemalloc *je = target_jemalloc(t);
	narrate(o, run->pid, "jemalloc: %s (prefix '%s'%s%s), mallctl at %#llx", je->object,
		je->prefix, je->is_main_executable ? ", linked into the program" : "",
		je->found_by_link_map ? ", confirmed by link_map" : "",
		(unsigned long long)je->mallctl);
	return JA_EXIT_OK;
}

/* The thread a hold borrowed: kept for --json, told with -v, and where a
 * long call must run on a busy thread (one thread, or every one busy),
 * said before the call. */
static void note_held(struct cli_run *run, const struct options *o, const char *long_call)
{
	struct rcall_hold_info h;
	if (rcall_held_info(run->t, &h))
		return;
	/* A series until stopped keeps the last CLI_RUN_HELD_MAX holds, not
	 * one entry per hold for as long as it runs. */
	if (run->plan->repeat && run->nheld == CLI_RUN_HELD_MAX) {
		memmove(run->held, run->held + 1, sizeof(*run->held) * (size_t)(run->nheld - 1));
		run->nheld--;
	}
	if (run->nheld == run->held_cap) {
		int cap = run->held_cap ? 2 * run->held_cap : 4;
		struct rcall_hold_info *v = realloc(run->held, sizeof(*v) * (size_t)cap);
		if (!v)
			return;
		run->held = v;
		run->held_cap = cap;
	}
	run->held[run->nheld++] = h;
	char comm[sizeof(h.comm) * 4];
	core_text_escape(h.comm, comm, sizeof(comm));
	narrate(o, run->pid, "holding thread %d (%s): %s, the %d%s of %d thread%s ranked", (int)h.tid,
		comm, h.cost == RCALL_COST_UNTIMED_WAIT ? "in a wait with no timeout"
		      : h.cost == RCALL_COST_TIMED_WAIT ? "in a timed wait"
							 : "running",
		h.rank, h.rank == 1 ? "st" : h.rank == 2 ? "nd" : h.rank == 3 ? "rd" : "th",
		h.candidates, h.candidates == 1 ? "" : "s");
	/* Said where the choice was forced (one thread, or every one busy),
	 * not where --tid made it: -v tells that thread's state. */
	if (long_call && h.cost == RCALL_COST_RUNNING && !o->tid)
		fprintf(stderr, "jeattach: %d: the %s will run on thread %d (%s), which is busy: no "
				"idle thread could be borrowed\n",
			(int)run->pid, long_call, (int)h.tid, comm);
}

/* The held thread's calls will not be crash-safe (rcall_unsafe_why): said
 * in one line before the action's calls, once per thread, since --json's
 * "crash_safe": false comes only after them. */
static void say_unsafe(struct cli_run *run, const struct options *o)
{
	const char *why = rcall_unsafe_why(run->t);
	pid_t tid = rcall_held_tid(run->t);
	if (!why || o->quiet || tid == run->said_unsafe)
		return;
	run->said_unsafe = tid;
	fprintf(stderr, "jeattach: %d: the calls in thread %d will not be crash-safe (%s): a "
			"jeattach killed by SIGKILL before they end would leave that thread to "
			"fault; Ctrl-C waits for them\n",
		(int)run->pid, (int)tid, why);
}

/* Everything up to the release: any early return still releases (the
 * caller calls rcall_release before it reports). */
static enum ja_exit run_held(struct cli_run *run, const struct options *o,
			     const struct plan_seg *seg)
{
	struct target *t = run->t;
	const struct target_info *in = target_get_info(t);
	if (in->shadow_stack)
		return fail(run, JA_EXIT_UNSAFE,
			    "cannot attach safely: the process runs with x86 shadow stacks (CET), "
			    "which an injected call's return would violate; this is not supported yet");
	if (in->tracer) /* the main thread's TracerPid, read by target_open */
		return stage_error(run, o, JA_AT_ATTACH, -EPERM);
	/* Another program since jeattach located jemalloc (an execve during a
	 * --for or --every wait): its addresses are no longer the process's;
	 * no thread of the new program is borrowed. */
	char fate[300];
	if (target_fate(t, fate, sizeof(fate)) == TARGET_EXECED)
		return fail(run, JA_EXIT_GONE, "%s since jeattach located jemalloc; nothing was "
			    "done in the new program", fate);
	int holdless = 1;
	for (int i = seg->first; i < seg->last; i++)
		holdless &= act_row(run->plan->steps[i].kind)->holdless;
	if (holdless) { /* reads of the target's memory alone: no stop */
		for (int i = seg->first; i < seg->last; i++)
			if (act_run(t, &run->sess, &run->plan->steps[i], &run->res[i]) != JA_EXIT_OK)
				return fail(run, run->res[i].code, "%s", run->res[i].msg);
		return JA_EXIT_OK;
	}
	narrate(o, run->pid, "holding a thread at a safe point");
	const char *long_call = NULL;
	for (int i = seg->first; i < seg->last && !long_call; i++)
		long_call = act_step_long(&run->plan->steps[i]);
	rcall_set_long_call(t, long_call != NULL);
	run->quittable = 1;
	for (int i = seg->first; i < seg->last; i++) {
		act_before(t, &run->plan->steps[i], &run->res[i]);
		run->quittable &= act_row(run->plan->steps[i].kind)->restores == NULL;
	}
	int e = rcall_hold(t);
	run->quittable = 0;
	if (e == -JA_ERR_INTERRUPTED) { /* nothing held: nothing done */
		cli_run_skip(run, seg, cli_pending_signal());
		return JA_EXIT_OK;
	}
	if (e)
		return stage_error(run, o, JA_AT_ATTACH, e);
	note_held(run, o, long_call);
	say_unsafe(run, o);
	for (int i = seg->first; i < seg->last; i++) {
		struct act_result *r = &run->res[i];
		narrate(o, run->pid, "%s", r->action);
		run->current = i;
		run->progress_s = 0;
		if (act_run(t, &run->sess, &run->plan->steps[i], r) != JA_EXIT_OK)
			return fail(run, r->code, "%s", r->msg);
		/* The step that asked for the per-thread pass reports it. */
		if (act_session_pass_wanted(&run->sess) && run->sess.pass_step < 0)
			run->sess.pass_step = i;
	}
	return JA_EXIT_OK;
}

/* --for turned prof.active on, or --recent raised the number of records
 * kept, and the step that puts it back (step i) did not run, because
 * something before it in the segment failed or no thread could be held:
 * put it back in a hold of its own, or say loudly that it stays. The
 * failure that got here stays the run's outcome. */
static void restore_after(struct cli_run *run, const struct options *o, int i)
{
	struct target *t = run->t;
	struct act_result *r = &run->res[i];
	int recent = run->plan->steps[i].kind == ACT_RECENT_END;
	long long prev = (long long)run->sess.recent_prev;
	narrate(o, run->pid, "putting %s back after a failure",
		act_row(run->plan->steps[i].kind)->restores);
	rcall_set_deadline(t, core_now_us() + (core_usec_t)(o->timeout_s * 1e6));
	rcall_set_long_call(t, 0);
	int e = rcall_hold(t);
	if (!e) {
		note_held(run, o, NULL);
		say_unsafe(run, o);
		act_run(t, &run->sess, &run->plan->steps[i], r);
	}
	rcall_release(t);
	if (!e && r->code == JA_EXIT_OK)
		return;
	size_t n = strlen(run->msg);
	if (recent)
		snprintf(run->msg + n, sizeof(run->msg) - n,
			 "; and experimental.prof_recent.alloc_max could not be put back: jemalloc "
			 "keeps recording recent allocations (it kept %lld); put it back with: "
			 "jeattach -p %d --set experimental.prof_recent.alloc_max=%lld",
			 prev, (int)run->pid, prev);
	else if (run->plan->steps[i].kind == ACT_SAMPLE_END)
		snprintf(run->msg + n, sizeof(run->msg) - n,
			 "; and the sampler could not be taken out: its hooks stay in, sampling, "
			 "until they switch themselves off (--timeout and 10 s after the window); "
			 "the next jeattach -p %d --sample removes them",
			 (int)run->pid);
	else
		snprintf(run->msg + n, sizeof(run->msg) - n,
			 "; and prof.active could not be put back: profiling stays ACTIVE (it was "
			 "off before --for); turn it off with: jeattach -p %d --deactivate",
			 (int)run->pid);
}

/* In a run that waits (--for, --every), a dump is told as it lands, and a
 * warning as it is found; a run without waits has only its report. */
static void tell_finished(struct cli_run *run, int i)
{
	const struct act *a = &run->plan->steps[i];
	const struct act_result *r = &run->res[i];
	if (!run->on_event || run->plan->nsegs < 2 || !r->ran)
		return;
	/* count 0: a series until stopped */
	struct cli_event e = { .pid = run->pid, .r = r, .seq = a->seq,
			       .count = run->plan->repeat ? 0 : run->plan->ndumps };
	if (r->warning[0]) {
		e.kind = CLI_EV_WARNING;
		run->on_event(run->event_arg, &e);
	}
	if (a->kind == ACT_DUMP) {
		e.kind = CLI_EV_DUMP;
		run->on_event(run->event_arg, &e);
	}
}

/* The run failed after --for turned prof.active on, or --recent raised
 * the records kept, and the step that puts it back will not run: in this
 * segment (a step before it failed, no thread could be held) or in a
 * later one, which a failure skips (the baseline's file could not be
 * written after the first hold). The record first: the order the plan
 * has them in. */
static void restore_if_left_on(struct cli_run *run, const struct options *o,
			       const struct plan_seg *seg)
{
	char fate[300];
	/* Gone, or another program now (execve): nothing of ours to put back. */
	if (run->code == JA_EXIT_OK || target_fate(run->t, fate, sizeof(fate)) != TARGET_AS_WAS)
		return;
	for (int i = seg->first; i < run->nsteps; i++) {
		enum act_kind k = run->plan->steps[i].kind;
		if (run->res[i].ran)
			continue;
		if ((k == ACT_RECENT_END && run->sess.recent_set) ||
		    (k == ACT_SAMPLE_END && run->sess.sampler) ||
		    (k == ACT_FOR_END && run->sess.prev_active == 0))
			restore_after(run, o, i);
	}
}

void cli_run_end(struct cli_run *run, const struct options *o)
{
	char why[300];
	if (!run->t || !run->nsteps)
		return;
	run->keep_scratch = 0;
	if (cli_scratch_drop(run->t, o->timeout_s, why, sizeof(why)))
		act_result_warn(&run->res[run->nsteps - 1], "%s", why);
}

/* -v: what killed jeattach runs had left in the process, once, after the
 * first release (which removed what it could). */
static void narrate_leftovers(struct cli_run *run, const struct options *o)
{
	int found, removed, left;
	rcall_scratch_leftovers(run->t, &found, &removed, &left);
	if (!found || run->said_leftovers)
		return;
	run->said_leftovers = 1;
	narrate(o, run->pid, "%d scratch mapping(s) of jeattach runs killed earlier found: %d removed%s",
		found, removed,
		left ? "; the others left (their jeattach still runs, a call may still run on them, "
		       "or made from another pid namespace)" : "");
}

/* Does another hold follow seg soon (a wait of at most
 * RCALL_KEEP_ACROSS_US, then a hold; a series' next round)? Then the
 * scratch mapping stays for it (rcall_keep_scratch). */
static int hold_follows_soon(const struct plan *p, const struct plan_seg *seg)
{
	const struct plan_seg *end = p->segs + p->nsegs;
	const struct plan_seg *next = seg + 1 < end ? seg + 1 : p->repeat ? p->segs + p->repeat_seg : NULL;
	if (next && next->kind == PLAN_WAIT) {
		if (next->wait_us > RCALL_KEEP_ACROSS_US)
			return 0;
		next = next + 1 < end ? next + 1 : p->repeat ? p->segs + p->repeat_seg : NULL;
	}
	return next && next->kind == PLAN_HOLD;
}

enum ja_exit cli_run_segment(struct cli_run *run, const struct options *o,
			     const struct plan_seg *seg)
{
	struct target *t = run->t;
	if (run->done || seg->kind != PLAN_HOLD)
		return run->code;
	/* --timeout bounds each hold, the waits between them are the user's. */
	rcall_set_deadline(t, core_now_us() + (core_usec_t)(o->timeout_s * 1e6));
	run_held(run, o, seg);
	/* A per-thread pass follows at once, or another hold soon: it takes
	 * this one's scratch mapping over (the last removes it, or
	 * rcall_free). */
	run->keep_scratch = run->code == JA_EXIT_OK && hold_follows_soon(run->plan, seg) ?
				    RCALL_KEEP_ACROSS :
				    0;
	const int pass = run->code == JA_EXIT_OK && run->sess.pass_step >= 0 &&
			 act_session_pass_wanted(&run->sess);
	rcall_keep_scratch(t, pass ? RCALL_KEEP_NEXT : run->keep_scratch);
	/* Restore the target before anything is reported. */
	int e = rcall_release(t);
	rcall_keep_scratch(t, run->keep_scratch); /* the pass turns it on for its own holds */
	narrate_leftovers(run, o);
	if (e && run->code == JA_EXIT_OK)
		stage_error(run, o, JA_AT_RELEASE, e);
	narrate(o, run->pid, "released");
	for (int i = seg->first; i < seg->last; i++)
		act_after_release(t, &run->res[i]);
	/* A pass asked for by this hold's steps, one thread at a time. */
	if (run->code == JA_EXIT_OK)
		cli_each_pass(run, o);
	for (int i = seg->first; i < seg->last && run->code == JA_EXIT_OK; i++)
		if (act_finish(t, &run->plan->steps[i], &run->res[i]) != JA_EXIT_OK ||
		    cli_frag_write(run, o, i) != JA_EXIT_OK)
			fail(run, run->res[i].code, "%s", run->res[i].msg);
		else
			tell_finished(run, i);
	restore_if_left_on(run, o, seg);
	for (int i = seg->first; i < seg->last; i++) /* descriptors are not kept across waits */
		act_result_drop_dump(&run->res[i]);
	/* Whatever failed, if the process is gone that is the whole story
	 * (an exiting process loses its mappings, threads and /proc entries
	 * one by one, and each stage fails its own way). */
	char fate[300];
	if (run->code != JA_EXIT_OK && run->code != JA_EXIT_USAGE &&
	    (!target_settled_alive(t) || target_fate(t, fate, sizeof(fate)) == TARGET_EXECED)) {
		/* exec'd, killed by which signal, or exited with which status
		 * (target_fate.c): never "exited" while the pid lives on. */
		target_fate(t, fate, sizeof(fate));
		if (!strstr(run->msg, fate)) /* not told already */
			fail(run, JA_EXIT_GONE, "%s while jeattach worked on it%s", fate,
			     strncmp(fate, "the process replaced", 20) ? "" :
			     "; what jeattach did there went with the old program");
	}
	return run->code;
}

void cli_run_waited(struct cli_run *run, const struct plan_seg *seg, int64_t waited_us,
		    int interrupted)
{
	if (run->done)
		return;
	struct act_result *r = &run->res[seg->first];
	r->ran = 1;
	act_field_u64(r, "waited_ms", (uint64_t)(waited_us / 1000));
	act_field_bool(r, "interrupted", interrupted);
	run->sess.interrupted |= interrupted;
}

void cli_run_skip(struct cli_run *run, const struct plan_seg *seg, int sig)
{
	for (int i = seg->first; i < seg->last && !run->done; i++) {
		run->res[i].skipped = 1;
		run->skipped_by = sig;
	}
}

void cli_run_close(struct cli_run *run)
{
	for (int i = 0; i < run->nsteps; i++)
		act_result_free(&run->res[i]);
	free(run->res);
	run->res = NULL;
	free(run->held);
	run->held = NULL;
	run->nheld = run->held_cap = 0;
	if (!run->t)
		return;
	rproc_free(run->t);
	rcall_free(run->t);
	target_close(run->t);
	target_delete(run->t);
	run->t = NULL;
}

void cli_run_rewind(struct cli_run *run, int first)
{
	for (int i = first; i < run->nsteps; i++) {
		run->rounds_dumped += run->res[i].kind == ACT_DUMP && run->res[i].ran &&
				      run->res[i].code == JA_EXIT_OK;
		act_result_free(&run->res[i]);
		act_result_init(&run->res[i], run->plan->steps[i].kind);
	}
	if (run->told > first)
		run->told = first;
}
