/* SPDX-License-Identifier: BSD-2-Clause */
/* --top on a non-terminal (or with --json): one JSON object per refresh,
 * on one line, flushed at once so a pipe's reader follows (doc/json.md). */
#include "config.h"

#include <time.h>
#include "cli_top.h"
#include "core_json.h"

static void summary(FILE *f, const struct top_view *v)
{
	const uint64_t *s = v->st.v;
	for (int i = 0; i < ACT_TOP_NSTATS; i++)
		fprintf(f, "\"%s\":%llu,\"%s_rate\":%.0f,", act_top_stat_names[i],
			(unsigned long long)s[i], act_top_stat_names[i], v->rate[i]);
	if (s[ACT_TOP_ALLOCATED])
		fprintf(f, "\"active_per_allocated\":%.4f,",
			(double)s[ACT_TOP_ACTIVE] / (double)s[ACT_TOP_ALLOCATED]);
	else
		fputs("\"active_per_allocated\":null,", f);
	if (s[ACT_TOP_ACTIVE])
		fprintf(f, "\"resident_per_active\":%.4f,",
			(double)s[ACT_TOP_RESIDENT] / (double)s[ACT_TOP_ACTIVE]);
	else
		fputs("\"resident_per_active\":null,", f);
}

static void arenas(FILE *f, const struct top_view *v)
{
	fputs("\"arenas\":[", f);
	int first = 1;
	for (unsigned i = 0; i < v->st.narenas; i++) {
		if (!v->arena_ok[i])
			continue;
		fprintf(f, "%s{\"arena\":%u,\"active\":%llu,\"active_rate\":%.0f}", first ? "" : ",",
			i, (unsigned long long)v->arena_active[i], v->arena_rate[i]);
		first = 0;
	}
	fputs("],", f);
}

static void threads(FILE *f, const struct top_view *v)
{
	const struct top_threads *th = v->th;
	const struct act_counters *k = &v->st.counters;
	fprintf(f, "\"threads_pending\":%d,\"threads_located\":%d,\"threads_peeked\":%d,"
		   "\"threads_missed\":%d,",
		th->pending, th->located, th->peeked, th->missed);
	fprintf(f, "\"threads_peek_us_max\":%lld,", (long long)th->peek_us_max);
	if (k->state != 1) { /* no per-thread figures: why */
		fputs("\"threads_note\":", f);
		core_json_put_string(f, k->why);
		fputc(',', f);
	}
	fputs("\"threads\":[", f);
	for (int i = 0; i < th->n; i++) {
		const struct top_thread *x = &th->v[i];
		fprintf(f, "%s{\"tid\":%d,\"name\":", i ? "," : "", (int)x->tid);
		core_json_put_string(f, x->comm);
		if (x->valid)
			fprintf(f, ",\"allocated\":%llu,\"deallocated\":%llu,\"alloc_rate\":%.0f,"
				   "\"dealloc_rate\":%.0f}",
				(unsigned long long)x->alloc, (unsigned long long)x->dealloc,
				x->alloc_rate, x->dealloc_rate);
		else
			fputs(",\"allocated\":null,\"deallocated\":null,\"alloc_rate\":null,"
			      "\"dealloc_rate\":null}",
			      f);
	}
	fputs("]", f);
}

/* What every line begins with, up to interval_ms and its comma. */
static void head(FILE *f, const struct top_view *v)
{
	fprintf(f, "{\"pid\":%d,\"comm\":", (int)v->pid);
	core_json_put_string(f, v->comm);
	fputs(",\"jemalloc_version\":", f);
	core_json_put_string(f, v->st.version);
	fprintf(f, ",\"seq\":%u,\"time\":%lld,\"interval_ms\":%lld,", v->seq,
		(long long)time(NULL), (long long)(v->interval_us / 1000));
}

int cli_top_json_missed(FILE *f, const struct top_view *v, const char *why)
{
	head(f, v);
	fputs("\"missed\":true,\"error\":", f);
	core_json_put_string(f, why);
	fputs("}\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}

int cli_top_json_line(FILE *f, const struct top_view *v)
{
	head(f, v);
	summary(f, v);
	fprintf(f, "\"hold_us\":%lld,\"holds\":%d,", (long long)v->hold_us, v->holds);
	arenas(f, v);
	threads(f, v);
	fputs("}\n", f);
	return fflush(f) || ferror(f) ? -1 : 0;
}
