/* SPDX-License-Identifier: BSD-2-Clause */
/* core_json: the small JSON writer both programs need (jeattach --json,
 * jeheap json): strings of their own, and a target's JSON re-encoded. */
#ifndef CORE_JSON_H
#define CORE_JSON_H

#include <stddef.h>
#include <stdio.h>

struct core_jerror; /* core_jpull.h */

/* s as a quoted JSON string in buf; truncated (still valid) if too long. */
void core_json_escape(const char *s, char *buf, size_t len);
/* Write s as a quoted JSON string to f. */
void core_json_put_string(FILE *f, const char *s);

/* in must be exactly one JSON value (RFC 8259; whitespace around it): *out
 * gets it re-encoded, compact (no whitespace outside strings; strings and
 * numbers as they were written), read by core_jpull: strings valid UTF-8,
 * nesting at most CORE_JPULL_MAX_DEPTH. 0; -EINVAL if in is not one such
 * value, why and where in *err if err is given (kind CORE_JERR_CUT for a
 * text cut short); -ENOMEM. Text from a target is data: embedded in
 * jeattach's own JSON only this way, it cannot close an object early and
 * forge another record. */
int core_json_reencode(const char *in, char **out, struct core_jerror *err);

#endif
