/* SPDX-License-Identifier: BSD-2-Clause */
/* --recent N: jemalloc's record of its last N sampled allocations, each with
 * its stack, thread and time and, once freed, the free's stack, thread and
 * time (5.3.0 and later, src/prof_recent.c). jemalloc keeps none by default
 * (opt.prof_recent_alloc_max 0): the record is switched on for a window and
 * put back as found.
 *
 * - begin: experimental.prof_recent.alloc_max is raised to N, the old value
 *   read in the same mallctl (ctl.c experimental_prof_recent_alloc_max_ctl,
 *   under ctl_mtx), never lowered: a target that keeps more, or all (-1),
 *   is left alone.
 * - dump: experimental.prof_recent.alloc_dump takes {write_cb, cbopaque};
 *   NULL would write to the target's stderr (buf_writer_init falls back to
 *   malloc_message), so the output is collected into a mapping made for it
 *   (rproc_collect). Dumping does not clear the record
 *   (prof_recent_alloc_dump moves the list aside and back).
 * - end: alloc_max back as found. Lowering it frees the records beyond the
 *   new maximum, and with them the stack records (tctx) they kept alive
 *   (prof_recent_alloc_max_ctl_write -> prof_recent_alloc_async_cleanup).
 *
 * The record's times are jemalloc's profiling clock: CLOCK_MONOTONIC_COARSE,
 * or CLOCK_REALTIME with opt.prof_time_resolution "high" (nstime.c
 * nstime_prof_update_impl). jeattach reads the same clock when it takes
 * the record, so that ages can be told (jeheap recent). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "act.h"
#include "core_jpull.h"
#include "core_json.h"
#include "errors.h"
#include "rproc.h"

static const char recent_max[] = "experimental.prof_recent.alloc_max";

enum ja_exit act_recent_begin(struct target *t, struct act_session *s, const struct act *a,
			      struct act_result *r)
{
	const char *doing = "cannot record recent allocations";
	enum ja_exit c = act_need_prof(t, r, doing);
	if (c)
		return c;
	struct rctl_value old, want = { .type = RCTL_SSIZE, .i = a->n };
	int merr = 0, e = rctl_read(t, recent_max, &old, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr == ENOENT)
		return act_fail(r, JA_EXIT_MALLCTL,
				"%s: this jemalloc keeps no record of recent allocations "
				"(experimental.prof_recent: 5.3.0 and later); --for DURATION --dump "
				"FILE gives what the window allocated and still holds",
				doing);
	if (merr)
		return act_mallctl_error(t, r, doing, recent_max, merr);
	act_field_value(r, "previous_max", &old);
	if (old.i == -1 || old.i > ACT_RECENT_MAX)
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: this process keeps %s recent allocations "
				"(experimental.prof_recent.alloc_max %lld): jemalloc writes the "
				"record with its dump lock held, and one that large could outgrow "
				"what jeattach can collect and leave that lock taken; nothing was "
				"changed",
				doing, old.i == -1 ? "all its" : "more than 10000", (long long)old.i);
	if (old.i >= a->n) { /* it keeps as many already: as found */
		act_field_value(r, "recent_alloc_max", &old);
		return JA_EXIT_OK;
	}
	if ((e = rctl_write(t, recent_max, &want, &old, &merr)))
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, recent_max, merr);
	s->recent_prev = old.i;
	s->recent_to = a->n;
	s->recent_set = 1;
	act_field_value(r, "recent_alloc_max", &want);
	return JA_EXIT_OK;
}

struct dump_call {
	int merr;
};

/* The mallctl whose write_cb appends to buf: write-only, its new value the
 * {write_cb, cbopaque} pair (ctl.c write_cb_packet_t). */
static int dump_writer(struct target *t, uint64_t write_cb, uint64_t buf, void *arg)
{
	struct dump_call *d = arg;
	uint64_t packet[2] = { write_cb, buf };
	return rctl_write_bytes(t, "experimental.prof_recent.alloc_dump", packet, sizeof(packet),
				&d->merr);
}

/* The clock jemalloc stamped the records with, now. */
static uint64_t profiling_clock_now(struct target *t, const char **name)
{
	struct rctl_value v;
	int merr = 0, high = !rctl_read(t, "opt.prof_time_resolution", &v, &merr) && !merr &&
			     !v.is_null && !strcmp(v.s, "high");
	struct timespec ts;
	clock_gettime(high ? CLOCK_REALTIME : CLOCK_MONOTONIC_COARSE, &ts);
	*name = high ? "realtime" : "monotonic";
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* jemalloc's keys are sample_interval, recent_alloc_max, recent_alloc
 * (prof_recent_alloc_dump). jemalloc 5.3 prints thread names unescaped: a
 * name the program chose can close a record early and add keys of its own
 * (a "jeattach" key, say), in text that is still valid JSON. Read with
 * libcore's tokenizer, as every JSON is: a scan of quotes and brackets of
 * its own was a second reader to keep right, and counted records by a
 * {"size": it found anywhere. */
int act_recent_keys(const char *json, uint64_t *records)
{
	static const char *const keys[] = { "sample_interval", "recent_alloc_max",
					     "recent_alloc" };
	struct core_jpull j;
	struct core_jtok t;
	int seen[3] = { 0 }, k = 0;
	*records = 0;
	core_jpull_init(&j, json, strlen(json), SIZE_MAX, CORE_JPULL_MAX_DEPTH);
	int e = core_jpull_next(&j, &t);
	if (!e && t.type != CORE_J_OBJECT)
		e = -EINVAL;
	while (!e && !(e = core_jpull_next(&j, &t)) && t.type == CORE_J_KEY) {
		for (k = 0; k < 3 && strcmp(t.str, keys[k]); k++)
			;
		if (k == 3 || seen[k]++ || (e = core_jpull_next(&j, &t)))
			break;
		if (k != 2 || t.type != CORE_J_ARRAY) {
			e = core_jpull_skip(&j, &t);
			continue;
		}
		/* the records: each counted, taken whole */
		while (!(e = core_jpull_next(&j, &t)) && t.type != CORE_J_ARRAY_END) {
			++*records;
			if ((e = core_jpull_skip(&j, &t)))
				break;
		}
	}
	core_jpull_free(&j);
	if (e)
		return e;
	return k == 3 || seen[0] != 1 || seen[1] != 1 || seen[2] != 1 ? -EINVAL : 0;
}

enum ja_exit act_recent_dump(struct target *t, struct act_result *r)
{
	const char *doing = "cannot take the record of recent allocations";
	if (!rproc_has_stats_print(t))
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: no strcat in the target's libc to collect it with", doing);
	int e = rproc_check_seccomp(t, RPROC_USE_STATS_PRINT);
	if (e)
		return act_transport_error(t, r, doing, e);
	const char *clock_name;
	r->out.recent.now_ns = profiling_clock_now(t, &clock_name);
	clock_gettime(CLOCK_REALTIME, &r->out.dump.done); /* the record's time, as a dump's */
	struct dump_call d = { 0 };
	char *text;
	int remote_errno;
	if ((e = rproc_collect(t, dump_writer, &d, 0, &text, &remote_errno)))
		return act_transport_error(t, r, doing, e);
	if (remote_errno)
		return act_fail(r, JA_EXIT_UNSAFE, "%s: mmap in the target failed: %s", doing,
				strerror(remote_errno));
	if (d.merr) {
		free(text);
		return act_mallctl_error(t, r, doing, "experimental.prof_recent.alloc_dump", d.merr);
	}
	/* The target wrote it: kept only as one valid JSON object, re-encoded
	 * (a forged record cannot close it early and append keys of ours). */
	size_t n = strlen(text);
	e = core_json_reencode(text, &r->out.recent.json, NULL);
	free(text);
	size_t len = r->out.recent.json ? strlen(r->out.recent.json) : 0;
	if (e == -ENOMEM)
		return act_fail(r, JA_EXIT_INTERNAL, "%s: out of memory", doing);
	if (e || len < 2 || r->out.recent.json[0] != '{' || r->out.recent.json[len - 1] != '}')
		return act_fail(r, JA_EXIT_MALLCTL,
				"%s: what the target wrote (%zu bytes) is not one JSON object", doing,
				n);
	uint64_t records;
	if ((e = act_recent_keys(r->out.recent.json, &records)) == -ENOMEM)
		return act_fail(r, JA_EXIT_INTERNAL, "%s: out of memory", doing);
	if (e)
		return act_fail(r, JA_EXIT_MALLCTL,
				"%s: the record has keys jemalloc does not write: a thread name "
				"the program set (jemalloc 5.3 writes them unescaped) broke its "
				"structure; nothing was written",
				doing);
	act_field_u64(r, "records", records);
	act_field_str(r, "clock", clock_name);
	return JA_EXIT_OK;
}

enum ja_exit act_recent_end(struct target *t, struct act_session *s, struct act_result *r)
{
	const char *doing = "cannot put experimental.prof_recent.alloc_max back";
	if (!s->recent_set)
		return JA_EXIT_OK; /* left as found */
	struct rctl_value now, v = { .type = RCTL_SSIZE, .i = s->recent_prev };
	int merr = 0, e = rctl_read(t, recent_max, &now, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, recent_max, merr);
	s->recent_set = 0;
	if (now.i != s->recent_to) {
		/* Someone else changed it during the window (the program, or
		 * another jeattach): theirs now, left as it is. */
		act_field_value(r, "recent_alloc_max", &now);
		snprintf(r->warning, sizeof(r->warning),
			 "experimental.prof_recent.alloc_max was changed to %lld during the "
			 "window, not by this run: left as it is (it was %lld before)",
			 (long long)now.i, (long long)s->recent_prev);
		return JA_EXIT_OK;
	}
	if ((e = rctl_write(t, recent_max, &v, NULL, &merr)))
		return act_transport_error(t, r, doing, e);
	if (merr)
		return act_mallctl_error(t, r, doing, recent_max, merr);
	act_field_value(r, "recent_alloc_max", &v);
	return JA_EXIT_OK;
}
