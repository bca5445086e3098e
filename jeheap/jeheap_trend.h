/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap trend: the dumps' times (jeattach's stamps, the files' mtimes, or
 * --times), the trend built by libjeheap and written as text, JSON or an
 * SVG chart. */
#ifndef JEHEAP_TREND_H
#define JEHEAP_TREND_H

#include <stdio.h>
#include "jeheap.h"
#include "jeheap_cli.h"

/* trend's operands and options, checked before any file is read (an
 * option trend does not take, or another command given trend's, was
 * refused with the command), --min-fit's default and -o FILE.svg's --svg
 * applied: -1 to go on, else an exit code. */
int trend_operands(struct args *a);
/* The trend of the n profiles (p, their symbolizers s, their files
 * a->profiles), written to out: an exit code. */
int run_trend(const struct args *a, jeheap_profile *const *p, jeheap_symbolizer *const *s,
	      size_t n, FILE *out);

/* How the time each dump holds came to be, for the writers. */
struct trend_dumps {
	const struct jeheap_trend_dump *d; /* as given */
	const int *source;                 /* enum jeheap_time_source, 0: --times */
};
/* The text and JSON writers (jeheap_trend_out.c). */
void print_trend_text(FILE *out, const jeheap_trend *t, int metric, long top);
void print_trend_json(FILE *out, const jeheap_trend *t, const struct trend_dumps *td,
		      const struct args *a);

#endif
