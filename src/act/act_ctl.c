/* SPDX-License-Identifier: BSD-2-Clause */
/* --activate, --deactivate, --get NAME, --set NAME=VALUE. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "act.h"

enum ja_exit act_set_active(struct target *t, struct act_session *s, const struct act *a,
			    struct act_result *r, int on)
{
	const char *doing = on ? "cannot activate profiling" : "cannot deactivate profiling";
	int previous;
	enum ja_exit c = act_need_prof(t, r, doing);
	if (!c)
		c = on ? act_activate(t, s, a->rearm, r, doing, &previous)
		       : act_write_active(t, r, doing, on, &previous);
	if (c)
		return c;
	act_field_bool(r, "previous", previous);
	act_field_bool(r, "prof_active", on);
	return JA_EXIT_OK;
}

enum ja_exit act_get(struct target *t, const char *name, struct act_result *r)
{
	struct rctl_value v;
	int merr = 0;
	int e = rctl_read(t, name, &v, &merr);
	if (e)
		return act_transport_error(t, r, "cannot read a control", e);
	if (merr)
		return act_mallctl_error(t, r, "cannot read a control", name, merr);
	act_field_str(r, "name", name);
	act_field_value(r, "value", &v);
	return JA_EXIT_OK;
}

enum ja_exit act_set(struct target *t, struct act_session *s, const char *assignment,
		     struct act_result *r)
{
	char name[256];
	const char *eq = strchr(assignment, '=');
	enum rctl_type type;
	enum rctl_access access;
	struct rctl_value newv, oldv;
	/* The options layer validated all of this before attaching; checked
	 * again so that this function stands on its own. */
	if (!eq || (size_t)(eq - assignment) >= sizeof(name))
		return act_fail(r, JA_EXIT_USAGE, "bad --set %s: expected NAME=VALUE", assignment);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - assignment), assignment);
	if (rctl_lookup(name, &type, &access) || !(access & RCTL_W) ||
	    rctl_parse(type, eq + 1, &newv))
		return act_fail(r, JA_EXIT_USAGE, "bad --set %s", assignment);
	enum ja_exit c;
	if (!strcmp(name, "prof.gdump") && newv.u && (c = act_files_gdump(t, s, r, "cannot set a control")))
		return c;
	int merr = 0;
	int e = type == RCTL_VOID ? rctl_exec(t, name, &merr)
				  : rctl_write(t, name, &newv, (access & RCTL_R) ? &oldv : NULL, &merr);
	if (e)
		return act_transport_error(t, r, "cannot set a control", e);
	if (merr)
		return act_mallctl_error(t, r, "cannot set a control", name, merr);
	act_field_str(r, "name", name);
	if (type != RCTL_VOID && (access & RCTL_R))
		act_field_value(r, "previous", &oldv);
	if (type != RCTL_VOID)
		act_field_value(r, "value", &newv);
	if (!strcmp(name, "prof.prefix"))
		act_files_prefix_set(t, s, newv.s, r);
	else if (!strcmp(name, "prof.dump") && !newv.is_null)
		act_files_dump(t, newv.s, r);
	return JA_EXIT_OK;
}

/* --gdump=on|off, --thread-active-init=on|off: a bool control with its old value. */
enum ja_exit act_set_bool(struct target *t, struct act_session *s, const char *ctl,
			  const char *onoff, struct act_result *r)
{
	char doing[96];
	snprintf(doing, sizeof(doing), "cannot set %s", ctl);
	struct rctl_value newv, oldv;
	if (rctl_parse(RCTL_BOOL, onoff, &newv))
		return act_fail(r, JA_EXIT_USAGE, "%s: '%s' is not on or off", doing, onoff);
	enum ja_exit c = act_need_prof(t, r, doing);
	if (c)
		return c;
	if (!strcmp(ctl, "prof.gdump") && newv.u && (c = act_files_gdump(t, s, r, doing)))
		return c;
	int merr = 0;
	int e = rctl_write(t, ctl, &newv, &oldv, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, ctl, merr);
	act_field_str(r, "name", ctl);
	act_field_bool(r, "previous", (int)oldv.u);
	act_field_bool(r, "value", (int)newv.u);
	return JA_EXIT_OK;
}

/* --reset[=LG_SAMPLE]: prof.reset drops every sample; optionally a new
 * sampling rate (jemalloc clamps it to 63). */
enum ja_exit act_reset(struct target *t, const char *lg_sample, struct act_result *r)
{
	const char *doing = "cannot reset the profile";
	enum ja_exit c = act_need_prof(t, r, doing);
	if (c)
		return c;
	struct rctl_value cur, newv;
	int merr = 0, e;
	if (lg_sample) {
		if (rctl_parse(RCTL_SIZE, lg_sample, &newv))
			return act_fail(r, JA_EXIT_USAGE, "%s: '%s' is not a number", doing, lg_sample);
	} else {
		/* prof.reset takes the rate to continue with: keep the current one. */
		if ((e = rctl_read(t, "prof.lg_sample", &cur, &merr)))
			return act_transport_error(t, r, doing, e);
		if (merr)
			return act_mallctl_error(t, r, doing, "prof.lg_sample", merr);
		newv = cur;
	}
	if ((e = rctl_write(t, "prof.reset", &newv, NULL, &merr)))
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, "prof.reset", merr);
	if ((e = act_read_field(t, r, "prof_lg_sample", "prof.lg_sample")))
		return act_transport_error(t, r, doing, e);
	return JA_EXIT_OK;
}

/* Read stats.resident after refreshing jemalloc's statistics cache. */
static int resident_now(struct target *t, struct rctl_value *v, int *merr)
{
	struct rctl_value one = { .type = RCTL_U64, .u = 1 };
	int e = rctl_write(t, "epoch", &one, NULL, merr);
	if (e || *merr)
		return e;
	return rctl_read(t, "stats.resident", v, merr);
}

/* --purge / --decay: arena.<MALLCTL_ARENAS_ALL>.purge|decay (4096 = all
 * arenas, jemalloc's MALLCTL_ARENAS_ALL), with resident bytes before and
 * after when jemalloc keeps statistics. */
enum ja_exit act_arena_op(struct target *t, const char *op, struct act_result *r)
{
	char doing[64], ctl[64];
	snprintf(doing, sizeof(doing), "cannot %s the arenas", op);
	snprintf(ctl, sizeof(ctl), "arena.4096.%s", op);
	struct rctl_value before, after;
	int merr = 0, have_stats, e;
	if ((e = resident_now(t, &before, &merr)))
		return act_transport_error(t, r, doing, e);
	have_stats = !merr;
	if (!have_stats)
		return act_fail(r, JA_EXIT_MALLCTL,
				"%s: this jemalloc keeps no statistics (built without "
				"--enable-stats), so resident bytes cannot be reported; purge without "
				"the report with --set %s=",
				doing, ctl);
	if ((e = rctl_exec(t, ctl, &merr)))
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, ctl, merr);
	if ((e = resident_now(t, &after, &merr)))
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, "stats.resident", merr);
	act_field_bytes(r, "resident_before", before.u);
	act_field_bytes(r, "resident_after", after.u);
	return JA_EXIT_OK;
}
