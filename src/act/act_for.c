/* SPDX-License-Identifier: BSD-2-Clause */
/* --for DURATION: remember prof.active, activate, let the target go for the
 * duration (no thread held, no tracer attached), then dump and put
 * prof.active back. The two halves run in two holds; act_session carries
 * the remembered value between them. */
#include "config.h"

#include "act.h"

/* After a failure past the activation: put prof.active back as found, in
 * this same hold (the end of --for runs only after a wait that will not
 * come). r keeps the failure that got here. */
static enum ja_exit undo_activation(struct target *t, int previous, enum ja_exit c)
{
	if (!previous) {
		struct act_result undo;
		act_result_init(&undo, ACT_FOR_END);
		act_write_active(t, &undo, "cannot put prof.active back", 0, NULL);
		act_result_free(&undo);
	}
	return c;
}

/* --baseline, after the activation (the jemalloc wiki's workflow:
 * activate, baseline, sample, dump, compare), so it holds what the final
 * dump will be compared with; on jemalloc 5.2 the activation's prof.reset
 * has dropped the older samples, and the baseline must not hold them. A
 * baseline without a single sample compares with nothing: refused. */
static enum ja_exit baseline(struct target *t, struct act_result *r, const char *doing,
			     int previous)
{
	struct act_totals tot;
	enum ja_exit c = act_dump(t, r);
	if (c)
		return c;
	if (act_dump_totals(r->out.dump.fd, &tot) || tot.objs || tot.accum_objs)
		return JA_EXIT_OK;
	if (previous)
		return act_fail(r, JA_EXIT_USAGE,
				"%s: the baseline would be empty: profiling is on but jemalloc holds "
				"no live sample yet (what was sampled has been freed); drop "
				"--baseline, or let it sample longer first; prof.active was left on",
				doing);
	return act_fail(r, JA_EXIT_USAGE,
			"%s: the baseline would be empty: profiling was off and jemalloc "
			"holds no sample from before (it samples only while prof.active "
			"is true); drop --baseline (the profile of --for then holds only "
			"what was allocated during it), or --activate, let it sample, then "
			"--for --baseline; prof.active was put back",
			doing);
}

enum ja_exit act_for_begin(struct target *t, struct act_session *s, const struct act *a,
			   struct act_result *r)
{
	const char *doing = "cannot start a timed profile";
	enum ja_exit c = act_need_prof(t, r, doing);
	if (c)
		return c;
	int previous;
	if ((c = act_activate(t, s, a->rearm, r, doing, &previous)))
		return c;
	if (a->baseline && (c = baseline(t, r, doing, previous))) {
		s->pass_rearm = s->pass_name = 0; /* nothing to re-arm: off again */
		return undo_activation(t, previous, c);
	}
	s->prev_active = previous;
	act_field_bool(r, "previous", previous);
	act_field_bool(r, "prof_active", 1);
	act_field_bool(r, "already_active", previous);
	return JA_EXIT_OK;
}

enum ja_exit act_for_end(struct target *t, struct act_session *s, struct act_result *r)
{
	const char *doing = "cannot end a timed profile";
	if (s->prev_active < 0)
		return act_fail(r, JA_EXIT_INTERNAL, "%s: its start did not run", doing);
	act_field_bool(r, "interrupted", s->interrupted);
	if (s->prev_active) {
		/* It was on before --for: leave it as found, on. */
		act_field_bool(r, "prof_active", 1);
		return JA_EXIT_OK;
	}
	enum ja_exit c = act_write_active(t, r, doing, 0, NULL);
	if (c)
		return c;
	act_field_bool(r, "prof_active", 0);
	return JA_EXIT_OK;
}
