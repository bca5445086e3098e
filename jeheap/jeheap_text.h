/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap's text writers: the jeprof --text table, JSON, folded stacks. */
#ifndef JEHEAP_TEXT_H
#define JEHEAP_TEXT_H

#include <stdio.h>
#include "jeheap.h"

void print_top(FILE *out, const jeheap_top *t, int metric, long limit);
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
