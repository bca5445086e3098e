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
 * whether or not profiling is active. In both, activation alone works. */
#include "config.h"

#include <stdio.h>
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
