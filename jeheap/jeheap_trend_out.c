/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap trend's text and JSON: the stacks ranked (steady growth first,
 * by slope), each with its rate, its fit and its verdict, and the total.
 * Rates are per minute in the text (a leak is read in MiB/min), per
 * second in JSON (for scripts, not rounded). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include "core_json.h"
#include "jeheap_trend.h"

static const char *const verdicts[] = { "likely leak", "no steady trend", "shrinking" };
static const char *const verdict_keys[] = { "likely_leak", "no_steady_trend", "shrinking" };
static const char *const metric_names[] = { "inuse_space", "inuse_objects", "alloc_space",
					    "alloc_objects" };

/* v in B, KiB, MiB... (objects as a count), one decimal; sign: a "+"
 * before a positive value too. */
static const char *human(double v, int objects, int sign, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double a = fabs(v);
	size_t u = 0;
	/* Rounding noise of a flat line is not "-0.0 B". */
	if (a < 0.05)
		v = a = 0;
	while (!objects && a >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		a /= 1024;
		u++;
	}
	snprintf(buf, len, "%s%.1f %s", v < 0 ? "-" : sign ? "+" : "", a,
		 objects ? "objects" : units[u]);
	return buf;
}

/* "leaf <- caller <- ...", the first max frames. */
static void print_frames(FILE *out, const struct jeheap_trend_stack *s, size_t max)
{
	for (size_t i = 0; i < s->nframes && i < max; i++)
		fprintf(out, "%s%s", i ? " <- " : "", s->frames[i]);
	if (s->nframes > max)
		fputs(" <- ...", out);
}

static void print_row(FILE *out, const struct jeheap_trend_stack *s, size_t nd, int objects)
{
	char rate[40], r[48], a[32], b[32];
	snprintf(r, sizeof(r), "%s/min", human(s->slope * 60, objects, 1, rate, sizeof(rate)));
	fprintf(out, "%16s  fit %.2f  %-15s  %11s -> %-11s", r, s->fit, verdicts[s->verdict],
		human(s->values[0], objects, 0, a, sizeof(a)),
		human(s->values[nd - 1], objects, 0, b, sizeof(b)));
}

void print_trend_text(FILE *out, const jeheap_trend *t, int metric, long top)
{
	size_t nd = jeheap_trend_dump_count(t), n = jeheap_trend_count(t);
	double span = jeheap_trend_dump_time(t, nd - 1) - jeheap_trend_dump_time(t, 0);
	int objects = metric % 2;
	fprintf(out, "Trend of %s over %zu dumps in %.1f %s; %zu stacks, ranked: steady growth "
		     "first, by rate\n",
		metric_names[metric], nd, span < 120 ? span : span < 7200 ? span / 60 : span / 3600,
		span < 120 ? "s" : span < 7200 ? "min" : "h", n);
	print_row(out, jeheap_trend_total(t), nd, objects);
	fputs("  total\n", out);
	for (size_t i = 0; i < n && (long)i < top; i++) {
		const struct jeheap_trend_stack *s = jeheap_trend_stack(t, i);
		print_row(out, s, nd, objects);
		fputs("  ", out);
		print_frames(out, s, 6);
		fputc('\n', out);
	}
}

static void json_line(FILE *out, const struct jeheap_trend_stack *s, size_t nd)
{
	fputs("\"values\":[", out);
	for (size_t k = 0; k < nd; k++)
		fprintf(out, "%s%.17g", k ? "," : "", s->values[k]);
	fprintf(out, "],\"slope_per_second\":%.17g,\"fit\":%.17g,\"verdict\":\"%s\"", s->slope,
		s->fit, verdict_keys[s->verdict]);
}

static void json_dumps(FILE *out, const jeheap_trend *t, const struct trend_dumps *td)
{
	static const char *const sources[] = { "given", "stamp", "file_mtime" };
	size_t nd = jeheap_trend_dump_count(t);
	fputs("\"dumps\":[", out);
	for (size_t k = 0; k < nd; k++) {
		size_t g = jeheap_trend_dump_given(t, k);
		fprintf(out, "%s{\"file\":", k ? "," : "");
		core_json_put_string(out, td->d[g].name);
		fprintf(out, ",\"time\":%.17g,\"time_source\":\"%s\"}", jeheap_trend_dump_time(t, k),
			sources[td->source[g] >= 0 && td->source[g] <= 2 ? td->source[g] : 0]);
	}
	fputs("]", out);
}

void print_trend_json(FILE *out, const jeheap_trend *t, const struct trend_dumps *td,
		      const struct args *a)
{
	static const char *const rows[] = { "functions", "lines", "addresses" };
	size_t nd = jeheap_trend_dump_count(t), n = jeheap_trend_count(t);
	fprintf(out, "{\"metric\":\"%s\",\"unit\":\"%s\",\"rows\":\"%s\",\"min_fit\":%.6g,",
		metric_names[a->q.metric], a->q.metric % 2 ? "objects" : "bytes",
		rows[a->q.granularity], a->trend.min_fit);
	json_dumps(out, t, td);
	fputs(",\"total\":{", out);
	json_line(out, jeheap_trend_total(t), nd);
	fputs("},\"stacks\":[", out);
	for (size_t i = 0; i < n && (!a->trend.top || (long)i < a->trend.top); i++) {
		const struct jeheap_trend_stack *s = jeheap_trend_stack(t, i);
		fprintf(out, "%s{\"rank\":%zu,\"frames\":[", i ? "," : "", i + 1);
		for (size_t f = 0; f < s->nframes; f++) {
			fputs(f ? "," : "", out);
			core_json_put_string(out, s->frames[f]);
		}
		fputs("],", out);
		json_line(out, s, nd);
		fputc('}', out);
	}
	fputs("]}\n", out);
}
