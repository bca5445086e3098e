/* SPDX-License-Identifier: BSD-2-Clause */
/* One thread of the per-thread pass (cli_each.c), under a hold of that
 * thread: the profiling mallctls that only the thread itself can make.
 *
 * Re-arm (jemalloc 5.2, after prof.reset): reading thread.prof.active runs
 * prof_tdata_get(tsd, true) for the calling thread, which re-creates its
 * expired tdata and draws its sample threshold (prof_tdata_reinit ->
 * prof_tdata_init_impl -> prof_sample_threshold_update, src/prof.c).
 *
 * Name: thread.prof.name, which jemalloc writes after the thread's counts
 * in heap profiles ("  t3: 1: 1024 [0: 0] name", prof_tdata_dump_iter).
 * 4.0 to dev have it; it must be the calling thread's. A name the program
 * set itself is kept: only threads without one are named, "comm/TID"
 * from /proc, so a profile's thread uid maps to an OS thread. jemalloc
 * accepts only isgraph() and isblank() bytes (prof_thread_name_set: EFAULT
 * otherwise, EINVAL on dev), and dev keeps 15 of them
 * (PROF_THREAD_NAME_MAX_LEN).
 *
 * Settle (--sample): one mallctl, any, after jemalloc's hooks were
 * installed or removed (act.h pass_settle). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "act.h"
#include "core_read.h"
#include "errors.h"
#include "target_struct.h"

/* "comm/TID", with bytes jemalloc would refuse replaced by '?'. */
static void thread_label(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64], *comm = NULL;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	if (core_read_file(path, 256, &comm, NULL))
		comm = NULL;
	if (comm)
		comm[strcspn(comm, "\n")] = 0;
	snprintf(buf, len, "%s/%d", comm && *comm ? comm : "?", (int)tid);
	free(comm);
	for (char *p = buf; *p; p++)
		if (!isgraph((unsigned char)*p) && !isblank((unsigned char)*p))
			*p = '?';
}

static int name_if_unnamed(struct target *t, pid_t tid, int *named, char *why, size_t whylen)
{
	struct rctl_value v;
	int merr = 0;
	int e = rctl_read(t, "thread.prof.name", &v, &merr);
	if (!e && !merr && !v.is_null && v.s[0])
		return 0; /* the program named it: keep its name */
	if (!e && !merr) {
		struct rctl_value name = { .type = RCTL_STRING };
		thread_label(t->io_pid, tid, name.s, sizeof(name.s));
		e = rctl_write(t, "thread.prof.name", &name, NULL, &merr);
	}
	if (e)
		snprintf(why, whylen, "%s", ja_err_text(-e));
	else if (merr)
		snprintf(why, whylen, "thread.prof.name: mallctl returned %d", merr);
	else
		*named = 1;
	return e ? e : merr ? -EIO : 0;
}

int act_thread_pass(struct target *t, const struct act_session *s, pid_t tid, int *named,
		    char *why, size_t whylen)
{
	*named = 0;
	if (s->pass_settle && !s->pass_rearm && !s->pass_name) {
		/* Any mallctl: je_mallctl's tsd_fetch settles the thread's
		 * state (src/tsd.c tsd_fetch_slow -> tsd_slow_update) before
		 * the name is looked up. thread.allocatedp only reads. */
		struct rctl_value v;
		int merr = 0;
		int e = rctl_read(t, "thread.allocatedp", &v, &merr);
		if (e) {
			snprintf(why, whylen, "%s", ja_err_text(-e));
			return e;
		}
	}
	if (s->pass_rearm) {
		struct rctl_value v;
		int merr = 0;
		int e = rctl_read(t, "thread.prof.active", &v, &merr);
		if (e || merr) {
			if (e)
				snprintf(why, whylen, "%s", ja_err_text(-e));
			else
				snprintf(why, whylen, "thread.prof.active: mallctl returned %d", merr);
			return e ? e : -EIO;
		}
	}
	return s->pass_name ? name_if_unnamed(t, tid, named, why, whylen) : 0;
}
