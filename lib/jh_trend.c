/* SPDX-License-Identifier: BSD-2-Clause */
/* A trend over a series of dumps: every stack of every dump reduced as top
 * reduces it (one reducer run, the first dump its profile and the others
 * its more profiles, each through its own symbolizer), matched across
 * dumps by its reduced entry ids (names interned once for the run, so
 * equal names are equal ids whatever the dump), its values put in time
 * order, a line fitted through them (jh_trend_fit.c), the stacks ranked. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jh_trend.h"

static void say(struct jeheap_error_info *ei, int code, const char *what, const char *name,
		const char *why)
{
	if (!ei)
		return;
	memset(ei, 0, sizeof(*ei));
	ei->code = code;
	snprintf(ei->message, sizeof(ei->message), "%s%s%s%s", name ? name : "", name ? ": " : "",
		 what, why);
}

static const char *name_of(const struct jeheap_trend_dump *d)
{
	return d->name ? d->name : "a dump";
}

/* The dumps' times in order (t->times, t->given, t->order). */
static int order_dumps(jeheap_trend *t, const struct jeheap_trend_dump *d, size_t n,
		       struct jeheap_error_info *ei)
{
	t->times = calloc(n, sizeof(*t->times));
	t->given = calloc(n, sizeof(*t->given));
	t->order = calloc(n, sizeof(*t->order));
	if (!t->times || !t->given || !t->order)
		return JEHEAP_ENOMEM;
	/* Insertion sort: tens of dumps, and the ties are found on the way. */
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(d[i].time)) {
			say(ei, JEHEAP_EINVAL, "its time is not a number", d[i].name, "");
			return JEHEAP_EINVAL;
		}
		size_t k = i;
		for (; k > 0 && d[t->given[k - 1]].time > d[i].time; k--)
			t->given[k] = t->given[k - 1];
		if (k > 0 && d[t->given[k - 1]].time == d[i].time) {
			say(ei, JEHEAP_EINVAL, "made at the same time as ", name_of(&d[t->given[k - 1]]),
			    name_of(&d[i]));
			return JEHEAP_EINVAL;
		}
		t->given[k] = i;
	}
	for (size_t k = 0; k < n; k++) {
		t->times[k] = d[t->given[k]].time;
		t->order[t->given[k]] = k;
	}
	t->ndumps = n;
	return 0;
}

static uint64_t path_hash(const uint32_t *p, size_t n)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a over the ids' bytes */
	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 32; b += 8) {
			h ^= (p[i] >> b) & 0xff;
			h *= 1099511628211ULL;
		}
	return h;
}

/* The slot of path: holding its row + 1, or 0 (free). */
static uint32_t *slot_of(const jeheap_trend *t, const uint32_t *path, size_t n)
{
	size_t mask = t->slots_cap - 1;
	for (size_t i = path_hash(path, n) & mask;; i = (i + 1) & mask) {
		uint32_t *s = &t->slots[i];
		if (!*s)
			return s;
		const struct jh_trend_row *r = &t->rows[*s - 1];
		if (r->key_len == n && !memcmp(t->keys + r->key_off, path, n * sizeof(*path)))
			return s;
	}
}

/* Room for one more row in the index (load under 1/2). */
static int reserve_slot(jeheap_trend *t)
{
	if ((t->nrows + 1) * 2 <= t->slots_cap)
		return 0;
	size_t cap = t->slots_cap ? t->slots_cap * 2 : 1024;
	if (t->nrows >= UINT32_MAX / 2)
		return JEHEAP_ENOMEM;
	free(t->slots);
	if (!(t->slots = calloc(cap, sizeof(*t->slots))))
		return JEHEAP_ENOMEM;
	t->slots_cap = cap;
	for (size_t i = 0; i < t->nrows; i++)
		*slot_of(t, t->keys + t->rows[i].key_off, t->rows[i].key_len) = (uint32_t)(i + 1);
	return 0;
}

/* A new row for path, its values 0. */
static int new_row(jeheap_trend *t, const uint32_t *path, size_t n, uint32_t *slot)
{
	size_t nd = t->ndumps;
	if (n > UINT32_MAX ||
	    jh_grow((void **)&t->rows, &t->rows_cap, t->nrows + 1, sizeof(*t->rows)) ||
	    jh_grow((void **)&t->keys, &t->keys_cap, t->nkeys + n, sizeof(*t->keys)) ||
	    jh_grow_zeroed((void **)&t->values, &t->values_cap, (t->nrows + 1) * nd,
			   sizeof(*t->values)))
		return JEHEAP_ENOMEM;
	struct jh_trend_row *r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->key_off = t->nkeys;
	r->key_len = (uint32_t)n;
	r->seen = t->nrows;
	memcpy(t->keys + t->nkeys, path, n * sizeof(*path));
	t->nkeys += n;
	*slot = (uint32_t)(++t->nrows);
	return 0;
}

/* The reducer's sink: one reduced stack of dump rs->which. */
static int add_stack(void *arg, const struct jh_reduced *rs)
{
	jeheap_trend *t = arg;
	if (rs->which < 0 || (size_t)rs->which >= t->ndumps)
		return JEHEAP_EINVAL;
	int e = reserve_slot(t);
	if (e)
		return e;
	uint32_t *slot = slot_of(t, rs->path, rs->n);
	if (!*slot && (e = new_row(t, rs->path, rs->n, slot)))
		return e;
	t->values[(size_t)(*slot - 1) * t->ndumps + t->order[rs->which]] += rs->value;
	return 0;
}

/* Each row's names and values, its line, the total's; then the ranking. */
static int finish(jeheap_trend *t, const struct jeheap_trend_dump *d,
		  struct jeheap_error_info *ei)
{
	size_t nd = t->ndumps;
	double *x = calloc(nd, sizeof(*x));
	t->frames = calloc(t->nkeys ? t->nkeys : 1, sizeof(*t->frames));
	t->total_values = calloc(nd, sizeof(*t->total_values));
	if (!x || !t->frames || !t->total_values) {
		free(x);
		return JEHEAP_ENOMEM;
	}
	/* Seconds since the first dump: the slope is per second either way,
	 * and small numbers keep the sums exact. */
	for (size_t k = 0; k < nd; k++)
		x[k] = t->times[k] - t->times[0];
	for (size_t k = 0; k < t->nkeys; k++)
		t->frames[k] = t->names.e[t->keys[k]].name;
	for (size_t i = 0; i < t->nrows; i++) {
		struct jh_trend_row *r = &t->rows[i];
		r->pub.frames = t->frames + r->key_off;
		r->pub.nframes = r->key_len;
		r->pub.values = t->values + i * nd;
		for (size_t k = 0; k < nd; k++) {
			/* A count past what un-sampling can scale (a huge
			 * object count of tiny objects) gives no number. */
			if (!isfinite(r->pub.values[k])) {
				say(ei, JEHEAP_EFORMAT, "a stack's count un-samples to no finite "
					"number (a corrupt or forged profile)", d[t->given[k]].name, "");
				free(x);
				return JEHEAP_EFORMAT;
			}
			t->total_values[k] += r->pub.values[k];
		}
		jh_trend_fit(x, r->pub.values, nd, t->min_fit, &r->pub);
	}
	t->total.values = t->total_values;
	jh_trend_fit(x, t->total_values, nd, t->min_fit, &t->total);
	free(x);
	if (t->nrows)
		qsort(t->rows, t->nrows, sizeof(*t->rows), jh_trend_rank_cmp);
	return 0;
}

static int check_args(const struct jeheap_trend_dump *d, size_t n, const struct jeheap_query *q,
		      double min_fit, struct jeheap_error_info *ei)
{
	if (!d || !q || q->base || q->nmore || !(min_fit >= 0 && min_fit <= 1)) {
		say(ei, JEHEAP_EINVAL, "a trend takes no base and no more profiles, and a fit "
			"threshold from 0 to 1", NULL, "");
		return JEHEAP_EINVAL;
	}
	if (n < 2) {
		say(ei, JEHEAP_EINVAL, "a trend needs at least two dumps", n ? d[0].name : NULL, "");
		return JEHEAP_EINVAL;
	}
	for (size_t i = 0; i < n; i++)
		if (!d[i].profile) {
			say(ei, JEHEAP_EINVAL, "no profile", d[i].name, "");
			return JEHEAP_EINVAL;
		}
	return 0;
}

JH_EXPORT int jeheap_trend_new(const struct jeheap_trend_dump *dumps, size_t n,
			       const struct jeheap_query *q, double min_fit, jeheap_trend **out,
			       struct jeheap_error_info *ei)
{
	if (!out)
		return JEHEAP_EINVAL;
	*out = NULL;
	if (ei)
		memset(ei, 0, sizeof(*ei));
	int e = check_args(dumps, n, q, min_fit, ei);
	jeheap_trend *t = e ? NULL : calloc(1, sizeof(*t));
	if (!e && !t)
		e = JEHEAP_ENOMEM;
	if (!e) {
		t->metric = q->metric;
		t->min_fit = min_fit;
		e = order_dumps(t, dumps, n, ei);
	}
	const jeheap_profile **more = e ? NULL : calloc(n - 1, sizeof(*more));
	jeheap_symbolizer **syms = e ? NULL : calloc(n - 1, sizeof(*syms));
	if (!e && (!more || !syms))
		e = JEHEAP_ENOMEM;
	for (size_t i = 1; !e && i < n; i++) {
		more[i - 1] = dumps[i].profile;
		syms[i - 1] = dumps[i].symbolizer;
	}
	if (!e) {
		struct jeheap_query rq = *q;
		rq.more = more;
		rq.more_symbolizers = syms;
		rq.nmore = n - 1;
		static const struct jh_sink sink = { .stack = add_stack };
		e = jh_query_valid(&rq) ? jh_reduce_run(dumps[0].profile, dumps[0].symbolizer, &rq,
							 &sink, t, &t->names)
					: JEHEAP_EINVAL;
	}
	free(more);
	free(syms);
	if (!e)
		e = finish(t, dumps, ei);
	if (e && ei && !ei->code)
		say(ei, e, jeheap_strerror(e), NULL, "");
	if (e)
		jeheap_trend_free(t);
	else
		*out = t;
	return e;
}

JH_EXPORT void jeheap_trend_free(jeheap_trend *t)
{
	if (!t)
		return;
	free(t->times);
	free(t->given);
	free(t->order);
	jh_entries_free(&t->names);
	free(t->rows);
	free(t->keys);
	free(t->values);
	free(t->frames);
	free(t->slots);
	free(t->total_values);
	free(t);
}

JH_EXPORT size_t jeheap_trend_dump_count(const jeheap_trend *t)
{
	return t ? t->ndumps : 0;
}

JH_EXPORT double jeheap_trend_dump_time(const jeheap_trend *t, size_t i)
{
	return t && i < t->ndumps ? t->times[i] : NAN;
}

JH_EXPORT size_t jeheap_trend_dump_given(const jeheap_trend *t, size_t i)
{
	return t && i < t->ndumps ? t->given[i] : SIZE_MAX;
}

JH_EXPORT size_t jeheap_trend_count(const jeheap_trend *t)
{
	return t ? t->nrows : 0;
}

JH_EXPORT const struct jeheap_trend_stack *jeheap_trend_stack(const jeheap_trend *t, size_t i)
{
	return t && i < t->nrows ? &t->rows[i].pub : NULL;
}

JH_EXPORT const struct jeheap_trend_stack *jeheap_trend_total(const jeheap_trend *t)
{
	return t ? &t->total : NULL;
}
