/* SPDX-License-Identifier: BSD-2-Clause */
/* --frag as JSON (doc/json.md, "frag"): every figure in bytes, the
 * classes worst first, the advice as kinds and sentences. */
#include "config.h"

#include <stdio.h>
#include "cli_frag.h"
#include "core_json.h"

static void categories(FILE *out, const struct frag_report *f)
{
	fputs("\"categories\":[", out);
	for (int c = 0; c < FRAG_NCATS; c++)
		fprintf(out, "%s{\"name\":\"%s\",\"bytes\":%llu}", c ? "," : "",
			frag_cat_name((enum frag_cat)c), (unsigned long long)f->cat[c]);
	const struct frag_stats *st = &f->st;
	fprintf(out,
		"],\"sum\":%llu,\"resident\":%llu,\"unexplained\":%lld,\"active\":%llu,"
		"\"active_gap\":%lld,\"allocated\":%llu,\"tcache_bytes\":%llu,\"internal\":%llu,"
		"\"muzzy\":%llu,\"retained\":%llu,\"mapped\":%llu,\"metadata\":%llu,",
		(unsigned long long)f->sum, (unsigned long long)st->resident,
		(long long)f->unexplained, (unsigned long long)st->active, (long long)f->active_gap,
		(unsigned long long)st->allocated, (unsigned long long)st->tcache_bytes,
		(unsigned long long)st->internal, (unsigned long long)f->muzzy,
		(unsigned long long)st->retained, (unsigned long long)st->mapped,
		(unsigned long long)st->metadata);
}

static void classes(FILE *out, const struct frag_report *f)
{
	fputs("\"classes\":[", out);
	for (size_t i = 0; i < f->nclasses; i++) {
		const struct frag_class *c = &f->classes[i];
		const struct frag_bin *b = c->bin;
		fprintf(out,
			"%s{\"bin\":%u,\"size\":%llu,\"nregs\":%llu,\"slab_size\":%llu,"
			"\"curregs\":%llu,\"curslabs\":%llu,\"nonfull_slabs\":%llu,\"util\":%.4f,"
			"\"wasted\":%llu,",
			i ? "," : "", b->index, (unsigned long long)b->size,
			(unsigned long long)b->nregs, (unsigned long long)b->slab_size,
			(unsigned long long)b->curregs, (unsigned long long)b->curslabs,
			(unsigned long long)b->nonfull_slabs, c->util, (unsigned long long)c->wasted);
		if (c->req_waste >= 0)
			fprintf(out, "\"unrequested\":%lld,\"unrequested_share\":%.4f}",
				(long long)c->req_waste, c->req_frag);
		else
			fputs("\"unrequested\":null,\"unrequested_share\":null}", out);
	}
	fputs("],", out);
}

static void advice(FILE *out, const struct frag_report *f)
{
	static const char *const kinds[] = {
		[FRAG_ADV_PURGE] = "purge",           [FRAG_ADV_BACKGROUND] = "background_thread",
		[FRAG_ADV_NO_DECAY] = "no_decay",     [FRAG_ADV_SMALL] = "small_classes",
		[FRAG_ADV_LARGE_PAD] = "large_padding", [FRAG_ADV_MUZZY] = "muzzy",
	};
	fputs("\"advice\":[", out);
	for (size_t i = 0; i < f->nadvice; i++) {
		fprintf(out, "%s{\"kind\":\"%s\",\"text\":", i ? "," : "", kinds[f->advice[i].kind]);
		core_json_put_string(out, f->advice[i].text);
		fputc('}', out);
	}
	fputc(']', out);
}

static void sites(FILE *out, const struct frag_sites *s)
{
	fputs(",\"sites\":", out);
	if (!s) {
		fputs("null", out);
		return;
	}
	fputs("{\"profile\":", out);
	core_json_put_string(out, s->source);
	fprintf(out, ",\"past_small_classes_bytes\":%.0f,\"stacks\":[", s->unmapped_bytes);
	for (size_t i = 0; i < s->n; i++) {
		fputs(i ? ",{\"bin\":" : "{\"bin\":", out);
		if (s->v[i].bin < 0)
			fputs("null", out);
		else
			fprintf(out, "%d", s->v[i].bin);
		fprintf(out, ",\"bytes\":%.0f,\"objects\":%.0f,\"stack\":", s->v[i].bytes,
			s->v[i].objects);
		core_json_put_string(out, s->v[i].stack);
		fputc('}', out);
	}
	fputs("]}", out);
}

void cli_frag_json(FILE *out, const struct act_result *r)
{
	const struct frag_report *f = r->out.frag.report;
	fputs("{\"version\":", out);
	core_json_put_string(out, f->st.version);
	fprintf(out, ",\"page\":%llu,", (unsigned long long)f->st.page);
	categories(out, f);
	static const char *const tri[] = { "null", "false", "true" };
	fprintf(out, "\"prof_stats\":%s,\"background_thread\":%s,\"background_threads\":%llu,"
		     "\"dirty_decay_ms\":%lld,\"muzzy_decay_ms\":%lld,",
		tri[r->out.frag.prof_stats + 1], tri[r->out.frag.background + 1],
		(unsigned long long)f->st.bg_threads, (long long)f->st.dirty_decay_ms,
		(long long)f->st.muzzy_decay_ms);
	if (f->unrequested_small >= 0)
		fprintf(out, "\"unrequested_small\":%lld,", (long long)f->unrequested_small);
	else
		fputs("\"unrequested_small\":null,", out);
	if (f->unrequested_large >= 0)
		fprintf(out, "\"unrequested_large\":%lld,", (long long)f->unrequested_large);
	else
		fputs("\"unrequested_large\":null,", out);
	if (f->st.prof_stats)
		fprintf(out, "\"promoted_objects\":%llu,\"promoted_bytes\":%llu,",
			(unsigned long long)f->promoted_objects,
			(unsigned long long)f->promoted_bytes);
	else
		fputs("\"promoted_objects\":null,\"promoted_bytes\":null,", out);
	classes(out, f);
	advice(out, f);
	sites(out, f->sites);
	fputc('}', out);
}
