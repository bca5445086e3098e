/* SPDX-License-Identifier: BSD-2-Clause */
/* What a jemalloc version means for jeattach. Only one fact so far, read in
 * jemalloc's sources (doc/jemalloc-versions.md has the whole table):
 *
 * 5.2.0 and 5.2.1 added a malloc fast path (src/jemalloc.c, malloc's
 * "if (config_prof)" block) that, when a thread's tsd bytes_until_sample
 * runs out while prof.active is false, sets it to SSIZE_MAX: "If
 * prof_active is set to true, bytes_until_sample will be reset". Nothing
 * resets it: prof_active_set (src/prof.c) only stores the flag, and the
 * only writers of the counter are prof_sample_threshold_update, called for
 * the calling thread when its tdata is made or its counter runs out. So a
 * thread that allocated while profiling was off never samples again.
 *
 * 4.x, 5.0 and 5.1 keep the counter in the thread's tdata and leave it
 * alone while prof.active is false (prof_alloc_prep tests prof_active
 * before prof_sample_accum_update). 5.3.0 and later draw the wait from the
 * thread event machinery (te_prof_sample_event, prof_sample_new_event_wait)
 * whether or not profiling is active. In both, activation alone works.
 *
 * The version string is jemalloc's `git describe` at build time; a build
 * from a tree without tags or a VERSION file (vendored copies) says
 * "0.0.0-0-g0..." or "0.0.0", and one can say anything. Then the release
 * is told by the controls it has (read in jemalloc's src/ctl.c at each
 * tag; a control is looked up by name before its handler runs, and an
 * absent one answers ENOENT from ctl_lookup):
 *
 *   prof.log_start            5.2.0 and later (not in 5.1.0); write-only:
 *                             a read gets EPERM from WRITEONLY() before
 *                             anything is done (5.3.0+: ENOENT without
 *                             opt.prof, which activation needs anyway)
 *   opt.prof_stats            5.3.0 and later (read-only bool)
 *   opt.prof_sys_thread_name  5.3.0 and later (read-only bool)
 *
 * (experimental.hooks.install marks 5.2.0-5.3.x but left jemalloc's dev
 * branch in May 2026; stats.zero_reallocs, 5.3.0+, answers ENOENT without
 * config.stats: neither is used.) So: either 5.3 control present, 5.3 or
 * later; else prof.log_start present, 5.2.0 or 5.2.1; else none, 4.x to
 * 5.1. Each is probed by a read (rctl_probe), which changes nothing. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "act.h"

int act_activation_reaches_all(const char *version)
{
	int major, minor;
	/* "5.2.1-0-gea6b3e97...": jemalloc's git describe. */
	if (!version || sscanf(version, "%d.%d", &major, &minor) != 2)
		return -1;
	/* A build from a git tree without tags calls itself 0.0.0. */
	if (major == 0)
		return -1;
	return !(major == 5 && minor == 2);
}

int act_activation_reaches_by_controls(int prof_log_start, int opt_prof_stats,
				       int opt_prof_sys_thread_name, const char **range)
{
	if (opt_prof_stats || opt_prof_sys_thread_name) {
		*range = "5.3";
		return 1;
	}
	if (prof_log_start) {
		*range = "5.2";
		return 0;
	}
	*range = "4.x-5.1";
	return 1;
}

int act_release_of(struct target *t, struct act_release *rel)
{
	struct rctl_value ver;
	int merr = 0;
	int e = rctl_read(t, "version", &ver, &merr);
	return e ? e : act_release_from(t, &ver, merr, rel);
}

int act_release_from(struct target *t, const struct rctl_value *ver, int merr,
		     struct act_release *rel)
{
	int e, major, minor;
	memset(rel, 0, sizeof(*rel));
	if (!merr)
		snprintf(rel->version, sizeof(rel->version), "%.63s", ver->s);
	rel->reach = act_activation_reaches_all(merr ? NULL : ver->s);
	if (rel->reach >= 0 && sscanf(ver->s, "%d.%d", &major, &minor) == 2) {
		snprintf(rel->range, sizeof(rel->range), "%d.%d", major, minor);
		rel->by = "version";
		return 0;
	}
	/* The string says nothing: ask the controls. Without config.prof
	 * (profiling not built in) some answer ENOENT whatever the release,
	 * and nothing can be activated anyway: stay unknown. */
	int prof = 0, log_start, stats, sysname;
	const char *range;
	struct rctl_value v;
	if ((e = rctl_read(t, "config.prof", &v, &merr)))
		return e;
	prof = !merr && v.u;
	if (!prof)
		return 0;
	if ((e = rctl_probe(t, "prof.log_start", &log_start)) ||
	    (e = rctl_probe(t, "opt.prof_stats", &stats)) ||
	    (e = rctl_probe(t, "opt.prof_sys_thread_name", &sysname)))
		return e;
	rel->reach = act_activation_reaches_by_controls(log_start, stats, sysname, &range);
	snprintf(rel->range, sizeof(rel->range), "%s", range);
	rel->by = "controls";
	return 0;
}
