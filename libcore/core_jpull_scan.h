/* SPDX-License-Identifier: BSD-2-Clause */
/* Inside core_jpull, the tokenizer: the scanners of the two tokens that
 * take more than a glance (a string, a number; core_jpull_string.c,
 * core_jpull_number.c), called by the grammar (core_jpull.c), and the
 * error and buffer helpers all three share (core_jpull_scan.c). Not for
 * callers: they see core_jpull.h. */
#ifndef CORE_JPULL_SCAN_H
#define CORE_JPULL_SCAN_H

#include <stddef.h>
#include "core_jpull.h"

/* Record why and where (at) the input is refused: -EINVAL. */
int core_jpull_fail(struct core_jpull *j, const char *at, enum core_jerr kind, const char *why);
/* Append s[0..l) to the decoded text in j->buf, *n bytes so far (room is
 * kept for a NUL after it): 0, -EINVAL past max_string, -ENOMEM. */
int core_jpull_keep(struct core_jpull *j, size_t *n, const char *s, size_t l);
/* The string at j->p (its opening quote), decoded into t->str; j->p
 * after its closing quote. 0 or as core_jpull_next. */
int core_jpull_string(struct core_jpull *j, struct core_jtok *t);
/* The number at j->p, its text into t->str; j->p after it. */
int core_jpull_number(struct core_jpull *j, struct core_jtok *t);

#endif
