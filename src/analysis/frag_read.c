/* SPDX-License-Identifier: BSD-2-Clause */
/* jemalloc's JSON report, read into struct frag_stats (frag.h). The keys
 * are those of jemalloc 5.x's stats.c: "jemalloc" -> "arenas" (bin and
 * lextent sizes: arenas.bin.<i>.size/nregs/slab_size), "stats" (the
 * stats.* totals ctl_refresh computes), "stats.arenas" -> "merged" (the
 * sum over arenas, MALLCTL_ARENAS_ALL: bins, lextents, pdirty...). The
 * report is the target's text: every figure is checked for presence and
 * type, counts are bounded, nothing it says is used as a size to allocate
 * without a bound. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_jtree.h"
#include "frag.h"

struct reader {
	const struct core_jtree *t;
	char *why;
	size_t whylen;
};

static int say(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(struct reader *rd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rd->why, rd->whylen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A required unsigned figure of obj, named where for the message. */
static int need(struct reader *rd, const struct core_jnode *obj, const char *where,
		const char *key, uint64_t *out)
{
	if (core_jtree_u64(rd->t, obj, key, out))
		return say(rd, "jemalloc's report has no number %s.%s", where, key);
	return 0;
}

static int64_t signed_or(const struct core_jtree *t, const struct core_jnode *obj, const char *key,
			 int64_t dflt)
{
	const struct core_jnode *c = core_jtree_get(t, obj, key);
	/* The report's number as a double: only one an int64_t holds is
	 * converted (any other, NaN included, is undefined behaviour in C;
	 * fuzz_frag found -1.1e61). */
	if (!c || c->type != CORE_J_NUMBER ||
	    !(c->d >= -9223372036854775808.0 && c->d < 9223372036854775808.0))
		return dflt;
	return (int64_t)c->d;
}

static int flag(const struct core_jtree *t, const struct core_jnode *obj, const char *key)
{
	const struct core_jnode *c = core_jtree_get(t, obj, key);
	return !c ? -1 : c->type == CORE_J_TRUE ? 1 : c->type == CORE_J_FALSE ? 0 : -1;
}

/* The totals: "stats" and the merged arena's page counts. */
static int read_totals(struct reader *rd, const struct core_jnode *je, const struct core_jnode *m,
		       struct frag_stats *st)
{
	const struct core_jtree *t = rd->t;
	const struct core_jnode *s = core_jtree_get(t, je, "stats");
	const struct core_jnode *bg = core_jtree_get(t, s, "background_thread");
	if (need(rd, s, "stats", "allocated", &st->allocated) ||
	    need(rd, s, "stats", "active", &st->active) ||
	    need(rd, s, "stats", "metadata", &st->metadata) ||
	    need(rd, s, "stats", "resident", &st->resident) ||
	    need(rd, s, "stats", "mapped", &st->mapped) ||
	    need(rd, s, "stats", "retained", &st->retained) ||
	    need(rd, m, "merged", "pactive", &st->pactive) ||
	    need(rd, m, "merged", "pdirty", &st->pdirty) ||
	    need(rd, m, "merged", "pmuzzy", &st->pmuzzy) || need(rd, m, "merged", "base", &st->base))
		return -1;
	/* Present in every 5.x report; absent ones count as 0. */
	core_jtree_u64(t, m, "internal", &st->internal);
	core_jtree_u64(t, m, "tcache_bytes", &st->tcache_bytes);
	core_jtree_u64(t, bg, "num_threads", &st->bg_threads);
	return 0;
}

/* "arenas": the page, the decay defaults; "opt" and "config". */
static int read_settings(struct reader *rd, const struct core_jnode *je, struct frag_stats *st)
{
	const struct core_jtree *t = rd->t;
	const struct core_jnode *ar = core_jtree_get(t, je, "arenas");
	const struct core_jnode *opt = core_jtree_get(t, je, "opt");
	const struct core_jnode *v = core_jtree_get(t, je, "version");
	snprintf(st->version, sizeof(st->version), "%s", v && v->type == CORE_J_STRING ? v->str : "?");
	if (need(rd, ar, "arenas", "page", &st->page))
		return -1;
	if (st->page < 4096 || st->page > (1u << 20) || (st->page & (st->page - 1)))
		return say(rd, "jemalloc's report gives a page size of %llu bytes",
			   (unsigned long long)st->page);
	st->dirty_decay_ms = signed_or(t, ar, "dirty_decay_ms", 0);
	st->muzzy_decay_ms = signed_or(t, ar, "muzzy_decay_ms", 0);
	st->opt_background_thread = flag(t, opt, "background_thread");
	/* opt.cache_oblivious from 5.3; a build-time switch before. */
	st->cache_oblivious = flag(t, opt, "cache_oblivious");
	if (st->cache_oblivious < 0)
		st->cache_oblivious = flag(t, core_jtree_get(t, je, "config"), "cache_oblivious");
	if (st->cache_oblivious < 0)
		st->cache_oblivious = 1; /* jemalloc's default since 4.0 */
	return 0;
}

/* One bin: its shape from arenas.bin[i], its counts from merged.bins[i]. */
static int read_bin(struct reader *rd, const struct core_jnode *shape,
		    const struct core_jnode *cnt, unsigned i, struct frag_bin *b)
{
	char where[48];
	snprintf(where, sizeof(where), "bins[%u]", i);
	b->index = i;
	if (need(rd, shape, where, "size", &b->size) || need(rd, shape, where, "nregs", &b->nregs) ||
	    need(rd, shape, where, "slab_size", &b->slab_size) ||
	    need(rd, cnt, where, "curregs", &b->curregs) ||
	    need(rd, cnt, where, "curslabs", &b->curslabs))
		return -1;
	if (!b->size || !b->nregs || b->nregs > (1u << 20) || b->size > (1ull << 40) ||
	    b->nregs * b->size > b->slab_size)
		return say(rd, "jemalloc's report gives bin %u %llu regions of %llu bytes in a "
			       "slab of %llu", i, (unsigned long long)b->nregs,
			   (unsigned long long)b->size, (unsigned long long)b->slab_size);
	core_jtree_u64(rd->t, cnt, "nonfull_slabs", &b->nonfull_slabs);
	/* stats.c prints these only with opt.prof_stats (prof_stats_on) */
	b->has_prof = !core_jtree_u64(rd->t, cnt, "prof_live_requested", &b->prof_req) &&
		      !core_jtree_u64(rd->t, cnt, "prof_live_count", &b->prof_count);
	return 0;
}

static int read_bins(struct reader *rd, const struct core_jnode *ar, const struct core_jnode *m,
		     struct frag_stats *st)
{
	const struct core_jtree *t = rd->t;
	const struct core_jnode *shapes = core_jtree_get(t, ar, "bin");
	const struct core_jnode *counts = core_jtree_get(t, m, "bins");
	if (!shapes || shapes->type != CORE_J_ARRAY || !counts || counts->type != CORE_J_ARRAY)
		return say(rd, "jemalloc's report has no bins (was it printed without 'b'?)");
	if (shapes->n != counts->n || !shapes->n || shapes->n > FRAG_MAX_CLASSES)
		return say(rd, "jemalloc's report lists %zu bin sizes and %zu bins", shapes->n,
			   counts->n);
	if (!(st->bins = calloc(shapes->n, sizeof(*st->bins))))
		return say(rd, "out of memory");
	st->nbins = shapes->n;
	const struct core_jnode *s = core_jtree_child(t, shapes), *c = core_jtree_child(t, counts);
	int prof = 1;
	for (unsigned i = 0; i < st->nbins; i++, s = core_jtree_next(t, s), c = core_jtree_next(t, c)) {
		if (read_bin(rd, s, c, i, &st->bins[i]))
			return -1;
		prof &= st->bins[i].has_prof;
		st->prof_small_live += st->bins[i].prof_count;
	}
	st->prof_stats = prof;
	return 0;
}

/* A large class's usable bytes not requested (its rounding up), from the
 * sampled objects of opt.prof_stats (prof.stats.lextents.<j>.live), as a
 * share of its live bytes. The smallest class also holds profiling's
 * promoted small objects (imalloc_sample), counted under their bins by
 * prof_stats (prof_malloc_sample_object is given the small usize): they
 * are not this class's rounding, so they are left out of its count. */
static void large_unrequested(struct reader *rd, const struct core_jnode *c, size_t i,
			      uint64_t size, uint64_t cur, struct frag_stats *st)
{
	uint64_t req, count;
	if (core_jtree_u64(rd->t, c, "prof_live_requested", &req) ||
	    core_jtree_u64(rd->t, c, "prof_live_count", &count)) {
		st->large_prof = 0;
		return;
	}
	if (!i)
		cur = cur > st->prof_small_live ? cur - st->prof_small_live : 0;
	if (count && req <= count * size)
		st->large_unrequested += (uint64_t)((double)(cur * size) *
						    (1.0 - (double)req / ((double)count * (double)size)));
}

static int read_large(struct reader *rd, const struct core_jnode *ar, const struct core_jnode *m,
		      struct frag_stats *st)
{
	const struct core_jtree *t = rd->t;
	const struct core_jnode *shapes = core_jtree_get(t, ar, "lextent");
	const struct core_jnode *counts = core_jtree_get(t, m, "lextents");
	if (!shapes || shapes->type != CORE_J_ARRAY || !counts || counts->type != CORE_J_ARRAY)
		return say(rd, "jemalloc's report has no large classes (was it printed without 'l'?)");
	if (shapes->n != counts->n || shapes->n > FRAG_MAX_CLASSES)
		return say(rd, "jemalloc's report lists %zu large sizes and %zu large classes",
			   shapes->n, counts->n);
	const struct core_jnode *s = core_jtree_child(t, shapes), *c = core_jtree_child(t, counts);
	st->large_prof = 1;
	for (size_t i = 0; s && c; i++, s = core_jtree_next(t, s), c = core_jtree_next(t, c)) {
		uint64_t size, cur;
		if (need(rd, s, "lextent", "size", &size) || need(rd, c, "lextents", "curlextents", &cur))
			return -1;
		if (!i)
			st->min_large = size;
		st->large_allocated += size * cur;
		st->large_extents += cur;
		large_unrequested(rd, c, i, size, cur, st);
	}
	return 0;
}

int frag_stats_read(const char *text, size_t len, struct frag_stats *st, char *why, size_t whylen)
{
	memset(st, 0, sizeof(*st));
	struct core_jtree *t;
	struct core_jerror err;
	int e = core_jtree_parse(text, len, &t, &err);
	if (e) {
		if (e == -ENOMEM)
			snprintf(why, whylen, "out of memory reading jemalloc's report");
		else if (e == -E2BIG)
			snprintf(why, whylen, "jemalloc's report holds more than %u values; not read",
				 CORE_JTREE_MAX_NODES);
		else
			snprintf(why, whylen,
				 "jemalloc's report is not valid JSON (at byte %zu of %zu: %s)", err.at,
				 len, err.why);
		return -1;
	}
	struct reader rd = { t, why, whylen };
	const struct core_jnode *je = core_jtree_get(t, core_jtree_root(t), "jemalloc");
	const struct core_jnode *ar = core_jtree_get(t, je, "arenas");
	/* "merged" when there are several arenas or per-arena output is
	 * off (stats.c, stats_print_helper); else the one arena's. */
	const struct core_jnode *sa = core_jtree_get(t, je, "stats.arenas");
	const struct core_jnode *m = core_jtree_get(t, sa, "merged");
	if (!m && sa && sa->n == 1)
		m = core_jtree_child(t, sa);
	int r;
	if (!je || !m)
		r = say(&rd, "jemalloc's report has no %s", !je ? "\"jemalloc\" object"
								 : "merged arena statistics");
	else
		r = read_settings(&rd, je, st) || read_totals(&rd, je, m, st) ||
			    read_bins(&rd, ar, m, st) || read_large(&rd, ar, m, st)
			    ? -1 : 0;
	core_jtree_free(t);
	if (r)
		frag_stats_free(st);
	return r;
}

int frag_class_of(const struct frag_stats *st, double size)
{
	/* bins are in increasing size order (sz_index2size) */
	for (size_t i = 0; i < st->nbins; i++)
		if ((double)st->bins[i].size >= size)
			return (int)i;
	return -1;
}

void frag_stats_free(struct frag_stats *st)
{
	free(st->bins);
	st->bins = NULL;
	st->nbins = 0;
}
