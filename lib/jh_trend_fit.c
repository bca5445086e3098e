/* SPDX-License-Identifier: BSD-2-Clause */
/* The line through a stack's values over time and the verdict on it. A
 * leak grows at a steady rate: its values lie near a line of positive
 * slope (R^2 near 1), while a cache that fills and empties, or a site
 * whose samples come and go (jemalloc samples one allocation in about
 * 2^lg_prof_sample bytes), scatters around its line. Steady growth ranks
 * first, by slope; a stack with no steady trend after it; a steadily
 * shrinking one last. */
#include "config.h"

#include <math.h>
#include "jh_trend.h"

void jh_trend_fit(const double *x, const double *y, size_t n, double min_fit,
		  struct jeheap_trend_stack *out)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0;
	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	/* Centred sums: times are ~1.7e9 s since the epoch and sizes up to
	 * ~1e35 un-sampled, so raw sums of squares would cancel. */
	for (size_t i = 0; i < n; i++) {
		double dx = x[i] - mx, dy = y[i] - my;
		sxx += dx * dx;
		sxy += dx * dy;
		syy += dy * dy;
	}
	out->slope = sxx > 0 ? sxy / sxx : 0;
	out->fit = sxx > 0 && syy > 0 ? (sxy / sxx) * (sxy / syy) : 0;
	if (!isfinite(out->slope) || !isfinite(out->fit)) {
		out->slope = 0;
		out->fit = 0;
	}
	/* Rounding may leave R^2 a hair above 1. */
	if (out->fit > 1)
		out->fit = 1;
	if (out->fit >= min_fit && out->slope > 0 && syy > 0)
		out->verdict = JEHEAP_TREND_GROWING;
	else if (out->fit >= min_fit && out->slope < 0 && syy > 0)
		out->verdict = JEHEAP_TREND_SHRINKING;
	else
		out->verdict = JEHEAP_TREND_UNSTEADY;
}

int jh_trend_rank_cmp(const void *a, const void *b)
{
	const struct jh_trend_row *x = a, *y = b;
	if (x->pub.verdict != y->pub.verdict)
		return x->pub.verdict < y->pub.verdict ? -1 : 1;
	if (x->pub.slope != y->pub.slope)
		return x->pub.slope > y->pub.slope ? -1 : 1;
	return (x->seen > y->seen) - (x->seen < y->seen);
}
