/* SPDX-License-Identifier: BSD-2-Clause */
/* --activate, --deactivate, --get NAME, --set NAME=VALUE. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "act.h"

/* mallctl's own error, explained for the control concerned. */
static enum je_exit mallctl_error(struct target *t, struct act_result *r, const char *doing,
				  const char *name, int merr)
{
	switch (merr) {
	case ENOENT:
		return act_fail(r, JE_EXIT_MALLCTL,
				"%s: this jemalloc has no control named %s (ENOENT); see "
				"'jeattach -p %d --status' for its version",
				doing, name, (int)t->pid);
	case EPERM:
		return act_fail(r, JE_EXIT_MALLCTL, "%s: %s is read-only (EPERM)", doing, name);
	case EINVAL:
		return act_fail(r, JE_EXIT_MALLCTL,
				"%s: jemalloc rejected the value or its size for %s (EINVAL)", doing,
				name);
	case EAGAIN:
		return act_fail(r, JE_EXIT_MALLCTL, "%s: %s: jemalloc is busy (EAGAIN); retry",
				doing, name);
	default:
		return act_fail(r, JE_EXIT_MALLCTL, "%s: mallctl(\"%s\") returned %d (%s)", doing,
				name, merr, strerror(merr));
	}
}

enum je_exit act_set_active(struct target *t, struct act_result *r, int on)
{
	const char *doing = on ? "cannot activate profiling" : "cannot deactivate profiling";
	enum je_exit c = act_need_prof(t, r, doing);
	if (c)
		return c;
	struct rctl_value newv = { .type = RCTL_BOOL, .u = (uint64_t)on }, oldv;
	int merr = 0;
	int e = rctl_write(t, "prof.active", &newv, &oldv, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr)
		return mallctl_error(t, r, doing, "prof.active", merr);
	act_field_bool(r, "previous", (int)oldv.u);
	act_field_bool(r, "prof_active", on);
	return JE_EXIT_OK;
}

enum je_exit act_get(struct target *t, const char *name, struct act_result *r)
{
	struct rctl_value v;
	int merr = 0;
	int e = rctl_read(t, name, &v, &merr);
	if (e)
		return act_transport_error(t, r, "cannot read a control", e);
	if (merr)
		return mallctl_error(t, r, "cannot read a control", name, merr);
	act_field_str(r, "name", name);
	act_field_value(r, "value", &v);
	return JE_EXIT_OK;
}

enum je_exit act_set(struct target *t, const char *assignment, struct act_result *r)
{
	char name[256];
	const char *eq = strchr(assignment, '=');
	enum rctl_type type;
	enum rctl_access access;
	struct rctl_value newv, oldv;
	/* The options layer validated all of this before attaching; checked
	 * again so that this function stands on its own. */
	if (!eq || (size_t)(eq - assignment) >= sizeof(name))
		return act_fail(r, JE_EXIT_USAGE, "bad --set %s: expected NAME=VALUE", assignment);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - assignment), assignment);
	if (rctl_lookup(name, &type, &access) || !(access & RCTL_W) ||
	    rctl_parse(type, eq + 1, &newv))
		return act_fail(r, JE_EXIT_USAGE, "bad --set %s", assignment);
	int merr = 0;
	int e = type == RCTL_VOID ? rctl_exec(t, name, &merr)
				  : rctl_write(t, name, &newv, (access & RCTL_R) ? &oldv : NULL, &merr);
	if (e)
		return act_transport_error(t, r, "cannot set a control", e);
	if (merr)
		return mallctl_error(t, r, "cannot set a control", name, merr);
	act_field_str(r, "name", name);
	if (type != RCTL_VOID && (access & RCTL_R))
		act_field_value(r, "previous", &oldv);
	if (type != RCTL_VOID)
		act_field_value(r, "value", &newv);
	return JE_EXIT_OK;
}
