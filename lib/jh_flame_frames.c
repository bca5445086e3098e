/* SPDX-License-Identifier: BSD-2-Clause */
/* The frames of a flame graph: a <g> per node of the tree with its tooltip
 * (<title>), its box and its label, depth first. Each carries what the
 * script needs to lay it out again after a zoom and to search: its place
 * and width at full size (data-x, data-w), its value (data-v) and its
 * whole name (data-n). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jh_flame.h"
#include "jh_xml.h"

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
 * blue for shrinking, saturation by the share of the largest change; no
 * change is white. */
static void diff_color(double delta, double maxd, int *r, int *g, int *b)
{
	double share = maxd > 0 ? fabs(delta) / maxd : 0;
	int v = share >= 0 && share <= 1 ? (int)(210 * share) : 0; /* not NaN, not beyond */
	*r = delta > 0 ? 255 : 255 - v;
	*g = 255 - v;
	*b = delta < 0 ? 255 : 255 - v;
}

/* "name (1.50 MiB, 12.34%)", with a base "...; +1.00 MiB since the base,
 * +512 KiB in itself)". */
static void tooltip(FILE *out, const char *name, const struct jh_flame_node *n,
		    const struct jh_flame_style *st)
{
	char a[64], b[64], c[64];
	jh_xml_text(out, name, SIZE_MAX);
	fprintf(out, " (%s, %.2f%%", jh_flame_human(n->value, st->objects, 0, a, sizeof(a)),
		100.0 * n->value / st->total);
	if (st->maxd > 0)
		fprintf(out, "; %s since the base, %s in itself",
			jh_flame_human(n->delta, st->objects, 1, b, sizeof(b)),
			jh_flame_human(n->own, st->objects, 1, c, sizeof(c)));
	fputc(')', out);
}

/* What fits of the name in w px, as flamegraph.pl cuts it: all of it, or
 * its start and "..", or nothing. Counted in characters, never cutting one
 * in two (the script does the same after a zoom). */
static void label(FILE *out, const char *name, double w)
{
	size_t fit = w > 20 ? (size_t)((w - 6) / JH_FLAME_CHAR) : 0;
	if (fit >= jh_xml_chars(name)) {
		jh_xml_text(out, name, SIZE_MAX);
	} else if (fit > 2) {
		jh_xml_text(out, name, fit - 2);
		fputs("..", out);
	}
}

/* A node to draw: where and at which depth. */
struct pending {
	uint32_t id;
	int level;
	double x;
};

/* Draw one node; 0 if it is too narrow to see (then neither are its
 * children: flamegraph.pl's minwidth). */
static int draw(FILE *out, const struct jh_flame_tree *t, const struct pending *p,
		const struct jh_flame_style *st)
{
	const struct jh_flame_node *n = &t->v[p->id];
	double x = p->x, w = n->value / st->total * JH_FLAME_WIDTH;
	if (!(w >= 0.1))
		return 0;
	const char *name = jh_flame_name(t, p->id);
	int r, g, b;
	if (st->maxd > 0)
		diff_color(n->own, st->maxd, &r, &g, &b);
	else
		color(name, &r, &g, &b);
	int row = st->inverted ? p->level : st->levels - p->level - 1;
	double y = st->top + (double)row * JH_FLAME_ROW;
	fprintf(out, "<g class=\"f\" data-x=\"%.3f\" data-w=\"%.3f\" data-v=\"%.17g\" data-n=\"", x,
		w, n->value);
	jh_xml_text(out, name, SIZE_MAX);
	fputs("\"><title>", out);
	tooltip(out, name, n, st);
	fprintf(out, "</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%d\" "
		     "fill=\"rgb(%d,%d,%d)\" rx=\"2\"/><text x=\"%.3f\" y=\"%.1f\">",
		x, y, w, JH_FLAME_ROW - 1, r, g, b, x + 3, y + JH_FLAME_ROW - 4);
	label(out, name, w);
	fputs("</text></g>\n", out);
	return 1;
}

struct kid {
	const char *name;
	uint32_t id;
};

static int cmp_kids(const void *a, const void *b)
{
	return strcmp(((const struct kid *)a)->name, ((const struct kid *)b)->name);
}

/* Push p's children, sorted by name, so that the first is drawn next; each
 * starts where its elder siblings end. */
static int push_kids(const struct jh_flame_tree *t, const struct pending *p,
		     const struct jh_flame_style *st, struct pending **stack, size_t *n,
		     size_t *cap)
{
	size_t nk = 0;
	for (uint32_t k = t->v[p->id].kid; k; k = t->v[k].sib)
		nk++;
	if (!nk)
		return 0;
	struct kid *kids = malloc(nk * sizeof(*kids));
	if (!kids || jh_grow((void **)stack, cap, *n + nk, sizeof(**stack))) {
		free(kids);
		return JEHEAP_ENOMEM;
	}
	nk = 0;
	for (uint32_t k = t->v[p->id].kid; k; k = t->v[k].sib)
		kids[nk++] = (struct kid){ jh_flame_name(t, k), k };
	qsort(kids, nk, sizeof(*kids), cmp_kids);
	double cx = p->x;
	for (size_t i = 0; i < nk; i++) {
		(*stack)[*n + nk - 1 - i] = (struct pending){ kids[i].id, p->level + 1, cx };
		cx += t->v[kids[i].id].value / st->total * JH_FLAME_WIDTH;
	}
	*n += nk;
	free(kids);
	return 0;
}

/* The tree, depth first, parents before children: with an explicit stack,
 * not the C stack, whose depth would be the profile's (a crafted stack of
 * 100,000 frames overflowed it). */
int jh_flame_frames(FILE *out, const struct jh_flame_tree *t, const struct jh_flame_style *st)
{
	struct pending *stack = NULL;
	size_t n = 0, cap = 0;
	int rc = jh_grow((void **)&stack, &cap, 1, sizeof(*stack));
	if (!rc)
		stack[n++] = (struct pending){ 0, 0, 0 };
	while (!rc && n) {
		struct pending p = stack[--n];
		if (draw(out, t, &p, st))
			rc = push_kids(t, &p, st, &stack, &n, &cap);
	}
	free(stack);
	return rc;
}
