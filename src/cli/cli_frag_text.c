/* SPDX-License-Identifier: BSD-2-Clause */
/* --frag as text: the categories that add up to resident, what lies
 * outside it, the worst size classes, the advice, the sites. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "cli_frag.h"
#include "core_text.h"

#define TEXT_CLASSES 10 /* classes listed; the JSON has them all */
#define TEXT_SITES 3    /* sites per class */
#define TEXT_FRAMES 5   /* frames of a site's stack */

static double mib(double b)
{
	return b / 1048576.0;
}

static double share(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

static const char *large_unrequested(const struct frag_report *f, char *buf, size_t len)
{
	if (f->unrequested_large < 0)
		return "?";
	snprintf(buf, len, "%lld", (long long)f->unrequested_large);
	return buf;
}

static void categories(FILE *out, const struct frag_report *f)
{
	const struct frag_stats *st = &f->st;
	char buf[32];
	fprintf(out, "  %-28s %14s %10s %7s\n", "category (adds up to resident)", "bytes", "MiB",
		"share");
	for (int c = 0; c < FRAG_NCATS; c++) {
		fprintf(out, "  %-28s %14llu %10.1f %6.1f%%\n", frag_cat_name((enum frag_cat)c),
			(unsigned long long)f->cat[c], mib((double)f->cat[c]),
			share((double)f->cat[c], (double)st->resident));
		if (c == FRAG_ALLOCATED)
			fprintf(out, "    (of which %llu in thread caches, %llu jemalloc's own)\n",
				(unsigned long long)st->tcache_bytes, (unsigned long long)st->internal);
		if (c == FRAG_ALLOCATED && f->unrequested_small >= 0)
			fprintf(out, "    (of which about %lld small and %s large not requested: sizes "
				     "rounded up to their class, from sampled objects)\n",
				(long long)f->unrequested_small, large_unrequested(f, buf, sizeof(buf)));
		if (c == FRAG_LARGE_PAD && f->promoted_objects)
			fprintf(out, "    (profiling holds %llu sampled small objects in %llu-byte "
				     "extents: %llu bytes of allocated and padding)\n",
				(unsigned long long)f->promoted_objects,
				(unsigned long long)st->min_large,
				(unsigned long long)f->promoted_bytes);
	}
	fprintf(out, "  %-28s %14llu %10.1f\n", "sum", (unsigned long long)f->sum,
		mib((double)f->sum));
	fprintf(out, "  %-28s %14llu %10.1f   unexplained %lld (%.2f%%)\n", "resident (jemalloc)",
		(unsigned long long)st->resident, mib((double)st->resident),
		(long long)f->unexplained, share((double)f->unexplained, (double)st->resident));
	fprintf(out, "  active %llu = allocated + free regions + tails + padding %s %lld\n",
		(unsigned long long)st->active, f->active_gap ? "off by" : "exactly, off by",
		(long long)f->active_gap);
	fprintf(out, "  not resident: muzzy %llu (MADV_FREE'd), retained %llu (address space "
		     "only); mapped %llu\n",
		(unsigned long long)f->muzzy, (unsigned long long)st->retained,
		(unsigned long long)st->mapped);
	fprintf(out, "  as Redis' INFO counts it: allocator_frag_bytes (active - allocated) %lld, "
		     "allocator_rss_bytes (resident - active) %lld\n",
		(long long)(st->active - st->allocated), (long long)(st->resident - st->active));
}

static void classes(FILE *out, const struct frag_report *f)
{
	if (!f->nclasses)
		return;
	fprintf(out, "  worst size classes (small bins, by bytes in free regions and tails):\n");
	fprintf(out, "  %5s %8s %6s %10s %8s %8s %6s %12s %s\n", "bin", "size", "regs", "live",
		"slabs", "nonfull", "util", "wasted", "unrequested");
	for (size_t i = 0; i < f->nclasses && i < TEXT_CLASSES; i++) {
		const struct frag_class *c = &f->classes[i];
		const struct frag_bin *b = c->bin;
		char req[64] = "?";
		if (c->req_waste >= 0)
			snprintf(req, sizeof(req), "%lld (%.0f%%)", (long long)c->req_waste,
				 100 * c->req_frag);
		fprintf(out, "  %5u %8llu %6llu %10llu %8llu %8llu %5.0f%% %12llu %s\n", b->index,
			(unsigned long long)b->size, (unsigned long long)b->nregs,
			(unsigned long long)b->curregs, (unsigned long long)b->curslabs,
			(unsigned long long)b->nonfull_slabs, 100 * c->util,
			(unsigned long long)c->wasted, req);
	}
	if (f->nclasses > TEXT_CLASSES)
		fprintf(out, "  (%zu more classes in --json)\n", f->nclasses - TEXT_CLASSES);
}

static void prof_stats_line(FILE *out, const struct act_result *r)
{
	int ps = r->out.frag.prof_stats;
	if (ps < 0)
		fprintf(out, "  requested vs usable per class: this jemalloc has no opt.prof_stats "
			     "(it came in 5.3.0, and needs a build with profiling)\n");
	else if (!ps || !r->out.frag.report->st.prof_stats)
		fprintf(out, "  requested vs usable per class: opt.prof_stats is off (start with "
			     "MALLOC_CONF=prof:true,prof_stats:true to see it)\n");
	else if (!r->out.frag.report->st.prof_small_live)
		fprintf(out, "  requested vs usable per class: opt.prof_stats is on, but no sampled "
			     "small object is live (is profiling active? --activate)\n");
	else
		fprintf(out, "  unrequested: usable bytes not asked for, from sampled objects "
			     "(opt.prof_stats), scaled to the class\n");
}

/* A stack's last TEXT_FRAMES frames (the allocating end), escaped: the
 * JSON has it whole. */
static void stack_tail(const char *stack, char *buf, size_t len)
{
	const char *p = stack + strlen(stack);
	int frames = 0;
	while (p > stack && frames < TEXT_FRAMES)
		if (*--p == ';')
			frames++;
	if (*p == ';')
		p++;
	char tmp[1200];
	snprintf(tmp, sizeof(tmp), "%s%s", p > stack ? "...;" : "", p);
	core_text_escape(tmp, buf, len);
}

/* Up to TEXT_SITES sites of class bin, under the heading head; 0 if none. */
static int sites_of(FILE *out, const struct frag_sites *s, int bin, const char *head)
{
	char safe[1200];
	int shown = 0;
	for (size_t k = 0; k < s->n && shown < TEXT_SITES; k++) {
		if (s->v[k].bin != bin)
			continue;
		if (!shown++)
			fprintf(out, "    %s:\n", head);
		stack_tail(s->v[k].stack, safe, sizeof(safe));
		fprintf(out, "      %12.0f B %10.0f obj  %s\n", s->v[k].bytes, s->v[k].objects, safe);
	}
	return shown;
}

/* The largest stacks whatever their class: a heap profile keeps one count
 * per stack, not per size, so a stack allocating several sizes (a
 * server's one path for every value) shows only its average. */
static void largest(FILE *out, const struct frag_report *f)
{
	const struct frag_sites *s = f->sites;
	char safe[1200];
	fprintf(out, "    the largest stacks (average size, its class):\n");
	for (size_t k = 0; k < s->n && k < TEXT_SITES; k++) {
		const struct frag_site *v = &s->v[k];
		char cls[32] = "large";
		if (v->bin >= 0)
			snprintf(cls, sizeof(cls), "%llu B",
				 (unsigned long long)f->st.bins[v->bin].size);
		stack_tail(v->stack, safe, sizeof(safe));
		fprintf(out, "      %12.0f B %10.0f obj  avg %.0f B (%s)  %s\n", v->bytes, v->objects,
			v->bytes / v->objects, cls, safe);
	}
}

/* The sites behind the worst classes, then the largest stacks. */
static void sites(FILE *out, const struct frag_report *f)
{
	const struct frag_sites *s = f->sites;
	char head[96];
	fprintf(out, "  sites that fill the worst classes (%s, un-sampled; a stack's average "
		     "size picks its class):\n", s->source);
	/* The classes no stack averages, said once: on a healthy process
	 * that is most of them, and a line each only repeated it. */
	char none[TEXT_CLASSES * 24] = "";
	size_t k = f->nclasses < TEXT_CLASSES ? f->nclasses : TEXT_CLASSES, nnone = 0;
	for (size_t i = 0; i < k; i++) {
		unsigned long long size = (unsigned long long)f->classes[i].bin->size;
		snprintf(head, sizeof(head), "%llu B", size);
		if (!sites_of(out, s, (int)f->classes[i].bin->index, head)) {
			size_t used = strlen(none);
			snprintf(none + used, sizeof(none) - used, "%s%s", nnone++ ? ", " : "", head);
		}
	}
	if (nnone)
		fprintf(out, "    no stack averages %s (%s may come from stacks of mixed sizes: "
			     "see the largest stacks)\n",
			none, nnone > 1 ? "their objects" : "its objects");
	largest(out, f);
}

/* An advice's text, its "-p PID" made this target's pid (frag_model.c
 * writes the commands without one). */
static void advice_line(FILE *out, const char *text, int pid)
{
	fputs("  advice: ", out);
	for (const char *p = text, *q; *p; p = q + 6) {
		if (!(q = strstr(p, "-p PID"))) {
			fputs(p, out);
			break;
		}
		fprintf(out, "%.*s-p %d", (int)(q - p), p, pid);
	}
	fputc('\n', out);
}

void cli_frag_text(FILE *out, const struct act_result *r, int pid)
{
	const struct frag_report *f = r->out.frag.report;
	char ver[sizeof(f->st.version) * 4];
	core_text_escape(f->st.version, ver, sizeof(ver));
	fprintf(out, "  jemalloc %s, page %llu, background threads %llu, dirty_decay_ms %lld\n",
		ver, (unsigned long long)f->st.page, (unsigned long long)f->st.bg_threads,
		(long long)f->st.dirty_decay_ms);
	categories(out, f);
	classes(out, f);
	prof_stats_line(out, r);
	for (size_t i = 0; i < f->nadvice; i++)
		advice_line(out, f->advice[i].text, pid);
	if (!f->nadvice)
		fprintf(out, "  advice: none; no category is large enough to act on\n");
	if (f->sites)
		sites(out, f);
}
