/* SPDX-License-Identifier: BSD-2-Clause */
/* core_json: the small JSON string writer both programs need (jeattach
 * --json, jeheap json). */
#ifndef CORE_JSON_H
#define CORE_JSON_H

#include <stddef.h>
#include <stdio.h>

/* s as a quoted JSON string in buf; truncated (still valid) if too long. */
void core_json_escape(const char *s, char *buf, size_t len);
/* Write s as a quoted JSON string to f. */
void core_json_put_string(FILE *f, const char *s);

/* in must be exactly one JSON value (RFC 8259; whitespace around it): *out
 * gets it re-encoded, compact (no whitespace outside strings), strings as
 * valid UTF-8 only. 0, -EINVAL if in is not one valid value (or nests
 * deeper than 256), -ENOMEM. Text from a target is data: embedded in
 * jeattach's own JSON only this way, it cannot close an object early and
 * forge another record. */
int core_json_reencode(const char *in, char **out);

#endif
