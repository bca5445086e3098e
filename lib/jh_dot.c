/* SPDX-License-Identifier: BSD-2-Clause */
/* A graphviz call graph, as jeprof --dot draws one (PrintDot): a box per
 * function labelled with its flat and cumulative value, its font growing
 * with the flat value; an edge per caller -> callee pair labelled with
 * what flowed through it. Like jeprof it keeps the nodes whose cumulative
 * value is at least 0.5% of the total (--nodefraction), at most 80 of them
 * (--nodecount) unless told otherwise, and the edges of at least 0.1%
 * (--edgefraction); a legend says what was dropped. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "jh_top.h"

#define NODE_FRACTION 0.005
#define EDGE_FRACTION 0.001
#define DEFAULT_NODES 80

struct cand {
	uint32_t entry;
	double flat, cum;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	if (fabs(x->cum) != fabs(y->cum))
		return fabs(x->cum) > fabs(y->cum) ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* jeprof's Unparse: objects as integers, bytes in MB with one decimal. */
static void unparse(FILE *out, double v, int metric)
{
	if (metric == JEHEAP_INUSE_OBJECTS || metric == JEHEAP_ALLOC_OBJECTS)
		fprintf(out, "%.0f", v);
	else
		fprintf(out, "%.1f", v / 1048576.0);
}

static void percent(FILE *out, double v, double total)
{
	fprintf(out, "%.1f%%", total != 0 ? v * 100.0 / total : 0.0);
}

/* A DOT string's contents: quotes and backslashes escaped. */
static void dot_escape(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
}

/* What the graph shows, chosen from top's table. */
struct graph {
	const jeheap_top *t;
	int metric;
	double total;
	struct cand *c; /* every function with a value, largest |cum| first */
	size_t nc;
	uint32_t *node_of; /* entry -> N + 1; 0: not drawn */
	size_t kept;
	double max_flat, dropped;
	double node_fraction, edge_fraction;
};

/* jeprof's --nodecount and --nodefraction: the first max_nodes functions
 * (0: DEFAULT_NODES) whose |cum| is at least node_fraction of the total are
 * drawn; the flat values of the others are what the legend says was
 * dropped. */
static int pick_nodes(struct graph *g, size_t max_nodes)
{
	const jeheap_top *t = g->t;
	size_t n = t->names.n;
	g->c = calloc(n ? n : 1, sizeof(*g->c));
	g->node_of = calloc(n ? n : 1, sizeof(*g->node_of));
	if (!g->c || !g->node_of)
		return JEHEAP_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct jh_sums *e = &t->sums[i];
		double flat = e->flat - e->bflat, cum = e->cum - e->bcum;
		if (flat != 0 || cum != 0)
			g->c[g->nc++] = (struct cand){ (uint32_t)i, flat, cum };
	}
	if (g->nc)
		qsort(g->c, g->nc, sizeof(*g->c), cmp_cand);
	double min_node = fabs(g->total) * g->node_fraction;
	size_t limit = max_nodes ? max_nodes : DEFAULT_NODES;
	for (size_t i = 0; i < g->nc; i++) {
		const struct cand *c = &g->c[i];
		if (g->kept < limit && fabs(c->cum) >= min_node && fabs(c->cum) > 0) {
			g->node_of[c->entry] = (uint32_t)++g->kept;
			if (fabs(c->flat) > g->max_flat)
				g->max_flat = fabs(c->flat);
		} else {
			g->dropped += c->flat;
		}
	}
	return 0;
}

/* The graph's opening and its legend: title, total, what was dropped. */
static void write_header(FILE *out, const struct graph *g, const char *title)
{
	const char *unit = g->metric % 2 ? " objects" : " MB";
	fputs("digraph \"", out);
	dot_escape(out, title);
	fputs("\" {\nnode [width=0.375,height=0.25];\nLegend [shape=box,fontsize=24,"
	      "shape=plaintext,label=\"",
	      out);
	dot_escape(out, title);
	fputs("\\lTotal ", out);
	unparse(out, g->total, g->metric);
	fputs(unit, out);
	fprintf(out, "\\lShowing %zu of %zu nodes (at least %.1f%% of the total each)\\l",
		g->kept, g->nc, g->node_fraction * 100);
	fputs("Dropped nodes hold ", out);
	unparse(out, g->dropped, g->metric);
	fputs(unit, out);
	fputs("\\l\"];\n", out);
}

/* A box per drawn function: flat (and cum when it differs), the font
 * growing with the square root of the flat value. */
static void write_nodes(FILE *out, const struct graph *g)
{
	for (size_t i = 0; i < g->nc; i++) {
		const struct cand *c = &g->c[i];
		uint32_t id = g->node_of[c->entry];
		if (!id)
			continue;
		double fs = 8 + 42 * (g->max_flat > 0 ? sqrt(fabs(c->flat) / g->max_flat) : 0);
		fprintf(out, "N%u [label=\"", id);
		dot_escape(out, g->t->names.e[c->entry].name);
		fputs("\\n", out);
		unparse(out, c->flat, g->metric);
		fputs(" (", out);
		percent(out, c->flat, g->total);
		fputs(")", out);
		if (c->cum != c->flat) {
			fputs("\\rof ", out);
			unparse(out, c->cum, g->metric);
			fputs(" (", out);
			percent(out, c->cum, g->total);
			fputs(")", out);
		}
		fprintf(out, "\\r\",shape=box,fontsize=%.1f];\n", fs);
	}
}

/* The edges between drawn functions that carry at least edge_fraction of
 * the total, weighted and thickened by their share of the largest edge;
 * dashed where the base held more. */
static void write_edges(FILE *out, const struct graph *g)
{
	const struct jh_edges *edges = &g->t->edges;
	double max_edge = 0;
	for (size_t i = 0; i < edges->n; i++) {
		double w = fabs(edges->e[i].value - edges->e[i].bvalue);
		if (w > max_edge)
			max_edge = w;
	}
	for (size_t i = 0; i < edges->n; i++) {
		const struct jh_edge *e = &edges->e[i];
		double w = e->value - e->bvalue;
		if (!g->node_of[e->from] || !g->node_of[e->to] || e->from == e->to ||
		    fabs(w) < fabs(g->total) * g->edge_fraction || w == 0)
			continue;
		fprintf(out, "N%u -> N%u [label=\" ", g->node_of[e->from], g->node_of[e->to]);
		unparse(out, w, g->metric);
		double share = max_edge > 0 ? fabs(w) / max_edge : 0;
		if (!(share >= 0 && share <= 1))
			share = 0; /* NaN or beyond: the thinnest edge */
		fprintf(out, "\",weight=%d,penwidth=%.2f%s];\n", (int)(1 + 99 * share), 1 + 4 * share,
			w < 0 ? ",style=dashed" : "");
	}
}

JH_EXPORT int jeheap_dot(const jeheap_profile *p, jeheap_symbolizer *s,
			 const struct jeheap_query *q, const char *title, size_t max_nodes,
			 FILE *out)
{
	const struct jeheap_dot_options o = { max_nodes, NODE_FRACTION, EDGE_FRACTION };
	return jeheap_dot_opts(p, s, q, title, &o, out);
}

JH_EXPORT int jeheap_dot_opts(const jeheap_profile *p, jeheap_symbolizer *s,
			      const struct jeheap_query *q, const char *title,
			      const struct jeheap_dot_options *o, FILE *out)
{
	if (!out || !o || !(o->node_fraction >= 0) || !(o->edge_fraction >= 0))
		return JEHEAP_EINVAL;
	jeheap_top *t;
	int r = jh_top_build(p, s, q, 1, &t);
	if (r)
		return r;
	struct graph g = { .t = t, .metric = q->metric, .total = t->total,
			   .node_fraction = o->node_fraction, .edge_fraction = o->edge_fraction };
	r = pick_nodes(&g, o->max_nodes);
	if (!r) {
		write_header(out, &g, title ? title : "heap profile");
		write_nodes(out, &g);
		write_edges(out, &g);
		fputs("}\n", out);
		r = ferror(out) ? JEHEAP_EIO : 0;
	}
	free(g.c);
	free(g.node_of);
	jeheap_top_free(t);
	return r;
}
