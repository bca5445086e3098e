/* SPDX-License-Identifier: BSD-2-Clause */
/* A trend over a series of dumps: its model, shared by the collection
 * (jh_trend.c), the line through each stack's values (jh_trend_fit.c) and
 * the chart (jh_trend_svg.c). Internal. */
#ifndef JH_TREND_H
#define JH_TREND_H

#include <stddef.h>
#include <stdint.h>
#include "jh_reduce.h"

struct jh_trend_row {
	struct jeheap_trend_stack pub;
	size_t key_off;   /* its entry ids (the reduced stack) in keys[] */
	uint32_t key_len;
	size_t seen;      /* the order stacks were first met: ties keep it */
};

struct jeheap_trend {
	int metric;       /* enum jeheap_metric */
	double min_fit;
	size_t ndumps;
	double *times;    /* in time order, seconds since the epoch */
	size_t *given;    /* time order -> position among the dumps given */
	size_t *order;    /* position given -> time order */
	struct jh_entries names;
	struct jh_trend_row *rows; /* by rank once built */
	size_t nrows, rows_cap;
	uint32_t *keys;
	size_t nkeys, keys_cap;
	double *values;   /* rows' values, ndumps each, by first-seen order */
	size_t values_cap;
	const char **frames; /* rows' names, leaf first, by first-seen order */
	uint32_t *slots;  /* entry-id path -> row + 1 (open addressing) */
	size_t slots_cap;
	struct jeheap_trend_stack total;
	double *total_values;
};

/* The least-squares line through (x[i], y[i]), n >= 2 distinct x: slope,
 * fit (R^2; 0 when y does not change) and verdict against min_fit. */
void jh_trend_fit(const double *x, const double *y, size_t n, double min_fit,
		  struct jeheap_trend_stack *out);
/* The ranking: a qsort comparator of struct jh_trend_row. */
int jh_trend_rank_cmp(const void *a, const void *b);

#endif
