/* SPDX-License-Identifier: BSD-2-Clause */
/* What every part of core_jpull's tokenizer (the grammar, strings,
 * numbers) shares: how a refusal is recorded, and the one buffer decoded
 * text goes to, bounded by max_string. In a file of their own, below
 * those parts, so that calls between the tokenizer's files go one way
 * (no circle: tests/integration/t_circles.sh). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include "core_grow.h"
#include "core_jpull_scan.h"

int core_jpull_fail(struct core_jpull *j, const char *at, enum core_jerr kind, const char *why)
{
	j->err.kind = kind;
	j->err.why = why;
	j->err.at = (size_t)(at - j->start);
	return -EINVAL;
}

int core_jpull_keep(struct core_jpull *j, size_t *n, const char *s, size_t l)
{
	if (*n + l > j->max_string)
		return core_jpull_fail(j, j->p, CORE_JERR_LIMIT, "string too long");
	if (CORE_GROW(&j->buf, &j->buf_cap, *n + l + 1))
		return -ENOMEM;
	memcpy(j->buf + *n, s, l);
	*n += l;
	return 0;
}
