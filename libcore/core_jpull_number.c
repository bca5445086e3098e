/* SPDX-License-Identifier: BSD-2-Clause */
/* core_jpull's numbers: the text checked against RFC 8259's grammar (a
 * copy cut inside one told from a malformed one) and handed out as text,
 * then converted only by the checked helpers here, each of which refuses
 * what its type cannot hold rather than wrapping or rounding to a
 * different integer (jemalloc's counters are uint64_t). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core_jpull_scan.h"

static const char *digits(const char *p, const char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* Where the grammar wants one more part (at p) and finds none: the end of
 * the input (a cut) or a byte that is not it (malformed). */
static int part_missing(struct core_jpull *j, const char *p, const char *cut_why,
			const char *bad_why)
{
	if (p < j->end)
		return core_jpull_fail(j, p, CORE_JERR_SYNTAX, bad_why);
	return core_jpull_fail(j, p, CORE_JERR_CUT, cut_why);
}

int core_jpull_number(struct core_jpull *j, struct core_jtok *t)
{
	const char *s = j->p, *p = s, *end = j->end;
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (p < end && *p >= '1' && *p <= '9')
		p = digits(p, end);
	else if (p < end)
		return core_jpull_fail(j, s, CORE_JERR_SYNTAX, "expected a value");
	else
		return core_jpull_fail(j, s, CORE_JERR_CUT, "truncated: expected a value");
	if (p < end && *p == '.') {
		const char *f = ++p;
		if ((p = digits(p, end)) == f)
			return part_missing(j, p, "truncated: expected a digit after '.'",
					    "expected a digit after '.'");
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		const char *x = p;
		if ((p = digits(p, end)) == x)
			return part_missing(j, p, "truncated: expected an exponent",
					    "expected an exponent");
	}
	/* Inside a container, a number the input ends with was cut: the
	 * container's close is missing too (and "12" may have been "123"). */
	if (p >= end && j->depth)
		return core_jpull_fail(j, s, CORE_JERR_CUT, "truncated: the input ends inside a value");
	size_t n = 0;
	int e = core_jpull_keep(j, &n, s, (size_t)(p - s));
	if (e)
		return e;
	j->buf[n] = 0;
	j->p = p;
	t->str = j->buf;
	t->len = n;
	return 0;
}

/* An integer's text: its sign and digits, or -EINVAL for a fraction or
 * an exponent. */
static int integer_text(const struct core_jtok *t, int *neg, const char **d)
{
	if (t->type != CORE_J_NUMBER)
		return -EINVAL;
	*neg = t->str[0] == '-';
	*d = t->str + *neg;
	return strspn(*d, "0123456789") == strlen(*d) ? 0 : -EINVAL;
}

/* The value of the digits d, if at most max (an exact test: x * 10 + k
 * > max exactly when x > (max - k) / 10): 0 or -ERANGE. */
static int magnitude(const char *d, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	for (; *d; d++) {
		unsigned k = (unsigned)(*d - '0');
		if (x > (max - k) / 10)
			return -ERANGE;
		x = x * 10 + k;
	}
	*v = x;
	return 0;
}

int core_jnum_u64(const struct core_jtok *t, uint64_t *v)
{
	int neg;
	const char *d;
	if (integer_text(t, &neg, &d) || neg)
		return -EINVAL;
	return magnitude(d, UINT64_MAX, v);
}

int core_jnum_i64(const struct core_jtok *t, int64_t *v)
{
	int neg;
	const char *d;
	uint64_t x;
	if (integer_text(t, &neg, &d))
		return -EINVAL;
	int e = magnitude(d, (uint64_t)INT64_MAX + (unsigned)neg, &x);
	if (!e)
		*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return e;
}

int core_jnum_double(const struct core_jtok *t, double *v)
{
	if (t->type != CORE_J_NUMBER)
		return -EINVAL;
	char *end;
	double x = strtod(t->str, &end);
	if (*end)
		return -EINVAL;
	if (!isfinite(x))
		return -ERANGE;
	*v = x;
	return 0;
}
