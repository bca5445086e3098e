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

#endif
