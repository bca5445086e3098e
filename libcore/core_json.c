/* SPDX-License-Identifier: BSD-2-Clause */
/* RFC 8259 string escaping: quote, backslash and control characters; bytes
 * >= 0x80 pass through (paths are bytes, JSON wants UTF-8: invalid UTF-8 in
 * a path is escaped as \u00XX per byte so the output always parses). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_json.h"
#include "core_text.h"

static size_t escape_into(const char *s, char *out, size_t cap)
{
	size_t o = 0;
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		char tmp[8];
		size_t tl;
		if (*p == '"' || *p == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)*p;
			tl = 2;
			p++;
		} else if (*p < 0x20 || (*p >= 0x80 && !core_utf8_len(p))) {
			tl = (size_t)snprintf(tmp, sizeof(tmp), "\\u%04x", *p);
			p++;
		} else if (*p >= 0x80) {
			tl = core_utf8_len(p);
			memcpy(tmp, p, tl);
			p += tl;
		} else {
			tmp[0] = (char)*p++;
			tl = 1;
		}
		if (out) {
			if (o + tl + 1 > cap)
				break;
			memcpy(out + o, tmp, tl);
		}
		o += tl;
	}
	return o;
}

void core_json_escape(const char *s, char *buf, size_t len)
{
	if (len < 3) {
		if (len)
			buf[0] = 0;
		return;
	}
	buf[0] = '"';
	size_t o = 1 + escape_into(s, buf + 1, len - 2);
	buf[o++] = '"';
	buf[o] = 0;
}

void core_json_put_string(FILE *f, const char *s)
{
	size_t n = escape_into(s, NULL, 0) + 3;
	char stackbuf[1024];
	char *buf = n <= sizeof(stackbuf) ? stackbuf : malloc(n);
	if (!buf) {
		fputs("null", f); /* out of memory: still valid JSON */
		return;
	}
	core_json_escape(s, buf, n);
	fputs(buf, f);
	if (buf != stackbuf)
		free(buf);
}
