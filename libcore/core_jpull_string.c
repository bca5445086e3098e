/* SPDX-License-Identifier: BSD-2-Clause */
/* core_jpull's strings: escapes decoded (\u with its surrogate pair as
 * one character) to UTF-8, raw bytes checked as UTF-8 (RFC 3629, as
 * core_utf8_len), and at every step text that cannot be JSON told from
 * text that stops short: a copy cut inside a string, an escape or a
 * character is CORE_JERR_CUT, so that a caller can say "take it again"
 * rather than "damaged or forged". The input need not be NUL-terminated:
 * nothing here reads at or past its end. */
#include "config.h"

#include <string.h>
#include "core_jpull_scan.h"
#include "core_text.h"

/* What a look at the next few bytes found. */
enum { SCAN_OK, SCAN_CUT, SCAN_BAD };

static const char cut_why[] = "truncated: the input ends inside a string";

/* The scan's verdict as the tokenizer's error: -EINVAL. */
static int refuse(struct core_jpull *j, const char *at, int scan, const char *bad_why)
{
	if (scan == SCAN_CUT)
		return core_jpull_fail(j, at, CORE_JERR_CUT, cut_why);
	return core_jpull_fail(j, at, CORE_JERR_SYNTAX, bad_why);
}

/* Four hex digits at s, the text ending at end. */
static int hex4(const char *s, const char *end, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		if (s + i >= end)
			return SCAN_CUT;
		char c = s[i];
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
						    : 16;
		if (d == 16)
			return SCAN_BAD;
		*v = *v << 4 | d;
	}
	return SCAN_OK;
}

/* The \uXXXX at *pp (and the \uXXXX of its low half when it is a high
 * surrogate): the code point in *c, *pp after it. A lone half is no
 * character (its UTF-8 would be invalid), and U+0000 is refused: decoded
 * strings are C strings, and one cut at an escaped NUL would say less
 * than its text. */
static int escape_u(const char **pp, const char *end, unsigned *c)
{
	const char *p = *pp;
	unsigned lo;
	int r = hex4(p + 2, end, c);
	if (r != SCAN_OK)
		return r;
	p += 6;
	if (*c >= 0xdc00 && *c <= 0xdfff)
		return SCAN_BAD;
	if (*c >= 0xd800 && *c <= 0xdbff) {
		if (p >= end || (p[0] == '\\' && p + 1 >= end))
			return SCAN_CUT;
		if (p[0] != '\\' || p[1] != 'u')
			return SCAN_BAD;
		if ((r = hex4(p + 2, end, &lo)) != SCAN_OK)
			return r;
		if (lo < 0xdc00 || lo > 0xdfff)
			return SCAN_BAD;
		p += 6;
		*c = 0x10000 + ((*c - 0xd800) << 10) + (lo - 0xdc00);
	}
	*pp = p;
	return *c ? SCAN_OK : SCAN_BAD;
}

/* Code point c (not a surrogate, at most U+10FFFF) as UTF-8: its length. */
static size_t utf8_put(unsigned c, char out[4])
{
	static const unsigned char lead[] = { 0, 0, 0xc0, 0xe0, 0xf0 };
	size_t n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
	if (n == 1) {
		out[0] = (char)c;
		return 1;
	}
	for (size_t i = n - 1; i > 0; i--, c >>= 6)
		out[i] = (char)(0x80 | (c & 0x3f));
	out[0] = (char)(lead[n] | c);
	return n;
}

/* The raw character at p (its first byte >= 0x80): its length in *len.
 * core_utf8_len judges it on a NUL-padded copy, so that the end of the
 * text is never read past; one the end cuts is a lead byte and
 * continuations that some further continuation completes (0x80 suits
 * every lead but E0 and F0, whose second byte must be above 0x9F or
 * 0x8F; 0xA0 suits those two). */
static int utf8_at(const char *p, const char *end, size_t *len)
{
	static const unsigned char fill[] = { 0x80, 0xa0 };
	unsigned char b[5] = { 0 };
	size_t have = (size_t)(end - p) < 4 ? (size_t)(end - p) : 4;
	memcpy(b, p, have);
	if ((*len = core_utf8_len(b)))
		return SCAN_OK;
	for (size_t k = 0; k < sizeof(fill) && have < 4; k++) {
		memset(b + have, fill[k], 4 - have);
		if (core_utf8_len(b))
			return SCAN_CUT;
	}
	return SCAN_BAD;
}

/* The escape at j->p (its backslash), decoded and kept. */
static int escape(struct core_jpull *j, size_t *n)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *at = j->p;
	if (at + 1 >= j->end)
		return refuse(j, at, SCAN_CUT, NULL);
	if (at[1] == 'u') {
		unsigned c;
		char u[4];
		int r = escape_u(&j->p, j->end, &c);
		if (r != SCAN_OK)
			return refuse(j, at, r, "invalid \\u escape");
		return core_jpull_keep(j, n, u, utf8_put(c, u));
	}
	const char *k = at[1] ? strchr(from, at[1]) : NULL;
	if (!k)
		return refuse(j, at, SCAN_BAD, "invalid escape");
	j->p += 2;
	return core_jpull_keep(j, n, &to[k - from], 1);
}

/* The raw character at j->p (not ASCII), checked and kept; with
 * any_bytes, a byte that begins no character is kept alone. */
static int character(struct core_jpull *j, size_t *n)
{
	size_t l;
	int r = utf8_at(j->p, j->end, &l);
	if (r == SCAN_BAD && j->any_bytes)
		r = SCAN_OK, l = 1;
	if (r != SCAN_OK)
		return refuse(j, j->p, r, "invalid UTF-8 in a string");
	int e = core_jpull_keep(j, n, j->p, l);
	j->p += l;
	return e;
}

int core_jpull_string(struct core_jpull *j, struct core_jtok *t)
{
	const char *open = j->p++;
	size_t n = 0;
	int e = core_jpull_keep(j, &n, "", 0);
	while (!e) {
		/* a run of plain ASCII at once: most of a record is addresses */
		const char *run = j->p;
		while (j->p < j->end && (unsigned char)*j->p >= 0x20 && (unsigned char)*j->p < 0x80 &&
		       *j->p != '"' && *j->p != '\\')
			j->p++;
		if (j->p > run && (e = core_jpull_keep(j, &n, run, (size_t)(j->p - run))))
			break;
		if (j->p >= j->end)
			return refuse(j, open, SCAN_CUT, NULL);
		unsigned char c = (unsigned char)*j->p;
		if (c == '"')
			break;
		if (c < 0x20)
			return refuse(j, j->p, SCAN_BAD, "control character in a string");
		e = c == '\\' ? escape(j, &n) : character(j, &n);
	}
	if (e)
		return e;
	j->p++;
	j->buf[n] = 0;
	t->str = j->buf;
	t->len = n;
	return 0;
}
