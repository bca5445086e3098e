/* SPDX-License-Identifier: BSD-2-Clause */
/* A self-contained flame graph (SVG with a little JavaScript: click a frame
 * to zoom into it, click the root to zoom out; hover for the full name and
 * value), built from the collapsed stacks: no Perl, no graphviz.
 * With a base it is a differential flame graph, as Brendan Gregg's
 * difffolded.pl + flamegraph.pl draw one: widths are the current profile,
 * colour is the change since the base (red grew, blue shrank, the deeper
 * the more; white unchanged). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jh_internal.h"

struct node {
	char *name;
	double value;
	double delta; /* value minus the base's, for a differential graph */
	struct node **kids;
	size_t nkids, cap;
};

static struct node *child(struct node *n, const char *name, size_t len)
{
	for (size_t i = 0; i < n->nkids; i++)
		if (strlen(n->kids[i]->name) == len && !strncmp(n->kids[i]->name, name, len))
			return n->kids[i];
	if (n->nkids == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;
		struct node **k = realloc(n->kids, cap * sizeof(*k));
		if (!k)
			return NULL;
		n->kids = k;
		n->cap = cap;
	}
	struct node *c = calloc(1, sizeof(*c));
	if (!c || !(c->name = strndup(name, len))) {
		free(c);
		return NULL;
	}
	n->kids[n->nkids++] = c;
	return c;
}

static int add(const char *stack, double value, double base, void *arg)
{
	struct node *n = arg;
	if (value <= 0)
		return 0; /* a flame graph shows what is there */
	n->value += value;
	n->delta += value - base;
	for (const char *p = stack; *p;) {
		size_t len = strcspn(p, ";");
		if (!(n = child(n, p, len)))
			return JEHEAP_ENOMEM;
		n->value += value;
		n->delta += value - base;
		p += len + (p[len] == ';');
	}
	return 0;
}

static double max_delta(const struct node *n)
{
	double m = fabs(n->delta);
	for (size_t i = 0; i < n->nkids; i++) {
		double k = max_delta(n->kids[i]);
		if (k > m)
			m = k;
	}
	return m;
}

static void free_node(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		free_node(n->kids[i]);
	free(n->kids);
	free(n->name);
	free(n);
}

static int depth(const struct node *n)
{
	int d = 0;
	for (size_t i = 0; i < n->nkids; i++) {
		int k = depth(n->kids[i]);
		if (k > d)
			d = k;
	}
	return d + 1;
}

static void xml_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, out);
		}
	}
}

#define WIDTH 1200.0
#define ROW 16

/* Warm colours from the name, so a function keeps its colour everywhere. */
static void color(const char *name, int *r, int *g, int *b)
{
	unsigned h = 2166136261u;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	*r = 205 + (int)(h % 50);
	*g = 80 + (int)((h >> 8) % 140);
	*b = 40 + (int)((h >> 16) % 50);
}

/* flamegraph.pl's --negate-free colouring of a difference: red for growth,
 * blue for shrinking, saturation by the share of the largest change. */
static void diff_color(double delta, double maxd, int *r, int *g, int *b)
{
	int v = maxd > 0 ? (int)(210 * fabs(delta) / maxd) : 0;
	*r = delta > 0 ? 255 : 255 - v;
	*g = 255 - v;
	*b = delta < 0 ? 255 : 255 - v;
}

struct style {
	double total, maxd; /* maxd > 0: differential */
	const char *unit;
	int levels;
};

static void emit(FILE *out, const struct node *n, double x, int level, const struct style *st)
{
	double total = st->total;
	double w = n->value / total * WIDTH;
	if (w < 0.1)
		return; /* invisible: flamegraph.pl's minwidth */
	int r, g, b;
	if (st->maxd > 0)
		diff_color(n->delta, st->maxd, &r, &g, &b);
	else
		color(n->name, &r, &g, &b);
	const char *unit = st->unit;
	int levels = st->levels;
	double y = (levels - level - 1) * ROW;
	fprintf(out, "<g class=\"f\" data-x=\"%.3f\" data-w=\"%.3f\"><title>", x, w);
	xml_text(out, n->name);
	fprintf(out, " (%.0f %s, %.2f%%", n->value, unit, 100.0 * n->value / total);
	if (st->maxd > 0)
		fprintf(out, "; %+.0f %s since the base", n->delta, unit);
	fprintf(out, ")</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" "
		     "height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/><text x=\"%.3f\" y=\"%.1f\">",
		x, y, w, ROW - 1, r, g, b, x + 3, y + ROW - 4);
	/* About 7 px a character at 12 px: only what fits, like flamegraph.pl. */
	size_t fit = w > 20 ? (size_t)((w - 6) / 7) : 0, len = strlen(n->name);
	if (fit >= len) {
		xml_text(out, n->name);
	} else if (fit > 2) {
		char *cut = strndup(n->name, fit - 2);
		if (cut) {
			xml_text(out, cut);
			fputs("..", out);
			free(cut);
		}
	}
	fputs("</text></g>\n", out);
	double cx = x;
	for (size_t i = 0; i < n->nkids; i++) {
		emit(out, n->kids[i], cx, level + 1, st);
		cx += n->kids[i]->value / total * WIDTH;
	}
}

static const char script[] =
	"<script><![CDATA[\n"
	"var W=1200;\n"
	"function zoom(x,w){for(const g of document.querySelectorAll('g.f')){"
	"var gx=+g.dataset.x,gw=+g.dataset.w,r=g.querySelector('rect'),t=g.querySelector('text');"
	"var nx=(gx-x)*W/w,nw=gw*W/w;"
	"if(gx+gw<=x+1e-6||gx>=x+w-1e-6){g.style.display='none';continue;}"
	"g.style.display='';r.setAttribute('x',Math.max(nx,0));r.setAttribute('width',Math.min(nw,W));"
	"t.setAttribute('x',Math.max(nx,0)+3);}}\n"
	"for(const g of document.querySelectorAll('g.f'))g.onclick=function(){"
	"zoom(+this.dataset.x,+this.dataset.w);};\n"
	"]]></script>\n";

JH_EXPORT int jeheap_flamegraph_svg(const jeheap_profile *p, jeheap_symbolizer *s,
				    const struct jeheap_query *q, const char *title, FILE *out)
{
	if (!p || !q || !out)
		return JEHEAP_EINVAL;
	struct node *root = calloc(1, sizeof(*root));
	if (!root || !(root->name = strdup("all"))) {
		free(root);
		return JEHEAP_ENOMEM;
	}
	int r = jeheap_collapsed(p, s, q, add, root);
	if (!r) {
		int levels = depth(root);
		const char *unit = q->metric % 2 ? "objects" : "bytes";
		double total = root->value > 0 ? root->value : 1;
		int h = levels * ROW + 40;
		/* a base with no change at all still draws as a difference */
		double maxd = q->base ? max_delta(root) : 0;
		struct style st = { total, q->base && maxd == 0 ? 1 : maxd, unit, levels };
		fprintf(out,
			"<?xml version=\"1.0\" standalone=\"no\"?>\n"
			"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 -30 %d %d\" "
			"xmlns=\"http://www.w3.org/2000/svg\" "
			"style=\"font-family:Verdana,sans-serif;font-size:12px\">\n"
			"<text x=\"0\" y=\"-12\" style=\"font-size:16px\">",
			(int)WIDTH, h, (int)WIDTH, h);
		xml_text(out, title ? title : "heap profile");
		if (q->base)
			fprintf(out, " (%.0f %s, %+.0f since the base: red grew, blue shrank; "
				     "click to zoom)</text>\n",
				root->value, unit, root->delta);
		else
			fprintf(out, " (%.0f %s; click to zoom)</text>\n", root->value, unit);
		emit(out, root, 0, 0, &st);
		fputs(script, out);
		fputs("</svg>\n", out);
		if (ferror(out))
			r = JEHEAP_EIO;
	}
	free_node(root);
	return r;
}
