/* SPDX-License-Identifier: BSD-2-Clause */
/* Activation that reaches every thread, also on jemalloc 5.2, where
 * prof.active=true alone is not seen by threads that already allocated
 * (act_version.c says why). What works there, read in 5.2.1's src/prof.c:
 *
 *   prof.reset (prof_reset) marks every thread's tdata expired
 *   (prof_tdata_expire); the next prof_tdata_get(tsd, true) a thread makes
 *   for itself, such as reading thread.prof.active (prof_thread_active_get),
 *   runs prof_tdata_reinit -> prof_tdata_init_impl ->
 *   prof_sample_threshold_update, which draws a fresh tsd
 *   bytes_until_sample for the calling thread (tsd_fetch()).
 *
 * So: prof.active=true, prof.reset, then the CLI borrows each thread in
 * turn and has it read thread.prof.active once (act_thread.c, cli_each.c).
 *
 * prof.reset discards every sample the process holds (expired tdatas are
 * left out of later dumps: prof_tdata_merge_iter skips them). jeattach
 * never discards them silently: it looks first (a dump kept by jeattach,
 * whose header carries the totals) and refuses while samples are held,
 * unless --discard-samples says to go ahead; --no-rearm activates the old
 * way (only threads created afterwards sample). */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "act.h"
#include "target_struct.h"

/* Write prof.active (the old value in *previous when asked). */
enum ja_exit act_write_active(struct target *t, struct act_result *r, const char *doing, int on,
			      int *previous)
{
	struct rctl_value newv = { .type = RCTL_BOOL, .u = (uint64_t)on }, oldv;
	int merr = 0;
	int e = rctl_write(t, "prof.active", &newv, previous ? &oldv : NULL, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, "prof.active", merr);
	if (previous)
		*previous = (int)oldv.u;
	return JA_EXIT_OK;
}

/* *held: does the process hold samples? Found by a dump kept in
 * jeattach's memory (act_dump: nothing touches the target's filesystem),
 * reading only the header. */
static enum ja_exit samples_held(struct target *t, struct act_result *r, const char *doing,
				 int *held)
{
	struct act_result d;
	act_result_init(&d, ACT_DUMP);
	enum ja_exit c = act_dump(t, &d);
	/* Any total not zero means samples that prof.reset would discard. */
	struct act_totals tot;
	*held = c || act_dump_totals(d.out.dump.fd, &tot)
			? -1
			: (tot.objs | tot.bytes | tot.accum_objs | tot.accum_bytes) != 0;
	if (c)
		act_fail(r, c,
			 "%s: cannot tell whether the process holds heap samples, which the "
			 "re-arm that jemalloc 5.2 needs (prof.reset) would discard: %s; run "
			 "with --discard-samples to re-arm anyway, or --no-rearm to activate "
			 "for new threads only",
			 doing, d.msg);
	else if (*held < 0)
		c = act_fail(r, JA_EXIT_INTERNAL,
			     "%s: the profile jemalloc wrote to check for samples has no t*: "
			     "totals line",
			     doing);
	act_result_free(&d);
	return c;
}

/* prof.reset at the current sampling rate (prof.reset takes the rate to
 * continue with, prof_reset_ctl in src/ctl.c). */
static enum ja_exit reset_keep_rate(struct target *t, struct act_result *r, const char *doing)
{
	struct rctl_value rate;
	int merr = 0;
	int e = rctl_read(t, "prof.lg_sample", &rate, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, "prof.lg_sample", merr);
	if ((e = rctl_write(t, "prof.reset", &rate, NULL, &merr)))
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, "prof.reset", merr);
	return JA_EXIT_OK;
}

/* Can thread.prof.name be set here? Not while opt.prof_sys_thread_name
 * (5.3.0+) is on: prof_thread_name_set returns ENOENT, jemalloc names the
 * threads itself. 4.x to 5.2 lack that option (ENOENT on reading it). */
static enum ja_exit names_settable(struct target *t, struct act_result *r, const char *doing,
				   int *ok)
{
	int sys;
	enum ja_exit c = act_read_flag(t, r, doing, "opt.prof_sys_thread_name", &sys);
	*ok = !c && !sys;
	return c;
}

/* The 5.2 path once prof.active was found off: check, activate, reset. */
static enum ja_exit activate_rearm(struct target *t, struct act_session *s, enum act_rearm mode,
				   struct act_result *r, const char *doing, int *previous)
{
	int held = 0, names;
	enum ja_exit c;
	if (mode != ACT_REARM_DISCARD && (c = samples_held(t, r, doing, &held)))
		return c;
	if (held)
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: on jemalloc 5.2 activation reaches threads that already "
				"allocated only after prof.reset, which would discard the heap "
				"samples this process holds; save them first (jeattach -p %d "
				"--dump FILE), then run again with --discard-samples, or use "
				"--no-rearm to activate for new threads only",
				doing, (int)t->pid);
	if ((c = names_settable(t, r, doing, &names)))
		return c;
	if ((c = act_write_active(t, r, doing, 1, previous)))
		return c;
	if ((c = reset_keep_rate(t, r, doing))) {
		/* Leave the target as found: profiling off again. */
		struct act_result undo;
		act_result_init(&undo, ACT_DEACTIVATE);
		act_write_active(t, &undo, doing, 0, NULL);
		act_result_free(&undo);
		return c;
	}
	s->pass_rearm = 1;
	s->pass_name = names;
	act_counters_learn(t, &s->counters);
	act_field_str(r, "rearm", "done");
	act_field_bool(r, "samples_discarded", mode == ACT_REARM_DISCARD);
	return JA_EXIT_OK;
}

enum ja_exit act_activate(struct target *t, struct act_session *s, enum act_rearm mode,
			  struct act_result *r, const char *doing, int *previous)
{
	struct act_release rel;
	int active = 0;
	/* Known by its version string, else by the controls it has: a 5.2
	 * that calls itself 0.0.0 is still a 5.2 (act_version.c). */
	int e = act_release_of(t, &rel);
	if (e)
		return act_transport_error(t, r, doing, e);
	int reach = rel.reach;
	act_field_str(r, "release", rel.by ? rel.range : NULL);
	act_field_str(r, "release_known_by", rel.by);
	enum ja_exit c = reach == 1 ? JA_EXIT_OK : act_read_flag(t, r, doing, "prof.active", &active);
	if (c)
		return c;
	/* Not known to reach every thread (5.2, or a release nothing tells):
	 * the re-arm, which works on every release, rather than an
	 * activation reported as a success that may never sample. */
	if (reach != 1 && !active && mode != ACT_REARM_OFF)
		return activate_rearm(t, s, mode, r, doing, previous);
	/* Activation alone: enough, or asked for, or nothing to change. */
	if ((c = act_write_active(t, r, doing, 1, previous)))
		return c;
	act_field_str(r, "rearm", reach == 1 ? "not_needed" : active ? "already_active" : "off");
	return JA_EXIT_OK;
}

enum ja_exit act_name_threads(struct target *t, struct act_session *s, struct act_result *r)
{
	const char *doing = "cannot name the threads";
	int ok;
	enum ja_exit c = act_need_prof(t, r, doing);
	if (!c)
		c = names_settable(t, r, doing, &ok);
	if (c)
		return c;
	if (!ok)
		return act_fail(r, JA_EXIT_MALLCTL,
				"%s: jemalloc names them itself here (opt.prof_sys_thread_name is "
				"on: thread.prof.name answers ENOENT); its profiles carry the "
				"threads' own names already",
				doing);
	s->pass_name = 1;
	act_counters_learn(t, &s->counters);
	return JA_EXIT_OK;
}
