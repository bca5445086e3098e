/* SPDX-License-Identifier: BSD-2-Clause */
/* A trend's chart: the total and the first stacks by rank over time, one
 * line each, on axes with units, a legend naming each line with its slope
 * and fit. A reader sees a line climbing faster than reading numbers.
 * Self-contained SVG; every name from a profile goes through jh_xml_text,
 * so any bytes leave the document well-formed. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include "jh_flame.h"
#include "jh_trend.h"
#include "jh_xml.h"

#define WIDTH 960.0
#define LEFT 90.0    /* the y axis' labels */
#define RIGHT 940.0
#define TOP 60.0     /* the title above the plot */
#define BOTTOM 380.0 /* the x axis' labels below it */
#define LEGEND 440.0 /* the first legend line */
#define LINE 20.0    /* between legend lines */
#define FRAMES 4     /* frames of a stack named in the legend */

static const char *const colours[] = { "#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd",
				       "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f" };

/* A scale: [lo, hi] mapped onto [from, to] pixels, ticks every step. */
struct axis {
	double lo, hi, step, unit; /* unit: what a label's number counts */
	double from, to;
};

static double px(const struct axis *a, double v)
{
	return a->from + (v - a->lo) / (a->hi - a->lo) * (a->to - a->from);
}

/* A tick step of 1, 2 or 5 times a power of ten, for four to six ticks of
 * span (in units). A fifth of the span made a series a little longer than
 * ten minutes step by 5 and run its axis to 15 (issue 33, item 9); a sixth
 * keeps the axis end within a step of the last dump's. */
static double nice_step(double span)
{
	double raw = span / 6, mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

/* The axis over [lo, hi] in units of unit, widened to whole ticks. */
static void make_axis(struct axis *a, double lo, double hi, double unit, double from, double to)
{
	if (!(hi > lo))
		hi = lo + unit;
	a->unit = unit;
	a->step = nice_step((hi - lo) / unit) * unit;
	a->lo = floor(lo / a->step) * a->step;
	a->hi = ceil(hi / a->step) * a->step;
	a->from = from;
	a->to = to;
}

/* The values' unit: bytes in powers of 1024 (KiB, ...) up to what the
 * largest holds, objects as they are. */
static double value_unit(double max, int objects, const char **name)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t u = 0;
	double unit = 1;
	while (!objects && max >= unit * 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		unit *= 1024;
		u++;
	}
	*name = objects ? "objects" : units[u];
	return unit;
}

/* Time since the first dump in seconds, minutes or hours. */
static double time_unit(double span, const char **name)
{
	*name = span < 180 ? "seconds" : span < 3 * 3600 ? "minutes" : "hours";
	return span < 180 ? 1 : span < 3 * 3600 ? 60 : 3600;
}

static void axes(FILE *out, const struct axis *x, const struct axis *y, const char *xname,
		 const char *yname)
{
	fprintf(out, "<g stroke=\"#ccc\" font-size=\"11\" fill=\"#333\">\n");
	/* Counted ticks: a step lost in rounding must not loop for ever. */
	for (int k = 0; k <= 20 && y->lo + k * y->step <= y->hi + y->step / 2; k++) {
		double v = y->lo + k * y->step;
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" stroke=\"none\">%g</text>\n",
			LEFT, RIGHT, px(y, v), px(y, v), LEFT - 6, px(y, v) + 4, v / y->unit);
	}
	for (int k = 0; k <= 20 && x->lo + k * x->step <= x->hi + x->step / 2; k++) {
		double v = x->lo + k * x->step;
		fprintf(out, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" stroke=\"none\">%g</text>\n",
			px(x, v), px(x, v), TOP, BOTTOM, px(x, v), BOTTOM + 16, v / x->unit);
	}
	fprintf(out, "</g>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"12\">"
		"%s since the first dump</text>\n", (LEFT + RIGHT) / 2, BOTTOM + 36, xname);
	fprintf(out, "<text x=\"20\" y=\"%.1f\" font-size=\"12\" transform=\"rotate(-90 20 %.1f)\" "
		"text-anchor=\"middle\">%s</text>\n", (TOP + BOTTOM) / 2, (TOP + BOTTOM) / 2, yname);
}

/* "+1.50 MiB/min, fit 0.98, likely leak" */
static void rate(FILE *out, const struct jeheap_trend_stack *s, int objects)
{
	static const char *const verdicts[] = { "likely leak", "no steady trend",
						"shrinking" };
	char buf[64];
	double per_min = s->slope * 60;
	/* Rounding noise of a flat line is not "-0 B/min". */
	if (fabs(per_min) < 0.5)
		per_min = 0;
	fprintf(out, "%s/min, fit %.2f, %s", jh_flame_human(per_min, objects, 1, buf, sizeof(buf)),
		s->fit, verdicts[s->verdict]);
}

/* The stack's first frames, "leaf <- caller <- ...". */
static void stack_name(FILE *out, const struct jeheap_trend_stack *s, size_t max_frames)
{
	for (size_t i = 0; i < s->nframes && i < max_frames; i++) {
		fputs(i ? " &lt;- " : "", out);
		jh_xml_text(out, s->frames[i], 80);
	}
	if (s->nframes > max_frames)
		fputs(" &lt;- ...", out);
}

/* One series: its line, a dot per dump, its full name as a tooltip; and
 * its legend line (k: its place in the legend). */
static void series(FILE *out, const jeheap_trend *t, const struct jeheap_trend_stack *s,
		   const struct axis *x, const struct axis *y, size_t k, const char *colour)
{
	int objects = t->metric % 2;
	double width = s->frames ? 1.5 : 2.5;
	fprintf(out, "<g><title>");
	if (s->frames)
		stack_name(out, s, SIZE_MAX);
	else
		fputs("total", out);
	fprintf(out, "</title>\n<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
		"points=\"", colour, width);
	for (size_t i = 0; i < t->ndumps; i++)
		fprintf(out, "%s%.1f,%.1f", i ? " " : "", px(x, t->times[i] - t->times[0]),
			px(y, s->values[i]));
	fputs("\"/>\n", out);
	for (size_t i = 0; i < t->ndumps; i++)
		fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>",
			px(x, t->times[i] - t->times[0]), px(y, s->values[i]), colour);
	double ly = LEGEND + (double)k * LINE;
	fprintf(out, "\n<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		"stroke-width=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">",
		LEFT, LEFT + 24, ly - 4, ly - 4, colour, width, LEFT + 32, ly);
	fputs(s->frames ? "" : "total: ", out);
	rate(out, s, objects);
	if (s->frames) {
		fputs(": ", out);
		stack_name(out, s, FRAMES);
	}
	fputs("</text></g>\n", out);
}

/* The range of the values drawn: the total and the first n stacks. */
static void value_range(const jeheap_trend *t, size_t n, double *lo, double *hi)
{
	*lo = 0;
	*hi = 0;
	for (size_t r = 0; r <= n; r++) {
		const double *v = r ? t->rows[r - 1].pub.values : t->total.values;
		for (size_t i = 0; i < t->ndumps; i++) {
			*lo = fmin(*lo, v[i]);
			*hi = fmax(*hi, v[i]);
		}
	}
}

JH_EXPORT int jeheap_trend_svg(const jeheap_trend *t, size_t top, const char *title, FILE *out)
{
	static const char *const metrics[] = { "inuse_space", "inuse_objects", "alloc_space",
					       "alloc_objects" };
	if (!t || !out)
		return JEHEAP_EINVAL;
	size_t n = top < t->nrows ? top : t->nrows;
	double lo, hi, span = t->times[t->ndumps - 1] - t->times[0];
	const char *xname, *yname;
	value_range(t, n, &lo, &hi);
	struct axis x, y;
	make_axis(&x, 0, span, time_unit(span, &xname), LEFT, RIGHT);
	make_axis(&y, lo, hi, value_unit(fmax(fabs(lo), hi), t->metric % 2, &yname), BOTTOM, TOP);
	double height = LEGEND + (double)(n + 1) * LINE;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
		"height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"Verdana, sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		"<text x=\"%.1f\" y=\"24\" text-anchor=\"middle\" font-size=\"17\">",
		WIDTH, height, WIDTH, height, WIDTH / 2);
	if (title)
		jh_xml_text(out, title, SIZE_MAX);
	else
		fprintf(out, "Heap trend: %s over %zu dumps", metrics[t->metric], t->ndumps);
	fprintf(out, "</text>\n<text x=\"%.1f\" y=\"44\" text-anchor=\"middle\" "
		"font-size=\"12\" fill=\"#555\">the total and the first %zu of %zu stacks: "
		"steady growth first, by rate</text>\n", WIDTH / 2, n, t->nrows);
	axes(out, &x, &y, xname, metrics[t->metric]);
	fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">%s</text>\n", LEFT,
		TOP - 6, yname);
	series(out, t, &t->total, &x, &y, 0, "#000");
	for (size_t r = 0; r < n; r++)
		series(out, t, &t->rows[r].pub, &x, &y, r + 1,
		       colours[r % (sizeof(colours) / sizeof(colours[0]))]);
	fputs("</svg>\n", out);
	return ferror(out) ? JEHEAP_EIO : 0;
}
