/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap's text writers: the jeprof --text table, JSON, folded stacks. */
#ifndef JEHEAP_TEXT_H
#define JEHEAP_TEXT_H

#include <stdio.h>
#include "jeheap.h"

/* How a top table is printed. */
struct top_style {
	int metric;
	int show_bytes;   /* jeprof --show_bytes: bytes, unit "B" */
	int by_cum;       /* jeprof --cum */
	long limit;       /* rows, or -1: all */
	/* 0: "Total:" of the rows (jeheap top); 1: whole_total, as jeprof
	 * --text prints the whole profile's, and no line when it is 0. */
	int whole_header;
	double whole_total;
};
/* 0, or -1 without memory. */
int print_top(FILE *out, const jeheap_top *t, const struct top_style *st);
/* jeprof's Unparse and Units. */
const char *unparse(double v, int metric, int show_bytes, char *buf, size_t len);
const char *units(int metric, int show_bytes);
void print_json(FILE *out, const jeheap_profile *p, const jeheap_top *t,
		const struct jeheap_query *q, long limit);

#define FOLD_DONE 1000 /* -n lines printed: stop (not an error) */

struct fold_out {
	FILE *f;
	int diff;
	long limit;
};
/* A jeheap_collapsed_cb: flamegraph.pl's "stack value", or with a base
 * difffolded.pl's "stack before after". arg: a struct fold_out. */
int print_folded(const char *stack, double value, double base, void *arg);

#endif
