/* SPDX-License-Identifier: BSD-2-Clause */
/* The categories that make up resident memory, the size classes ranked by
 * what they waste, and the advice that applies (frag.h has the
 * arithmetic and where in jemalloc each figure comes from). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frag.h"

/* Advice thresholds, as shares of resident memory: below them the
 * category is not what makes the process big, and saying "purge" would
 * send the reader after a few pages. */
#define FRAG_DIRTY_SHARE 0.10   /* dirty + muzzy */
#define FRAG_SMALL_SHARE 0.10   /* small-bin free regions + tails */
#define FRAG_PAD_SHARE 0.05     /* large extents' pad pages */
#define FRAG_MIN_BYTES (1u << 20) /* and never for less than 1 MiB */
#define FRAG_NAMED_CLASSES 5    /* classes named in the advice */

const char *frag_cat_name(enum frag_cat c)
{
	static const char *const names[FRAG_NCATS] = {
		[FRAG_ALLOCATED] = "allocated",   [FRAG_BIN_FREE] = "small_free_regions",
		[FRAG_SLAB_TAIL] = "slab_tails",  [FRAG_LARGE_PAD] = "large_padding",
		[FRAG_DIRTY] = "dirty",           [FRAG_METADATA] = "metadata",
	};
	return names[c];
}

static void classify(struct frag_report *r)
{
	const struct frag_stats *st = &r->st;
	for (size_t i = 0; i < st->nbins; i++) {
		const struct frag_bin *b = &st->bins[i];
		uint64_t regs = b->curslabs * b->nregs;
		uint64_t free_regs = regs > b->curregs ? regs - b->curregs : 0; /* a race: 0 */
		uint64_t tail = b->curslabs * (b->slab_size - b->nregs * b->size);
		r->cat[FRAG_BIN_FREE] += free_regs * b->size;
		r->cat[FRAG_SLAB_TAIL] += tail;
		if (!b->curslabs)
			continue;
		struct frag_class *c = &r->classes[r->nclasses++];
		c->bin = b;
		c->wasted = free_regs * b->size + tail;
		c->util = regs ? (double)b->curregs / (double)regs : 1;
		c->req_frag = -1;
		c->req_waste = -1;
		/* prof_stats counts sampled objects only (prof_stats_inc is
		 * called from prof_malloc_sample_object): a ratio, applied to
		 * the class's allocated bytes. */
		if (b->has_prof && b->prof_count && b->prof_req <= b->prof_count * b->size) {
			c->req_frag = 1.0 - (double)b->prof_req / ((double)b->prof_count * (double)b->size);
			c->req_waste = (int64_t)(c->req_frag * (double)(b->curregs * b->size));
		}
	}
}

static int by_waste(const void *a, const void *b)
{
	const struct frag_class *x = a, *y = b;
	if (x->wasted != y->wasted)
		return x->wasted < y->wasted ? 1 : -1;
	return x->bin->index < y->bin->index ? -1 : 1;
}

static void add_advice(struct frag_report *r, enum frag_advice_kind kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_advice(struct frag_report *r, enum frag_advice_kind kind, const char *fmt, ...)
{
	if (r->nadvice >= sizeof(r->advice) / sizeof(r->advice[0]))
		return;
	struct frag_advice *a = &r->advice[r->nadvice++];
	a->kind = kind;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(a->text, sizeof(a->text), fmt, ap);
	va_end(ap);
}

static int significant(const struct frag_report *r, uint64_t bytes, double share)
{
	return bytes >= FRAG_MIN_BYTES && (double)bytes >= share * (double)r->st.resident;
}

/* Dirty and muzzy pages: what purging returns, and what returns them on time. */
static void advise_pages(struct frag_report *r)
{
	const struct frag_stats *st = &r->st;
	if (!significant(r, r->dirty + r->muzzy, FRAG_DIRTY_SHARE))
		return;
	add_advice(r, FRAG_ADV_PURGE,
		   "%.1f MiB of freed pages are still resident (dirty %.1f MiB, muzzy %.1f MiB): "
		   "jeattach -p PID --purge returns them now (arena.<all>.purge), --decay returns "
		   "those past their decay time (arena.<all>.decay)",
		   (double)(r->dirty + r->muzzy) / 1048576.0, (double)r->dirty / 1048576.0,
		   (double)r->muzzy / 1048576.0);
	if (st->dirty_decay_ms < 0)
		add_advice(r, FRAG_ADV_NO_DECAY,
			   "dirty_decay_ms is -1: jemalloc never returns dirty pages by itself; "
			   "set arenas.dirty_decay_ms (or start with MALLOC_CONF=dirty_decay_ms:10000)");
	else if (!st->bg_threads)
		/* Without background threads decay advances only as the
		 * arena is used (arena_decay_ticks, on allocations and
		 * frees): an idle process keeps its dirty pages. */
		add_advice(r, FRAG_ADV_BACKGROUND,
			   "no background thread runs (background_thread is off): dirty pages "
			   "decay only while the process allocates or frees; jeattach -p PID --set "
			   "background_thread=true returns them on time (%lld ms) even when idle",
			   (long long)st->dirty_decay_ms);
	if (r->muzzy && significant(r, r->muzzy, FRAG_DIRTY_SHARE))
		add_advice(r, FRAG_ADV_MUZZY,
			   "muzzy pages (MADV_FREE) are outside jemalloc's resident but the kernel "
			   "counts them in RSS until it needs the memory: --purge drops them now");
}

static void advise_small(struct frag_report *r)
{
	uint64_t small = r->cat[FRAG_BIN_FREE] + r->cat[FRAG_SLAB_TAIL];
	if (!significant(r, small, FRAG_SMALL_SHARE) || !r->nclasses)
		return;
	char names[200] = "";
	size_t n = 0;
	for (size_t i = 0; i < r->nclasses && i < FRAG_NAMED_CLASSES; i++) {
		const struct frag_class *c = &r->classes[i];
		if (!c->wasted)
			break;
		n += (size_t)snprintf(names + n, n < sizeof(names) ? sizeof(names) - n : 0,
				      "%s%llu B (%.0f%% used)", i ? ", " : "",
				      (unsigned long long)c->bin->size, 100 * c->util);
	}
	/* jemalloc never moves a live object: a slab is freed only when its
	 * last region is (arena_dalloc_bin_locked_handle_newly_empty). */
	add_advice(r, FRAG_ADV_SMALL,
		   "%.1f MiB are free regions in slabs that still hold live objects, worst in the "
		   "classes %s; purging cannot return them (each slab is freed only with its last "
		   "object): only freeing or reallocating those objects does",
		   (double)small / 1048576.0, names);
}

static void advise(struct frag_report *r)
{
	advise_pages(r);
	advise_small(r);
	if (significant(r, r->cat[FRAG_LARGE_PAD], FRAG_PAD_SHARE))
		add_advice(r, FRAG_ADV_LARGE_PAD,
			   "%llu large allocations carry a page each (opt.cache_oblivious, %.1f MiB): "
			   "MALLOC_CONF=cache_oblivious:false at start-up saves it (jemalloc 5.3+)",
			   (unsigned long long)r->st.large_extents,
			   (double)r->cat[FRAG_LARGE_PAD] / 1048576.0);
}

int frag_report_build(struct frag_stats *st, struct frag_report **out)
{
	struct frag_report *r = calloc(1, sizeof(*r));
	if (!r || !(r->classes = calloc(st->nbins ? st->nbins : 1, sizeof(*r->classes)))) {
		free(r);
		frag_stats_free(st);
		return -ENOMEM;
	}
	r->st = *st;
	memset(st, 0, sizeof(*st)); /* taken over */
	classify(r);
	qsort(r->classes, r->nclasses, sizeof(*r->classes), by_waste);
	r->dirty = r->st.pdirty * r->st.page;
	r->muzzy = r->st.pmuzzy * r->st.page;
	r->cat[FRAG_ALLOCATED] = r->st.allocated;
	r->cat[FRAG_LARGE_PAD] = r->st.cache_oblivious ? r->st.large_extents * r->st.page : 0;
	r->cat[FRAG_DIRTY] = r->dirty;
	r->cat[FRAG_METADATA] = r->st.base;
	uint64_t in_active = 0;
	for (int c = 0; c < FRAG_NCATS; c++) {
		r->sum += r->cat[c];
		if (c <= FRAG_LARGE_PAD)
			in_active += r->cat[c];
	}
	r->unexplained = (int64_t)r->st.resident - (int64_t)r->sum;
	r->active_gap = (int64_t)r->st.active - (int64_t)in_active;
	r->unrequested_small = r->st.prof_stats ? 0 : -1;
	for (size_t i = 0; i < r->nclasses && r->st.prof_stats; i++)
		r->unrequested_small += r->classes[i].req_waste > 0 ? r->classes[i].req_waste : 0;
	r->unrequested_large = r->st.large_prof ? (int64_t)r->st.large_unrequested : -1;
	if (r->st.prof_stats) {
		r->promoted_objects = r->st.prof_small_live;
		r->promoted_bytes = r->promoted_objects *
				    (r->st.min_large + (r->st.cache_oblivious ? r->st.page : 0));
	}
	advise(r);
	*out = r;
	return 0;
}

void frag_report_free(struct frag_report *r)
{
	if (!r)
		return;
	frag_sites_free(r->sites);
	frag_stats_free(&r->st);
	free(r->classes);
	free(r);
}
