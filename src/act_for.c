/* SPDX-License-Identifier: BSD-2-Clause */
/* --for DURATION: remember prof.active, activate, let the target go for the
 * duration (no thread held, no tracer attached), then dump and put
 * prof.active back. The two halves run in two holds; act_session carries
 * the remembered value between them. */
#include "config.h"

#include "act.h"

enum je_exit act_for_begin(struct target *t, struct act_session *s, int baseline,
			   struct act_result *r)
{
	const char *doing = "cannot start a timed profile";
	enum je_exit c = act_need_prof(t, r, doing);
	if (c)
		return c;
	/* jemalloc's recommended workflow (jemalloc(3), opt.prof): dump,
	 * profile a while, dump again, compare. The baseline is dumped before
	 * sampling starts, so the difference is what happened meanwhile. */
	if (baseline && (c = act_dump(t, r)))
		return c;
	struct rctl_value on = { .type = RCTL_BOOL, .u = 1 }, old;
	int merr = 0;
	int e = rctl_write(t, "prof.active", &on, &old, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, "prof.active", merr);
	s->prev_active = (int)old.u;
	act_field_bool(r, "previous", (int)old.u);
	act_field_bool(r, "prof_active", 1);
	act_field_bool(r, "already_active", (int)old.u);
	return JE_EXIT_OK;
}

enum je_exit act_for_end(struct target *t, struct act_session *s, struct act_result *r)
{
	const char *doing = "cannot end a timed profile";
	if (s->prev_active < 0)
		return act_fail(r, JE_EXIT_INTERNAL, "%s: its start did not run", doing);
	act_field_bool(r, "interrupted", s->interrupted);
	if (s->prev_active) {
		/* It was on before --for: leave it as found, on. */
		act_field_bool(r, "prof_active", 1);
		return JE_EXIT_OK;
	}
	struct rctl_value off = { .type = RCTL_BOOL, .u = 0 };
	int merr = 0;
	int e = rctl_write(t, "prof.active", &off, NULL, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, "prof.active", merr);
	act_field_bool(r, "prof_active", 0);
	return JE_EXIT_OK;
}
