/* SPDX-License-Identifier: BSD-2-Clause */
/* A self-contained flame graph (SVG with a little JavaScript: click a frame
 * to zoom into it, click the root to zoom out; hover for the full name and
 * value): no Perl, no graphviz. The tree is built straight from the
 * reduced stacks (a node per distinct call path, found by (parent, frame)
 * in a hash table), children drawn in name order as flamegraph.pl does.
 * With a base it is a differential flame graph, as Brendan Gregg's
 * difffolded.pl + flamegraph.pl draw one: widths are the current profile,
 * colour is the change since the base (red grew, blue shrank, the deeper
 * the more; white unchanged): a node's change is what all the current
 * stacks through it hold minus what the base's stacks through it held. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jh_reduce.h"

struct node {
	uint32_t entry;          /* the reducer's entry id; UINT32_MAX: the root */
	uint32_t kid, sib;       /* first child, next sibling (0: none) */
	double value, delta;
};

struct tree {
	struct jh_entries names;
	struct node *v;
	size_t n, cap;
	struct jh_u64map kids; /* parent << 32 | entry -> node */
	size_t depth;
};

/* The child of node `parent` for reducer entry `entry`: created when
 * `create`, else 0 when there is none. UINT32_MAX without memory. */
static uint32_t child(struct tree *t, uint32_t parent, uint32_t entry, int create)
{
	uint64_t key = (uint64_t)parent << 32 | entry;
	if (!create) { /* the base only walks what is drawn */
		uint32_t id = jh_u64map_get(&t->kids, key);
		return id == UINT32_MAX ? 0 : id;
	}
	uint32_t *slot = jh_u64map_slot(&t->kids, key);
	if (!slot)
		return UINT32_MAX;
	if (*slot != UINT32_MAX)
		return *slot;
	if (jh_grow((void **)&t->v, &t->cap, t->n + 1, sizeof(*t->v)))
		return UINT32_MAX;
	uint32_t id = (uint32_t)t->n++;
	t->v[id] = (struct node){ entry, 0, t->v[parent].kid, 0, 0 };
	t->v[parent].kid = id;
	*slot = id;
	return id;
}

static int add_stack(void *arg, const struct jh_reduced *rs)
{
	struct tree *t = arg;
	const uint32_t *path = rs->path;
	size_t n = rs->n;
	double v = rs->value;
	int base = rs->which < 0;
	if (!base && v <= 0)
		return 0; /* a flame graph shows what is there */
	uint32_t node = 0;
	if (base)
		t->v[0].delta -= v;
	else {
		t->v[0].value += v;
		t->v[0].delta += v;
	}
	for (size_t i = n; i-- > 0;) { /* root first */
		uint32_t k = child(t, node, path[i], !base);
		if (k == UINT32_MAX)
			return JEHEAP_ENOMEM;
		if (!k)
			break; /* the base's path leaves what is drawn */
		node = k;
		if (base) {
			t->v[node].delta -= v;
		} else {
			t->v[node].value += v;
			t->v[node].delta += v;
		}
	}
	if (!base && n + 1 > t->depth)
		t->depth = n + 1;
	return 0;
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
	double share = maxd > 0 ? fabs(delta) / maxd : 0;
	int v = share >= 0 && share <= 1 ? (int)(210 * share) : 0; /* not NaN, not beyond */
	*r = delta > 0 ? 255 : 255 - v;
	*g = 255 - v;
	*b = delta < 0 ? 255 : 255 - v;
}

struct style {
	double total, maxd; /* maxd > 0: differential */
	const char *unit;
	int levels;
};

static const char *node_name(const struct tree *t, uint32_t id)
{
	return t->v[id].entry == UINT32_MAX ? "all" : t->names.e[t->v[id].entry].name;
}

struct kid {
	const char *name;
	uint32_t id;
};

static int cmp_kids(const void *a, const void *b)
{
	return strcmp(((const struct kid *)a)->name, ((const struct kid *)b)->name);
}

/* A node to draw: where and at which depth. */
struct pending {
	uint32_t id;
	int level;
	double x;
};

/* Draw one node; 0 if it is too narrow to see (then neither are its
 * children: flamegraph.pl's minwidth). */
static int draw(FILE *out, const struct tree *t, const struct pending *p, const struct style *st)
{
	const struct node *n = &t->v[p->id];
	double total = st->total, x = p->x;
	double w = n->value / total * WIDTH;
	if (w < 0.1)
		return 0;
	const char *name = node_name(t, p->id), *unit = st->unit;
	int r, g, b;
	if (st->maxd > 0)
		diff_color(n->delta, st->maxd, &r, &g, &b);
	else
		color(name, &r, &g, &b);
	double y = (st->levels - p->level - 1) * ROW;
	fprintf(out, "<g class=\"f\" data-x=\"%.3f\" data-w=\"%.3f\"><title>", x, w);
	xml_text(out, name);
	fprintf(out, " (%.0f %s, %.2f%%", n->value, unit, 100.0 * n->value / total);
	if (st->maxd > 0)
		fprintf(out, "; %+.0f %s since the base", n->delta, unit);
	fprintf(out, ")</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" "
		     "height=\"%d\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/><text x=\"%.3f\" y=\"%.1f\">",
		x, y, w, ROW - 1, r, g, b, x + 3, y + ROW - 4);
	/* About 7 px a character at 12 px: only what fits, like flamegraph.pl. */
	size_t fit = w > 20 ? (size_t)((w - 6) / 7) : 0, len = strlen(name);
	if (fit >= len) {
		xml_text(out, name);
	} else if (fit > 2) {
		char *cut = strndup(name, fit - 2);
		if (cut) {
			xml_text(out, cut);
			fputs("..", out);
			free(cut);
		}
	}
	fputs("</text></g>\n", out);
	return 1;
}

/* Push p's children, sorted by name, so that the first is drawn next; each
 * starts where its elder siblings end. */
static int push_kids(const struct tree *t, const struct pending *p, const struct style *st,
		     struct pending **stack, size_t *n, size_t *cap)
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
		kids[nk++] = (struct kid){ node_name(t, k), k };
	qsort(kids, nk, sizeof(*kids), cmp_kids);
	double cx = p->x;
	for (size_t i = 0; i < nk; i++) {
		(*stack)[*n + nk - 1 - i] = (struct pending){ kids[i].id, p->level + 1, cx };
		cx += t->v[kids[i].id].value / st->total * WIDTH;
	}
	*n += nk;
	free(kids);
	return 0;
}

/* The tree, depth first, parents before children: with an explicit stack,
 * not the C stack, whose depth would be the profile's (a crafted stack of
 * 100,000 frames overflowed it). */
static int emit(FILE *out, const struct tree *t, const struct style *st)
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
	if (!p || !out || !jh_query_valid(q))
		return JEHEAP_EINVAL;
	struct tree t;
	memset(&t, 0, sizeof(t));
	t.depth = 1;
	int r = jh_grow((void **)&t.v, &t.cap, 1, sizeof(*t.v));
	if (r)
		goto out;
	t.v[0] = (struct node){ UINT32_MAX, 0, 0, 0, 0 };
	t.n = 1;
	static const struct jh_sink sink = { .stack = add_stack };
	if ((r = jh_reduce_run(p, s, q, &sink, &t, &t.names)))
		goto out;
	const char *unit = q->metric % 2 ? "objects" : "bytes";
	double maxd = 0;
	for (size_t i = 0; q->base && i < t.n; i++)
		if (fabs(t.v[i].delta) > maxd)
			maxd = fabs(t.v[i].delta);
	/* a base with no change at all still draws as a difference */
	struct style st = { t.v[0].value > 0 ? t.v[0].value : 1, q->base && maxd == 0 ? 1 : maxd,
			    unit, (int)t.depth };
	int h = st.levels * ROW + 40;
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
			t.v[0].value, unit, t.v[0].delta);
	else
		fprintf(out, " (%.0f %s; click to zoom)</text>\n", t.v[0].value, unit);
	r = emit(out, &t, &st);
	fputs(script, out);
	fputs("</svg>\n", out);
	if (!r && ferror(out))
		r = JEHEAP_EIO;
out:
	jh_entries_free(&t.names);
	free(t.v);
	jh_u64map_free(&t.kids);
	return r;
}
