/* SPDX-License-Identifier: BSD-2-Clause */
/* A self-contained flame graph (SVG with a little JavaScript: click a frame
 * to zoom into it, click the root to zoom out; hover for the full name and
 * value), built from the collapsed stacks: no Perl, no graphviz. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jh_internal.h"

struct node {
	char *name;
	double value;
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
	(void)base;
	struct node *n = arg;
	if (value <= 0)
		return 0; /* a flame graph shows what is there */
	n->value += value;
	for (const char *p = stack; *p;) {
		size_t len = strcspn(p, ";");
		if (!(n = child(n, p, len)))
			return JEHEAP_ENOMEM;
		n->value += value;
		p += len + (p[len] == ';');
	}
	return 0;
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

static void emit(FILE *out, const struct node *n, double x, int level, int levels, double total,
		 const char *unit)
{
	double w = n->value / total * WIDTH;
	if (w < 0.1)
		return; /* invisible: flamegraph.pl's minwidth */
	int r, g, b;
	color(n->name, &r, &g, &b);
	double y = (levels - level - 1) * ROW;
	fprintf(out, "<g class=\"f\" data-x=\"%.3f\" data-w=\"%.3f\"><title>", x, w);
	xml_text(out, n->name);
	fprintf(out, " (%.0f %s, %.2f%%)</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" "
		     "height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/><text x=\"%.3f\" y=\"%.1f\">",
		n->value, unit, 100.0 * n->value / total, x, y, w, ROW - 1, r, g, b, x + 3,
		y + ROW - 4);
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
		emit(out, n->kids[i], cx, level + 1, levels, total, unit);
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
	struct jeheap_query qq = *q;
	qq.base = NULL; /* a flame graph of what is there, not of a difference */
	int r = jeheap_collapsed(p, s, &qq, add, root);
	if (!r) {
		int levels = depth(root);
		const char *unit = q->metric % 2 ? "objects" : "bytes";
		double total = root->value > 0 ? root->value : 1;
		int h = levels * ROW + 40;
		fprintf(out,
			"<?xml version=\"1.0\" standalone=\"no\"?>\n"
			"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 -30 %d %d\" "
			"xmlns=\"http://www.w3.org/2000/svg\" "
			"style=\"font-family:Verdana,sans-serif;font-size:12px\">\n"
			"<text x=\"0\" y=\"-12\" style=\"font-size:16px\">",
			(int)WIDTH, h, (int)WIDTH, h);
		xml_text(out, title ? title : "heap profile");
		fprintf(out, " (%.0f %s; click to zoom)</text>\n", root->value, unit);
		emit(out, root, 0, 0, levels, total, unit);
		fputs(script, out);
		fputs("</svg>\n", out);
		if (ferror(out))
			r = JEHEAP_EIO;
	}
	free_node(root);
	return r;
}
