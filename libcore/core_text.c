/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "core_text.h"

size_t core_utf8_len(const unsigned char *s)
{
	/* F5..FF begin nothing (they would be past U+10FFFF, or 5 and 6 byte
	 * forms): taken for 3-byte leads, FF 80 80 was "valid" and went raw
	 * into jeattach's JSON. */
	size_t n = s[0] >= 0xf5 ? 0 : s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* The second byte's range, where it is narrower than 80..BF. */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/* How the character at p goes to a terminal: *len bytes copied as they are
 * (0: escaped instead, and *code is the byte to name). Control characters
 * are C0 and DEL, C1 written in UTF-8 (C2 80..C2 9F: CSI, OSC, a clipboard
 * write a terminal obeys), and any byte that begins no valid UTF-8
 * character (a raw 80..9F is C1 to a terminal in an 8-bit mode). */
static void classify(const unsigned char *p, int keep_lines, size_t *len, unsigned *code)
{
	*code = *p;
	*len = 0;
	if (*p < 0x80) {
		if ((*p >= 0x20 && *p != 0x7f) || (keep_lines && (*p == '\n' || *p == '\t')))
			*len = 1;
		return;
	}
	size_t n = core_utf8_len(p);
	if (n == 2 && p[0] == 0xc2 && p[1] <= 0x9f)
		*code = p[1]; /* C1, named by its code point */
	else if (n)
		*len = n;
}

static void escape_of(unsigned code, char out[5])
{
	if (code == '\n')
		strcpy(out, "\\n");
	else if (code == '\t')
		strcpy(out, "\\t");
	else
		snprintf(out, 5, "\\x%02x", code & 0xff);
}

/* The bytes one character takes in the input (an escaped C1 in UTF-8: 2). */
static size_t span(const unsigned char *p, size_t len)
{
	return len ? len : (p[0] == 0xc2 && core_utf8_len(p) == 2) ? 2 : 1;
}

void core_text_escape(const char *s, char *buf, size_t len)
{
	size_t o = 0;
	if (!len)
		return;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n;
		unsigned code;
		char e[5];
		classify(p, 0, &n, &code);
		const char *out = n ? (const char *)p : e;
		size_t outlen = n;
		if (!n) {
			escape_of(code, e);
			outlen = strlen(e);
		}
		if (o + outlen + 1 > len)
			break;
		memcpy(buf + o, out, outlen);
		o += outlen;
		p += span(p, n);
	}
	buf[o] = 0;
}

void core_text_put_lines(FILE *f, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t n;
		unsigned code;
		classify(p, 1, &n, &code);
		if (n) {
			fwrite(p, 1, n, f);
		} else {
			char e[5];
			escape_of(code, e);
			fputs(e, f);
		}
		p += span(p, n);
	}
}
