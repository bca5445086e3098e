/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap recent as text: a header saying what the record covers and that
 * its counts are samples, then each view asked for. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "core_text.h"
#include "jeheap_recent.h"

/* Stack id's frames, leaf first, joined by " <- " (called from). */
static void put_stack(FILE *out, const jeheap_recent *r, size_t id, long depth)
{
	const char *const *f;
	size_t n = id == JEHEAP_RECENT_NONE ? 0 : jeheap_recent_stack(r, id, &f);
	if (!n) {
		fputs("(only the allocator's frames)", out);
		return;
	}
	for (size_t i = 0; i < n && (depth <= 0 || i < (size_t)depth); i++) {
		char safe[512];
		core_text_escape(f[i], safe, sizeof(safe));
		fprintf(out, "%s%s", i ? " <- " : "", safe);
	}
	if (depth > 0 && n > (size_t)depth)
		fputs(" <- ...", out);
}

static void header(FILE *out, const jeheap_recent *r, const struct recent_args *a)
{
	struct jeheap_recent_info in;
	char b1[32], b2[32], b3[32];
	jeheap_recent_get_info(r, &in);
	char keeps[48] = "all";
	if (in.recent_alloc_max >= 0)
		snprintf(keeps, sizeof(keeps), "the last %" PRId64, in.recent_alloc_max);
	fprintf(out, "%s: %zu records of recent allocations (jemalloc keeps %s), %zu still live "
		     "when recorded\n",
		a->path, in.records, keeps, in.live);
	if (in.has_jeattach) {
		time_t t = (time_t)in.time;
		struct tm tm;
		char when[32] = "?";
		if (gmtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
		fprintf(out, "pid %ld, recorded %s; jemalloc's clock: %s%s\n", in.pid, when, in.clock,
			strcmp(in.clock, "monotonic") ? " (prof_time_resolution:high)"
						      : " (CLOCK_MONOTONIC_COARSE: ticks of a few "
							"ms; shorter times read as 0 or one tick)");
	}
	fprintf(out, "window: allocations from %s to %s before the record (%s)\n",
		recent_ns(in.now > in.oldest ? in.now - in.oldest : 0, b1, sizeof(b1)),
		recent_ns(in.now > in.newest ? in.now - in.newest : 0, b2, sizeof(b2)),
		recent_ns(in.newest - in.oldest, b3, sizeof(b3)));
	fprintf(out, "sample interval %" PRIu64 " bytes: only sampled allocations are recorded "
		     "(about one per %" PRIu64 " bytes allocated), so counts are samples, not "
		     "totals; est. columns scale each allocation of usize bytes by "
		     "1/(1-exp(-usize/%" PRIu64 ")) as heap profiles are un-sampled\n",
		in.sample_interval, in.sample_interval, in.sample_interval);
}

static int top_row(const struct jeheap_recent_group *g, void *arg)
{
	struct recent_rows *w = arg;
	char b[4][24];
	if (!recent_more_rows(w))
		return ROWS_DONE;
	fprintf(w->out, "%8zu %10s %6zu %10s %6zu %10s  ", g->count,
		recent_bytes((double)g->bytes, b[0], 24), g->live,
		recent_bytes((double)g->live_bytes, b[1], 24), g->freed,
		recent_bytes(g->est_bytes, b[2], 24));
	put_stack(w->out, w->r, g->alloc_stack, w->a->depth);
	fputc('\n', w->out);
	w->shown++;
	return 0;
}

static int live_row(size_t i, const struct jeheap_recent_record *rec, void *arg)
{
	struct recent_rows *w = arg;
	char age[24], th[128];
	(void)i;
	if (!recent_more_rows(w))
		return ROWS_DONE;
	fprintf(w->out, "%10s %10" PRIu64 " %10" PRIu64 "  %-20s ",
		recent_ns(w->now > rec->alloc_time ? w->now - rec->alloc_time : 0, age, sizeof(age)),
		rec->size, rec->usize, recent_thread(rec->alloc_thread, rec->alloc_thread_name, th,
						     sizeof(th)));
	put_stack(w->out, w->r, rec->alloc_stack, w->a->depth);
	fputc('\n', w->out);
	w->shown++;
	return 0;
}

static int cross_row(const struct jeheap_recent_group *g, void *arg)
{
	struct recent_rows *w = arg;
	char b[24], t1[128], t2[128];
	if (!recent_more_rows(w))
		return ROWS_DONE;
	fprintf(w->out, "%8zu %10s  allocated by %s, freed by %s (first record)\n", g->count,
		recent_bytes((double)g->bytes, b, sizeof(b)),
		recent_thread(g->alloc_thread, g->alloc_thread_name, t1, sizeof(t1)),
		recent_thread(g->free_thread, g->free_thread_name, t2, sizeof(t2)));
	fputs("           allocated at: ", w->out);
	put_stack(w->out, w->r, g->alloc_stack, w->a->depth);
	fputs("\n           freed at:     ", w->out);
	put_stack(w->out, w->r, g->free_stack, w->a->depth);
	fputc('\n', w->out);
	w->shown++;
	return 0;
}

static void put_histogram(FILE *out, const struct jeheap_recent_lifetimes *h, const char *indent)
{
	char b1[24], b2[24], b3[24];
	fprintf(out, "%s%zu freed, %zu still live, %zu freed without a recorded free", indent,
		h->freed, h->live, h->unknown);
	if (!h->freed) {
		fputc('\n', out);
		return;
	}
	fprintf(out, "; median %s, min %s, max %s\n", recent_ns(h->median, b1, sizeof(b1)),
		recent_ns(h->min, b2, sizeof(b2)), recent_ns(h->max, b3, sizeof(b3)));
	int lo = 0, hi = JEHEAP_RECENT_BUCKETS - 1;
	size_t most = 0;
	while (!h->count[lo])
		lo++;
	while (!h->count[hi])
		hi--;
	for (int k = lo; k <= hi; k++)
		most = h->count[k] > most ? h->count[k] : most;
	for (int k = lo, end; k <= hi; k = end + 1) {
		/* a run of empty buckets is one row (a coarse clock leaves
		 * everything below its tick empty) */
		for (end = k; !h->count[k] && end < hi && !h->count[end + 1]; end++)
			;
		char bar[41];
		size_t len = (h->count[k] * 40 + most - 1) / most;
		memset(bar, '#', len);
		bar[len] = 0;
		fprintf(out, "%s[%9s, %9s) %8zu %10s  %s\n", indent,
			recent_ns(k ? (uint64_t)1 << k : 0, b1, sizeof(b1)),
			recent_ns(end < 63 ? (uint64_t)1 << (end + 1) : UINT64_MAX, b2, sizeof(b2)),
			h->count[k], recent_bytes((double)h->bytes[k], b3, sizeof(b3)), bar);
	}
}

static int lifetime_row(const struct jeheap_recent_group *g, void *arg)
{
	struct recent_rows *w = arg;
	struct jeheap_recent_lifetimes h;
	if (!recent_more_rows(w))
		return ROWS_DONE;
	if (jeheap_recent_lifetimes(w->r, g->alloc_stack, &h))
		return JEHEAP_ENOMEM;
	fputs("  ", w->out);
	put_stack(w->out, w->r, g->alloc_stack, w->a->depth);
	fputc('\n', w->out);
	put_histogram(w->out, &h, "    ");
	w->shown++;
	return 0;
}

static int lifetimes(FILE *out, struct recent_rows *w)
{
	struct jeheap_recent_lifetimes h;
	int e = jeheap_recent_lifetimes(w->r, JEHEAP_RECENT_NONE, &h);
	if (e)
		return e;
	fputs("\nLifetimes of the freed allocations (free time - allocation time), log2 buckets:\n",
	      out);
	put_histogram(out, &h, "  ");
	if (!w->a->per_stack)
		return 0;
	fputs("\nLifetimes per allocation stack (by sampled bytes):\n", out);
	e = jeheap_recent_groups(w->r, JEHEAP_RECENT_BY_STACK, lifetime_row, w);
	return e == ROWS_DONE ? 0 : e;
}

/* A view's end: its error, or 0 after "(none)" if it had no row. */
static int view_end(struct recent_rows *w, int e)
{
	if (!e && !w->shown)
		fputs("  (none)\n", w->out);
	w->shown = 0;
	return e == ROWS_DONE ? 0 : e;
}

int recent_print_text(FILE *out, const jeheap_recent *r, const struct recent_args *a)
{
	struct jeheap_recent_info in;
	jeheap_recent_get_info(r, &in);
	struct recent_rows w = { out, r, a, in.now, 0 };
	int e = 0;
	header(out, r, a);
	if (a->top) {
		fputs("\nAllocation stacks by sampled bytes:\n"
		      " records      bytes   live live bytes  freed est. bytes  stack\n", out);
		e = view_end(&w, jeheap_recent_groups(r, JEHEAP_RECENT_BY_STACK, top_row, &w));
	}
	if (!e && a->live) {
		char b[24];
		fprintf(out, "\nStill live when recorded%s%s, %s first:\n"
			     "       age       size      usize  thread               stack\n",
			a->live_max_age ? " and younger than " : "",
			a->live_max_age ? recent_ns(a->live_max_age, b, sizeof(b)) : "",
			a->live_order == JEHEAP_RECENT_BY_SIZE ? "largest" : "youngest");
		e = view_end(&w, jeheap_recent_live(r, a->live_max_age, a->live_order, live_row, &w));
	}
	if (!e && a->cross) {
		fputs("\nFreed by another thread than the one that allocated, by (allocation "
		      "stack, free stack):\n records      bytes\n", out);
		e = view_end(&w, jeheap_recent_groups(r, JEHEAP_RECENT_CROSS_THREAD, cross_row, &w));
		if (!e && in.free_unknown)
			fprintf(out, "  (and %zu released with no free recorded: jemalloc records "
				     "none for a thread that has never allocated; those may be "
				     "cross-thread too)\n",
				in.free_unknown);
	}
	if (!e && a->lifetimes)
		e = lifetimes(out, &w);
	return e;
}
