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

JH_EXPORT int jeheap_dot(const jeheap_profile *p, jeheap_symbolizer *s,
			 const struct jeheap_query *q, const char *title, size_t max_nodes,
			 FILE *out)
{
	if (!out)
		return JEHEAP_EINVAL;
	jeheap_top *t;
	int r = jh_top_build(p, s, q, 1, &t);
	if (r)
		return r;
	const struct jh_entries *names = &t->names;
	struct cand *c = calloc(names->n ? names->n : 1, sizeof(*c));
	uint32_t *node_of = calloc(names->n ? names->n : 1, sizeof(*node_of)); /* entry -> N + 1 */
	if (!c || !node_of) {
		r = JEHEAP_ENOMEM;
		goto out;
	}
	size_t nc = 0;
	for (size_t i = 0; i < names->n; i++) {
		const struct jh_sums *e = &t->sums[i];
		double flat = e->flat - e->bflat, cum = e->cum - e->bcum;
		if (flat != 0 || cum != 0)
			c[nc++] = (struct cand){ (uint32_t)i, flat, cum };
	}
	if (nc)
		qsort(c, nc, sizeof(*c), cmp_cand);
	double total = t->total, min_node = fabs(total) * NODE_FRACTION;
	size_t limit = max_nodes ? max_nodes : DEFAULT_NODES, kept = 0;
	double max_flat = 0, dropped = 0;
	for (size_t i = 0; i < nc; i++) {
		if (kept < limit && fabs(c[i].cum) >= min_node && fabs(c[i].cum) > 0) {
			node_of[c[i].entry] = (uint32_t)++kept;
			if (fabs(c[i].flat) > max_flat)
				max_flat = fabs(c[i].flat);
		} else {
			dropped += c[i].flat;
		}
	}
	fputs("digraph \"", out);
	dot_escape(out, title ? title : "heap profile");
	fputs("\" {\nnode [width=0.375,height=0.25];\nLegend [shape=box,fontsize=24,"
	      "shape=plaintext,label=\"",
	      out);
	dot_escape(out, title ? title : "heap profile");
	fputs("\\lTotal ", out);
	unparse(out, total, q->metric);
	fputs(q->metric % 2 ? " objects" : " MB", out);
	fprintf(out, "\\lShowing %zu of %zu nodes (at least %.1f%% of the total each)\\l", kept,
		nc, NODE_FRACTION * 100);
	fputs("Dropped nodes hold ", out);
	unparse(out, dropped, q->metric);
	fputs(q->metric % 2 ? " objects" : " MB", out);
	fputs("\\l\"];\n", out);
	for (size_t i = 0; i < nc; i++) {
		uint32_t id = node_of[c[i].entry];
		if (!id)
			continue;
		double fs = 8 + 42 * (max_flat > 0 ? sqrt(fabs(c[i].flat) / max_flat) : 0);
		fprintf(out, "N%u [label=\"", id);
		dot_escape(out, names->e[c[i].entry].name);
		fputs("\\n", out);
		unparse(out, c[i].flat, q->metric);
		fputs(" (", out);
		percent(out, c[i].flat, total);
		fputs(")", out);
		if (c[i].cum != c[i].flat) {
			fputs("\\rof ", out);
			unparse(out, c[i].cum, q->metric);
			fputs(" (", out);
			percent(out, c[i].cum, total);
			fputs(")", out);
		}
		fprintf(out, "\\r\",shape=box,fontsize=%.1f];\n", fs);
	}
	double max_edge = 0;
	for (size_t i = 0; i < t->edges.n; i++) {
		double w = fabs(t->edges.e[i].value - t->edges.e[i].bvalue);
		if (w > max_edge)
			max_edge = w;
	}
	for (size_t i = 0; i < t->edges.n; i++) {
		const struct jh_edge *e = &t->edges.e[i];
		double w = e->value - e->bvalue;
		if (!node_of[e->from] || !node_of[e->to] || e->from == e->to ||
		    fabs(w) < fabs(total) * EDGE_FRACTION || w == 0)
			continue;
		fprintf(out, "N%u -> N%u [label=\" ", node_of[e->from], node_of[e->to]);
		unparse(out, w, q->metric);
		double share = max_edge > 0 ? fabs(w) / max_edge : 0;
		if (!(share >= 0 && share <= 1))
			share = 0; /* NaN or beyond: the thinnest edge */
		fprintf(out, "\",weight=%d,penwidth=%.2f%s];\n", (int)(1 + 99 * share), 1 + 4 * share,
			w < 0 ? ",style=dashed" : "");
	}
	fputs("}\n", out);
	r = ferror(out) ? JEHEAP_EIO : 0;
out:
	free(c);
	free(node_of);
	jeheap_top_free(t);
	return r;
}
