/* SPDX-License-Identifier: BSD-2-Clause */
/* json_: the small JSON writer --json needs (one object per line). */
#ifndef JEATTACH_JSON_H
#define JEATTACH_JSON_H

#include <stddef.h>
#include <stdio.h>

/* s as a quoted JSON string in buf; truncated (still valid) if too long. */
void json_escape(const char *s, char *buf, size_t len);
/* Write s as a quoted JSON string to f. */
void json_put_string(FILE *f, const char *s);

#endif
