/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap recent --json: one object on one line, keys documented in
 * doc/json.md ("jeheap recent"). Numbers are exact (ns, bytes, counts);
 * only the views asked for are there. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include "core_json.h"
#include "jeheap_recent.h"

static void put_stack(FILE *out, const jeheap_recent *r, size_t id)
{
	const char *const *f;
	size_t n = id == JEHEAP_RECENT_NONE ? 0 : jeheap_recent_stack(r, id, &f);
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		core_json_put_string(out, f[i]);
	}
	fputc(']', out);
}

static void put_thread(FILE *out, const char *key, uint64_t uid, const char *name)
{
	fprintf(out, "\"%s\":%" PRIu64 ",\"%s_name\":", key, uid, key);
	if (name)
		core_json_put_string(out, name);
	else
		fputs("null", out);
}

/* The next element of an array: a comma after the first; ROWS_DONE past -n. */
static int row(struct recent_rows *w)
{
	if (!recent_more_rows(w))
		return ROWS_DONE;
	if (w->shown++)
		fputc(',', w->out);
	return 0;
}

static void put_group_counts(FILE *out, const struct jeheap_recent_group *g)
{
	fprintf(out, "\"records\":%zu,\"bytes\":%" PRIu64 ",\"live\":%zu,\"live_bytes\":%" PRIu64
		     ",\"freed\":%zu,\"freed_bytes\":%" PRIu64 ",\"cross_thread\":%zu,"
		     "\"est_records\":%.1f,\"est_bytes\":%.1f",
		g->count, g->bytes, g->live, g->live_bytes, g->freed, g->freed_bytes, g->cross_thread,
		g->est_count, g->est_bytes);
}

static int top_row(const struct jeheap_recent_group *g, void *arg)
{
	struct recent_rows *w = arg;
	if (row(w))
		return ROWS_DONE;
	fputs("{\"stack\":", w->out);
	put_stack(w->out, w->r, g->alloc_stack);
	fputc(',', w->out);
	put_group_counts(w->out, g);
	fputc('}', w->out);
	return 0;
}

static int cross_row(const struct jeheap_recent_group *g, void *arg)
{
	struct recent_rows *w = arg;
	if (row(w))
		return ROWS_DONE;
	fputs("{\"alloc_stack\":", w->out);
	put_stack(w->out, w->r, g->alloc_stack);
	fputs(",\"free_stack\":", w->out);
	put_stack(w->out, w->r, g->free_stack);
	fputc(',', w->out);
	put_group_counts(w->out, g);
	fputc(',', w->out);
	put_thread(w->out, "alloc_thread", g->alloc_thread, g->alloc_thread_name);
	fputc(',', w->out);
	put_thread(w->out, "free_thread", g->free_thread, g->free_thread_name);
	fputc('}', w->out);
	return 0;
}

static int live_row(size_t i, const struct jeheap_recent_record *rec, void *arg)
{
	struct recent_rows *w = arg;
	if (row(w))
		return ROWS_DONE;
	fprintf(w->out, "{\"record\":%zu,\"age_ns\":%" PRIu64 ",\"size\":%" PRIu64
			",\"usize\":%" PRIu64 ",",
		i, w->now > rec->alloc_time ? w->now - rec->alloc_time : 0, rec->size, rec->usize);
	put_thread(w->out, "thread", rec->alloc_thread, rec->alloc_thread_name);
	fputs(",\"stack\":", w->out);
	put_stack(w->out, w->r, rec->alloc_stack);
	fputc('}', w->out);
	return 0;
}

static void put_lifetimes(FILE *out, const struct jeheap_recent_lifetimes *h)
{
	fprintf(out, "\"freed\":%zu,\"live\":%zu,\"free_unknown\":%zu,\"median_ns\":%" PRIu64
		     ",\"min_ns\":%" PRIu64 ",\"max_ns\":%" PRIu64 ",\"buckets\":[",
		h->freed, h->live, h->unknown, h->median, h->min, h->max);
	int first = 1;
	for (int k = 0; k < JEHEAP_RECENT_BUCKETS; k++) {
		if (!h->count[k])
			continue;
		fprintf(out, "%s{\"from_ns\":%" PRIu64 ",\"to_ns\":%" PRIu64 ",\"records\":%zu,"
			     "\"bytes\":%" PRIu64 "}",
			first ? "" : ",", k ? (uint64_t)1 << k : 0,
			k < 63 ? (uint64_t)1 << (k + 1) : UINT64_MAX, h->count[k], h->bytes[k]);
		first = 0;
	}
	fputc(']', out);
}

static int lifetime_row(const struct jeheap_recent_group *g, void *arg)
{
	struct recent_rows *w = arg;
	struct jeheap_recent_lifetimes h;
	int e = jeheap_recent_lifetimes(w->r, g->alloc_stack, &h);
	if (e || row(w))
		return e ? e : ROWS_DONE;
	fputs("{\"stack\":", w->out);
	put_stack(w->out, w->r, g->alloc_stack);
	fputc(',', w->out);
	put_lifetimes(w->out, &h);
	fputc('}', w->out);
	return 0;
}

static void header(FILE *out, const struct recent_args *a, const struct jeheap_recent_info *in)
{
	fputs("{\"file\":", out);
	core_json_put_string(out, a->path);
	fprintf(out, ",\"records\":%zu,\"live\":%zu,\"free_unknown\":%zu,"
		     "\"sample_interval\":%" PRIu64 ",\"recent_alloc_max\":%" PRId64
		     ",\"sampled\":true,\"pid\":",
		in->records, in->live, in->free_unknown, in->sample_interval,
		in->recent_alloc_max);
	if (in->has_jeattach)
		fprintf(out, "%ld,\"time\":%.6f,\"clock\":\"%s\"", in->pid, in->time, in->clock);
	else
		fputs("null,\"time\":null,\"clock\":null", out);
	fprintf(out, ",\"now_ns\":%" PRIu64 ",\"oldest_age_ns\":%" PRIu64
		     ",\"newest_age_ns\":%" PRIu64,
		in->now, in->now > in->oldest ? in->now - in->oldest : 0,
		in->now > in->newest ? in->now - in->newest : 0);
}

/* A view as "key":[rows]. */
static void open_array(struct recent_rows *w, const char *key)
{
	fprintf(w->out, ",\"%s\":[", key);
	w->shown = 0;
}

/* Its end: the view's error, or 0. */
static int close_array(struct recent_rows *w, int e)
{
	fputc(']', w->out);
	return e == ROWS_DONE ? 0 : e;
}

static int lifetimes(struct recent_rows *w)
{
	struct jeheap_recent_lifetimes h;
	int e = jeheap_recent_lifetimes(w->r, JEHEAP_RECENT_NONE, &h);
	if (e)
		return e;
	fputs(",\"lifetimes\":{", w->out);
	put_lifetimes(w->out, &h);
	if (w->a->per_stack) {
		open_array(w, "per_stack");
		e = close_array(w, jeheap_recent_groups(w->r, JEHEAP_RECENT_BY_STACK, lifetime_row, w));
	}
	fputc('}', w->out);
	return e;
}

int recent_print_json(FILE *out, const jeheap_recent *r, const struct recent_args *a)
{
	struct jeheap_recent_info in;
	jeheap_recent_get_info(r, &in);
	struct recent_rows w = { out, r, a, in.now, 0 };
	int e = 0;
	header(out, a, &in);
	if (a->top) {
		open_array(&w, "top");
		e = close_array(&w, jeheap_recent_groups(r, JEHEAP_RECENT_BY_STACK, top_row, &w));
	}
	if (!e && a->live) {
		fprintf(out, ",\"live_max_age_ns\":%" PRIu64, a->live_max_age);
		open_array(&w, "live_records");
		e = close_array(&w, jeheap_recent_live(r, a->live_max_age, a->live_order, live_row, &w));
	}
	if (!e && a->cross) {
		open_array(&w, "cross_thread");
		e = close_array(&w, jeheap_recent_groups(r, JEHEAP_RECENT_CROSS_THREAD, cross_row, &w));
	}
	if (!e && a->lifetimes)
		e = lifetimes(&w);
	fputs("}\n", out);
	return e;
}
