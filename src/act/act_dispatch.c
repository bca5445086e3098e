/* SPDX-License-Identifier: BSD-2-Clause */
/* What runs each action: its function under the hold and the one that
 * finishes it after the release, a row per action beside act_rows.c's
 * (which the actions themselves use, so it sits a level below this). */
#include "config.h"

#include <stdio.h>
#include "act.h"

/* A dump while prof.active is false repeats old samples: said once per
 * run, not once per dump of a series (--every). */
static enum ja_exit run_dump(struct target *t, struct act_session *s, const struct act *a,
			     struct act_result *r)
{
	r->out.dump.max = a->max_bytes;
	enum ja_exit c = act_dump(t, r);
	if (c || r->out.dump.prof_active || s->warned_inactive)
		return c;
	snprintf(r->warning, sizeof(r->warning),
		 "profiling is off: this profile holds only samples from before; --activate or "
		 "--for");
	s->warned_inactive = 1;
	return c;
}

/* The rows' adapters: each action's own function with the arguments it
 * takes from the step (a: the step, s: what the run's holds share). */
#define RUN(name, call)                                                                   \
	static enum ja_exit name(struct target *t, struct act_session *s, const struct act *a, \
				 struct act_result *r)                                         \
	{                                                                                 \
		(void)s, (void)a;                                                         \
		return call;                                                              \
	}
RUN(run_status, act_status(t, r))
RUN(run_activate, act_set_active(t, s, a, r, 1))
RUN(run_deactivate, act_set_active(t, s, a, r, 0))
RUN(run_get, act_get(t, a->arg, r))
RUN(run_set, act_set(t, s, a->arg, r))
RUN(run_stats, act_stats(t, r))
RUN(run_stats_full, act_stats_full(t, a->arg != NULL, r)) /* arg "json": its JSON form */
RUN(run_reset, act_reset(t, a->arg, r))
RUN(run_gdump, act_set_bool(t, s, "prof.gdump", a->arg, r))
RUN(run_thread_active_init, act_set_bool(t, s, "prof.thread_active_init", a->arg, r))
RUN(run_purge, act_arena_op(t, "purge", r))
RUN(run_decay, act_arena_op(t, "decay", r))
RUN(run_for_end, act_for_end(t, s, r))
RUN(run_name_threads, act_name_threads(t, s, r))
RUN(run_frag, act_frag(t, r))
RUN(run_recent_dump, act_recent_dump(t, r))
RUN(run_recent_end, act_recent_end(t, s, r))
RUN(run_sample_end, act_sample_end(t, s, r))
RUN(run_sample_snapshot, act_sample_snapshot(t, s, r))
#undef RUN

/* How an action is run. */
struct act_ops {
	/* Under the hold; NULL: not run under one (a wait, run by the CLI). */
	enum ja_exit (*run)(struct target *t, struct act_session *s, const struct act *a,
			    struct act_result *r);
	/* After the release (writing the file its step names), or NULL. */
	enum ja_exit (*finish)(struct target *t, const struct act *a, struct act_result *r);
	/* Before the hold: what the action reports that needs no thread
	 * (reads of /proc), so that its stop is its calls alone; or NULL. */
	void (*before)(struct target *t, struct act_result *r);
};

static const struct act_ops ops[] = {
	[ACT_STATUS] = { run_status, NULL, act_status_before },
	[ACT_ACTIVATE] = { run_activate, NULL },
	[ACT_DEACTIVATE] = { run_deactivate, NULL },
	[ACT_DUMP] = { run_dump, act_dump_finish },
	[ACT_GET] = { run_get, NULL },
	[ACT_SET] = { run_set, NULL },
	[ACT_STATS] = { run_stats, NULL },
	[ACT_STATS_FULL] = { run_stats_full, NULL },
	[ACT_RESET] = { run_reset, NULL },
	[ACT_GDUMP] = { run_gdump, NULL },
	[ACT_THREAD_ACTIVE_INIT] = { run_thread_active_init, NULL },
	[ACT_PURGE] = { run_purge, NULL },
	[ACT_DECAY] = { run_decay, NULL },
	/* Finished only with --baseline, which makes it write a profile. */
	[ACT_FOR_BEGIN] = { act_for_begin, act_dump_finish },
	[ACT_FOR_END] = { run_for_end, NULL },
	/* Run by the command line, with no thread held and no tracer. */
	[ACT_WAIT] = { NULL, NULL },
	[ACT_NAME_THREADS] = { run_name_threads, NULL },
	[ACT_FRAG] = { run_frag, act_frag_finish },
	[ACT_RECENT_BEGIN] = { act_recent_begin, NULL },
	[ACT_RECENT_DUMP] = { run_recent_dump, act_recent_finish },
	[ACT_RECENT_END] = { run_recent_end, NULL },
	[ACT_SAMPLE_BEGIN] = { act_sample_begin, NULL, act_sample_before },
	[ACT_SAMPLE_END] = { run_sample_end, act_sample_finish },
	[ACT_SAMPLE_SNAPSHOT] = { run_sample_snapshot, act_sample_finish },
};

void act_before(struct target *t, const struct act *a, struct act_result *r)
{
	if (ops[a->kind].before)
		ops[a->kind].before(t, r);
}

enum ja_exit act_run(struct target *t, struct act_session *s, const struct act *a,
		     struct act_result *r)
{
	r->ran = 1;
	if (!ops[a->kind].run)
		return act_fail(r, JA_EXIT_INTERNAL, "a %s is not run under a hold",
				act_name(a->kind));
	return ops[a->kind].run(t, s, a, r);
}

void act_after_release(struct target *t, struct act_result *r)
{
	if (r->ran && act_result_out_kind(r) == ACT_RES_DUMP)
		act_dump_children(t, r);
}

enum ja_exit act_finish(struct target *t, const struct act *a, struct act_result *r)
{
	if (!r->ran || r->code != JA_EXIT_OK)
		return r->code;
	/* --for's beginning writes a file only with --baseline. */
	if (!ops[a->kind].finish || (a->kind == ACT_FOR_BEGIN && !a->baseline))
		return r->code;
	return ops[a->kind].finish(t, a, r);
}
