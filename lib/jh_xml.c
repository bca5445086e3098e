/* SPDX-License-Identifier: BSD-2-Clause */
/* XML-safe text: a browser refuses a whole SVG for one ill-formed byte
 * (invalid UTF-8, a control character even as a reference), so what the
 * profile holds is checked character by character, and what XML 1.0 does
 * not allow becomes U+FFFD: visible, and the rest of the name still
 * readable. */
#include "config.h"

#include <stdint.h>
#include "jh_xml.h"

static const char replacement[] = "\xef\xbf\xbd"; /* U+FFFD */

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), its code point in *cp;
 * 0 when s does not start one. */
static size_t utf8_seq(const unsigned char *s, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xbf; /* the allowed second byte */
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	uint32_t v = c & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80) /* also stops at the terminating NUL */
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	*cp = v;
	return n;
}

/* XML 1.0's Char production, less the C0 and C1 controls (tab and newline
 * included: a name has no business holding them, and an attribute would
 * fold them into spaces). */
static int xml_char(uint32_t cp)
{
	if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
		return 0;
	return cp < 0xd800 || (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000;
}

/* The next character of s: its byte length (at least 1); *ok when it may
 * be written as it is. */
static size_t next_char(const char *s, int *ok)
{
	uint32_t cp = 0;
	size_t n = utf8_seq((const unsigned char *)s, &cp);
	*ok = n > 0 && xml_char(cp);
	return n ? n : 1;
}

size_t jh_xml_chars(const char *s)
{
	size_t count = 0;
	int ok;
	while (*s) {
		s += next_char(s, &ok);
		count++;
	}
	return count;
}

void jh_xml_text(FILE *out, const char *s, size_t max)
{
	int ok;
	for (size_t done = 0; *s && done < max; done++) {
		size_t n = next_char(s, &ok);
		if (!ok)
			fputs(replacement, out);
		else if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>') /* also keeps "]]>" out of character data */
			fputs("&gt;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else if (*s == '\'')
			fputs("&apos;", out);
		else
			fwrite(s, 1, n, out);
		s += n;
	}
}
