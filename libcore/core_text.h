/* SPDX-License-Identifier: BSD-2-Clause */
/* core_text: text a target chose (its name, its prof_prefix, the paths it
 * maps, its allocator's report), made safe for a terminal: a control byte
 * is written as an escape (\n, \t, \x1b), never sent as is, so no escape
 * sequence can retitle a window, clear a screen or hide a line. */
#ifndef CORE_TEXT_H
#define CORE_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* The length of the valid UTF-8 character at s (RFC 3629: no overlong
 * form, no surrogate, nothing past U+10FFFF), or 0. */
size_t core_utf8_len(const unsigned char *s);

/* s with every control byte (below 0x20, and 0x7f) escaped, into buf
 * (truncated, still NUL-terminated). */
void core_text_escape(const char *s, char *buf, size_t len);
/* Write s to f the same way, but keeping newlines and tabs (a multi-line
 * report). */
void core_text_put_lines(FILE *f, const char *s);

#endif
