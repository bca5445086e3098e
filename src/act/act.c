/* SPDX-License-Identifier: BSD-2-Clause */
/* Action dispatch: which function runs an action, during and after the hold. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "act.h"

/* A dump while prof.active is false repeats old samples: said once per
 * run, not once per dump of a series (--every). */
static enum je_exit dump_and_warn(struct target *t, struct act_session *s, const struct act *a,
				  struct act_result *r)
{
	r->dump.max = a->max_bytes;
	enum je_exit c = act_dump(t, r);
	if (c || r->dump.prof_active || s->warned_inactive)
		return c;
	snprintf(r->warning, sizeof(r->warning),
		 "profiling is off: this profile holds only samples from before; --activate or "
		 "--for");
	s->warned_inactive = 1;
	return c;
}

enum je_exit act_run(struct target *t, struct act_session *s, const struct act *a,
		     struct act_result *r)
{
	r->ran = 1;
	switch (a->kind) {
	case ACT_STATS:
		return act_stats(t, r);
	case ACT_STATS_FULL:
		return act_stats_full(t, a->arg != NULL, r); /* arg "json" */
	case ACT_RESET:
		return act_reset(t, a->arg, r);
	case ACT_GDUMP:
		return act_set_bool(t, "prof.gdump", a->arg, r);
	case ACT_THREAD_ACTIVE_INIT:
		return act_set_bool(t, "prof.thread_active_init", a->arg, r);
	case ACT_PURGE:
		return act_arena_op(t, "purge", r);
	case ACT_DECAY:
		return act_arena_op(t, "decay", r);
	case ACT_FOR_BEGIN:
		return act_for_begin(t, s, a, r);
	case ACT_FOR_END:
		return act_for_end(t, s, r);
	case ACT_WAIT:
		return act_fail(r, JE_EXIT_INTERNAL, "a wait is not run under a hold");
	case ACT_STATUS:
		return act_status(t, r);
	case ACT_ACTIVATE:
		return act_set_active(t, s, a, r, 1);
	case ACT_DEACTIVATE:
		return act_set_active(t, s, a, r, 0);
	case ACT_DUMP:
		return dump_and_warn(t, s, a, r);
	case ACT_GET:
		return act_get(t, a->arg, r);
	case ACT_SET:
		return act_set(t, a->arg, r);
	case ACT_NAME_THREADS:
		return act_name_threads(t, s, r);
	case ACT_FRAG:
		return act_frag(t, r);
	case ACT_RECENT_BEGIN:
		return act_recent_begin(t, s, a, r);
	case ACT_RECENT_DUMP:
		return act_recent_dump(t, r);
	case ACT_RECENT_END:
		return act_recent_end(t, s, r);
	}
	return act_fail(r, JE_EXIT_INTERNAL, "unknown action");
}

enum je_exit act_finish(struct target *t, const struct act *a, struct act_result *r)
{
	if (!r->ran || r->code != JE_EXIT_OK)
		return r->code;
	if (a->kind == ACT_DUMP || (a->kind == ACT_FOR_BEGIN && a->baseline))
		return act_dump_finish(t, a, r);
	if (a->kind == ACT_FRAG)
		return act_frag_finish(t, a, r);
	if (a->kind == ACT_RECENT_DUMP)
		return act_recent_finish(t, a, r);
	return r->code;
}
