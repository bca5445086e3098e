/* SPDX-License-Identifier: BSD-2-Clause */
/* The flame graph writer's parts: the tree of call paths (jh_flame.c), its
 * frames as SVG (jh_flame_frames.c), the document around them: titles,
 * controls, the info line (jh_flame_svg.c), and the script that makes it
 * interactive (jh_flame.js, made into a C string at build time). Internal. */
#ifndef JH_FLAME_H
#define JH_FLAME_H

#include <stdio.h>
#include "jh_reduce.h"

struct jh_flame_node {
	uint32_t entry;    /* the reducer's entry id; UINT32_MAX: the root */
	uint32_t kid, sib; /* first child, next sibling (0: none) */
	double value;      /* what the current stacks through it hold */
	double delta;      /* that minus what the base's stacks through it held */
	double own;        /* the same change of the stacks that end in it: its
			    * flat (self) change, what a differential graph colours */
};

struct jh_flame_tree {
	struct jh_entries names;
	struct jh_flame_node *v; /* v[0]: the root, "all" */
	size_t n, cap;
	struct jh_u64map kids; /* parent << 32 | entry -> node */
	size_t depth;
};

/* How the frames are drawn. */
struct jh_flame_style {
	double total;  /* the root's value; > 0 */
	double maxd;   /* the largest own change, by magnitude; > 0: differential */
	int objects;   /* the metric counts objects, not bytes */
	int levels;    /* rows */
	int inverted;  /* root on top (an icicle graph) */
	double top;    /* where the rows start */
};

#define JH_FLAME_WIDTH 1200.0
#define JH_FLAME_ROW 16
/* About 7 px a character of the 12 px font (flamegraph.pl's 0.59 em):
 * labels are cut to fit by this estimate, here and in the script alike. */
#define JH_FLAME_CHAR 7.0

/* A node's label: its entry's name; the root is "all". */
static inline const char *jh_flame_name(const struct jh_flame_tree *t, uint32_t id)
{
	return t->v[id].entry == UINT32_MAX ? "all" : t->names.e[t->v[id].entry].name;
}

/* Every frame at least 0.1 px wide, parents before children (the order
 * the script relies on to count nested search matches once). */
int jh_flame_frames(FILE *out, const struct jh_flame_tree *t, const struct jh_flame_style *st);

/* v in human units: "512 B", "1.50 MiB", "1000 objects"; with sign, a
 * change: "+1.50 MiB". Returns buf. */
const char *jh_flame_human(double v, int objects, int sign, char *buf, size_t len);

/* The whole document around the frames. */
int jh_flame_document(FILE *out, const jeheap_profile *p, const struct jeheap_query *q,
		      const struct jeheap_flame_options *o, const struct jh_flame_tree *t);

/* The script (jh_flame.js), without "]]>": it goes into a CDATA section. */
extern const char jh_flame_js[];

#endif
