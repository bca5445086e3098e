/* SPDX-License-Identifier: BSD-2-Clause */
/* --top's reads. Aggregate figures need a hold: jemalloc's stats.* are a
 * snapshot it refreshes only when "epoch" is written (ctl_refresh, under
 * ctl_mtx), and only a thread of the process can write it. So one refresh
 * is one hold: epoch, then the six figures, as --stats reads them.
 *
 * Everything else is read with no stop at all, from addresses jemalloc
 * hands out once:
 * - each thread's allocated / deallocated byte counters, which the
 *   allocation and free fast paths bump (thread_alloc_event /
 *   thread_dalloc_event in 5.3): located for every thread from the held
 *   thread's own (act_counters.c), learnt in the first hold.
 * - experimental.arenas.<i>.pactivep (5.2.1+): the arena's atomic active
 *   page count (pa_shard's nactive in 5.3). Arenas are never freed unless
 *   the program destroys one (arena.<i>.destroy), which an automatic arena
 *   never is. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "act_top.h"
#include "errors.h"

const char *const act_top_stat_names[ACT_TOP_NSTATS] = {
	"allocated", "active", "resident", "mapped", "retained", "metadata",
};

/* Once per run: statistics built in, the page size, each arena's counter. */
static enum ja_exit learn(struct target *t, struct act_result *r, struct act_top_stats *s,
			  const char *doing)
{
	struct rctl_value v;
	int merr = 0, e;
	enum ja_exit c = act_need_stats(t, r, doing);
	if (c)
		return c;
	const char *ctls[] = { "arenas.page", "arenas.narenas" };
	uint64_t got[2];
	for (int i = 0; i < 2; i++) {
		if ((e = rctl_read(t, ctls[i], &v, &merr)))
			return act_transport_error(t, r, doing, e);
		if (merr)
			return act_mallctl_error(t, r, doing, ctls[i], merr);
		got[i] = v.u;
	}
	s->page = got[0];
	if (!rctl_read(t, "version", &v, &merr) && !merr && !v.is_null)
		snprintf(s->version, sizeof(s->version), "%.63s", v.s);
	s->narenas = got[1] < ACT_TOP_MAX_ARENAS ? (unsigned)got[1] : ACT_TOP_MAX_ARENAS;
	for (unsigned i = 0; i < s->narenas; i++) {
		char name[64];
		snprintf(name, sizeof(name), "experimental.arenas.%u.pactivep", i);
		if ((e = rctl_read(t, name, &v, &merr)))
			return act_transport_error(t, r, doing, e);
		/* ENOENT: an arena not initialized yet, or no such control
		 * (before 5.2.1): no line for it. */
		s->pactivep[i] = merr ? 0 : v.u;
	}
	act_counters_learn(t, &s->counters); /* not there: no per-thread figures */
	s->known = 1;
	return JA_EXIT_OK;
}

enum ja_exit act_top_stats(struct target *t, struct act_result *r, struct act_top_stats *s)
{
	const char *doing = "cannot read statistics";
	enum ja_exit c = s->known ? JA_EXIT_OK : learn(t, r, s, doing);
	if (c)
		return c;
	struct rctl_value v;
	int merr = 0, e;
	if ((c = act_epoch(t, r, doing)))
		return c;
	for (int i = 0; i < ACT_TOP_NSTATS; i++) {
		char name[32];
		snprintf(name, sizeof(name), "stats.%s", act_top_stat_names[i]);
		if ((e = rctl_read(t, name, &v, &merr)))
			return act_transport_error(t, r, doing, e);
		if (merr)
			return act_mallctl_error(t, r, doing, name, merr);
		s->v[i] = v.u;
	}
	return JA_EXIT_OK;
}
