/* SPDX-License-Identifier: BSD-2-Clause */
/* --for DURATION: remember prof.active, activate, let the target go for the
 * duration (no thread held, no tracer attached), then dump and put
 * prof.active back. The two halves run in two holds; act_session carries
 * the remembered value between them. */
#include "config.h"

#include "act.h"

enum je_exit act_for_begin(struct target *t, struct act_session *s, const struct act *a,
			   struct act_result *r)
{
	const char *doing = "cannot start a timed profile";
	enum je_exit c = act_need_prof(t, r, doing);
	if (c)
		return c;
	/* jemalloc's recommended workflow (jemalloc(3), opt.prof): dump,
	 * profile a while, dump again, compare. The baseline is dumped before
	 * sampling starts, so the difference is what happened meanwhile. */
	if (a->baseline && (c = act_dump(t, r)))
		return c;
	int previous;
	if ((c = act_activate(t, s, a->rearm, r, doing, &previous)))
		return c;
	s->prev_active = previous;
	act_field_bool(r, "previous", previous);
	act_field_bool(r, "prof_active", 1);
	act_field_bool(r, "already_active", previous);
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
	enum je_exit c = act_write_active(t, r, doing, 0, NULL);
	if (c)
		return c;
	act_field_bool(r, "prof_active", 0);
	return JE_EXIT_OK;
}
