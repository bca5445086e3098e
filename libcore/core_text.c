/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "core_text.h"

/* The escape for control byte c: "\n", "\t" or "\xHH". */
static void escape_of(unsigned char c, char out[5])
{
	if (c == '\n')
		strcpy(out, "\\n");
	else if (c == '\t')
		strcpy(out, "\\t");
	else
		snprintf(out, 5, "\\x%02x", c);
}

static int is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

void core_text_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	if (!len)
		return;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char e[5] = { (char)*p, 0 };
		if (is_control(*p))
			escape_of(*p, e);
		size_t n = strlen(e);
		if (o + n + 1 > len)
			break;
		memcpy(buf + o, e, n);
		o += n;
	}
	buf[o] = 0;
}

void core_text_put_lines(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (is_control(*p) && *p != '\n' && *p != '\t') {
			char e[5];
			escape_of(*p, e);
			fputs(e, f);
		} else {
			fputc(*p, f);
		}
	}
}
