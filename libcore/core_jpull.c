/* SPDX-License-Identifier: BSD-2-Clause */
/* The token reader of core_jpull.h. Where a token may stand is decided by
 * the container it is in and what came before in it (its state), kept per
 * level on a fixed stack: the nesting a file asks for never allocates. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "core_jpull.h"
#include "core_text.h"

enum { ST_OPENED = 0, ST_MEMBER = 1, ST_KEY = 2, ST_COMMA = 3 };

void core_jpull_init(struct core_jpull *j, const char *text, size_t len, size_t max_string)
{
	memset(j, 0, sizeof(*j));
	j->p = j->start = text;
	j->end = text + len;
	j->max_string = max_string;
}

void core_jpull_free(struct core_jpull *j)
{
	free(j->buf);
	j->buf = NULL;
	j->buf_cap = 0;
}

static int bad(struct core_jpull *j, const char *at, const char *why)
{
	j->error = why;
	j->error_at = (size_t)(at - j->start);
	return -EINVAL;
}

static void skip_ws(struct core_jpull *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int put(struct core_jpull *j, size_t *n, const char *s, size_t l)
{
	if (*n + l > j->max_string)
		return bad(j, j->p, "string too long");
	if (CORE_GROW(&j->buf, &j->buf_cap, *n + l + 1))
		return -ENOMEM;
	memcpy(j->buf + *n, s, l);
	*n += l;
	return 0;
}

static int hex4(const char *s, const char *end, unsigned *v)
{
	*v = 0;
	if (end - s < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
						    : 16;
		if (d == 16)
			return -1;
		*v = *v << 4 | d;
	}
	return 0;
}

/* \uXXXX (a surrogate pair as one character) as UTF-8 into out: its
 * length, or 0 if invalid. U+0000 is refused: strings are C strings. */
static size_t unicode_escape(struct core_jpull *j, char out[4])
{
	unsigned c, lo;
	if (hex4(j->p + 2, j->end, &c))
		return 0;
	j->p += 6;
	if (c >= 0xdc00 && c <= 0xdfff)
		return 0;
	if (c >= 0xd800 && c <= 0xdbff) {
		if (j->end - j->p < 6 || j->p[0] != '\\' || j->p[1] != 'u' ||
		    hex4(j->p + 2, j->end, &lo) || lo < 0xdc00 || lo > 0xdfff)
			return 0;
		j->p += 6;
		c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
	}
	if (!c)
		return 0;
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* Does the text from at stop short inside \uXXXX or \uXXXX\uXXXX (a file
 * cut there, not a bad escape)? */
static int cut_in_escape(const char *at, const char *end)
{
	static const char shape[] = "\\uxxxx\\uxxxx";
	size_t left = (size_t)(end - at);
	if (left >= sizeof(shape) - 1)
		return 0;
	for (size_t i = 0; i < left; i++)
		if (shape[i] == 'x' ? !isxdigit((unsigned char)at[i]) : at[i] != shape[i])
			return 0;
	return 1;
}

/* A string at j->p (its quote), decoded into j->buf. */
static int string(struct core_jpull *j, struct core_jtok *t)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *open = j->p++;
	size_t n = 0;
	int e = put(j, &n, "", 0);
	while (!e) {
		/* a run of plain ASCII at once: most of a record is addresses */
		const char *run = j->p;
		while (j->p < j->end && (unsigned char)*j->p >= 0x20 && (unsigned char)*j->p < 0x80 &&
		       *j->p != '"' && *j->p != '\\')
			j->p++;
		if (j->p > run && (e = put(j, &n, run, (size_t)(j->p - run))))
			break;
		if (j->p >= j->end)
			return bad(j, open, "truncated: the input ends inside a string");
		unsigned char c = (unsigned char)*j->p;
		char u[4];
		size_t l;
		if (c == '"')
			break;
		if (c < 0x20)
			return bad(j, j->p, "control character in a string");
		if (c == '\\') {
			const char *esc = j->p + 1 < j->end ? strchr(from, j->p[1]) : NULL;
			if (j->p + 1 < j->end && j->p[1] == 'u') {
				const char *at = j->p;
				if (!(l = unicode_escape(j, u)))
					return bad(j, at, cut_in_escape(at, j->end)
								  ? "truncated: the input ends inside a string"
								  : "invalid \\u escape");
				e = put(j, &n, u, l);
			} else if (esc && *esc) {
				e = put(j, &n, &to[esc - from], 1);
				j->p += 2;
			} else {
				return bad(j, j->p, j->p + 1 < j->end ? "invalid escape"
							  : "truncated: the input ends inside a string");
			}
			continue;
		}
		/* the text is NUL-terminated at its end: core_utf8_len stops there */
		l = c < 0x80 ? 1 : core_utf8_len((const unsigned char *)j->p);
		if (!l || j->p + l > j->end)
			return bad(j, j->p, "invalid UTF-8 in a string");
		e = put(j, &n, j->p, l);
		j->p += l;
	}
	if (e)
		return e;
	j->p++;
	j->buf[n] = 0;
	t->str = j->buf;
	t->len = n;
	return 0;
}

static const char *digits(const char *p, const char *end)
{
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p;
}

/* A number's text, checked against RFC 8259's grammar; bounded like a string. */
static int number(struct core_jpull *j, struct core_jtok *t)
{
	const char *s = j->p, *p = s, *end = j->end;
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (p < end && *p >= '1' && *p <= '9')
		p = digits(p, end);
	else
		return bad(j, s, p < end ? "expected a value" : "truncated: expected a value");
	if (p < end && *p == '.') {
		const char *f = ++p;
		if ((p = digits(p, end)) == f)
			return bad(j, p, p < end ? "expected a digit after '.'"
						 : "truncated: expected a digit after '.'");
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		const char *x = p;
		if ((p = digits(p, end)) == x)
			return bad(j, p, p < end ? "expected an exponent" : "truncated: expected an exponent");
	}
	/* Inside a container, a number the input ends with was cut: the
	 * container's close is missing too. */
	if (p >= end && j->depth)
		return bad(j, s, "truncated: the input ends inside a value");
	size_t n = 0;
	int e = put(j, &n, s, (size_t)(p - s));
	if (e)
		return e;
	j->buf[n] = 0;
	j->p = p;
	t->str = j->buf;
	t->len = n;
	return 0;
}

/* After a complete value: the container it is in wants a comma or its close. */
static void value_done(struct core_jpull *j)
{
	if (j->depth)
		j->state[j->depth - 1] = ST_MEMBER;
	else
		j->done = 1;
}

static int value(struct core_jpull *j, struct core_jtok *t)
{
	static const struct {
		const char *word;
		int type;
	} words[] = { { "true", CORE_J_TRUE }, { "false", CORE_J_FALSE }, { "null", CORE_J_NULL } };
	char c = *j->p;
	if (c == '{' || c == '[') {
		if (j->depth >= CORE_JPULL_MAX_DEPTH)
			return bad(j, j->p, "nested too deep");
		j->stack[j->depth] = (unsigned char)c;
		j->state[j->depth++] = ST_OPENED;
		j->p++;
		t->type = c == '{' ? CORE_J_OBJECT : CORE_J_ARRAY;
		return 0;
	}
	int e;
	if (c == '"') {
		t->type = CORE_J_STRING;
		e = string(j, t);
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		t->type = CORE_J_NUMBER;
		e = number(j, t);
	} else {
		/* A word the input ends inside ("tr") is a cut file, not a bad one. */
		const char *why = "expected a value";
		size_t left = (size_t)(j->end - j->p);
		e = -EINVAL;
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]) && e; i++) {
			size_t l = strlen(words[i].word);
			if (left >= l && !memcmp(j->p, words[i].word, l)) {
				t->type = words[i].type;
				j->p += l;
				e = 0;
			} else if (left < l && !memcmp(j->p, words[i].word, left)) {
				why = "truncated: expected a value";
			}
		}
		if (e)
			e = bad(j, j->p, why);
	}
	if (!e)
		value_done(j);
	return e;
}

/* Inside a container: a close, a separator, a key or a member. */
static int member(struct core_jpull *j, struct core_jtok *t)
{
	int d = j->depth - 1, obj = j->stack[d] == '{';
	char close = obj ? '}' : ']';
	if (j->state[d] == ST_KEY) {
		if (*j->p != ':')
			return bad(j, j->p, "expected ':'");
		j->p++;
		skip_ws(j);
		if (j->p >= j->end)
			return bad(j, j->p, "truncated: expected a value");
		return value(j, t);
	}
	if (*j->p == close && j->state[d] != ST_COMMA) {
		j->p++;
		j->depth--;
		t->type = obj ? CORE_J_OBJECT_END : CORE_J_ARRAY_END;
		value_done(j);
		return 0;
	}
	if (j->state[d] == ST_MEMBER) {
		if (*j->p != ',')
			return bad(j, j->p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		j->p++;
		j->state[d] = ST_COMMA;
		skip_ws(j);
		if (j->p >= j->end)
			return bad(j, j->p, "truncated: expected a member");
	}
	if (!obj)
		return value(j, t);
	if (*j->p != '"')
		return bad(j, j->p, "expected a member name");
	t->type = CORE_J_KEY;
	j->state[d] = ST_KEY;
	return string(j, t);
}

int core_jpull_next(struct core_jpull *j, struct core_jtok *t)
{
	t->str = NULL;
	t->len = 0;
	skip_ws(j);
	if (j->done) {
		if (j->p < j->end)
			return bad(j, j->p, "text after the value");
		t->type = CORE_J_END;
		return 0;
	}
	if (j->p >= j->end)
		return bad(j, j->p, j->depth ? "truncated: the input ends inside a value"
					     : "empty input");
	if (!*j->p)
		return bad(j, j->p, "NUL byte in the text");
	return j->depth ? member(j, t) : value(j, t);
}

int core_jpull_skip(struct core_jpull *j, const struct core_jtok *t)
{
	if (t->type != CORE_J_OBJECT && t->type != CORE_J_ARRAY)
		return 0;
	int until = j->depth - 1, e = 0;
	struct core_jtok x;
	while (!e && j->depth > until)
		e = core_jpull_next(j, &x);
	return e;
}

void core_jpull_where(const struct core_jpull *j, size_t at, unsigned long *line,
		      unsigned long *column)
{
	*line = 1;
	*column = 1;
	for (const char *p = j->start; p < j->start + at && p < j->end; p++) {
		if (*p == '\n') {
			++*line;
			*column = 1;
		} else {
			++*column;
		}
	}
}

/* An integer's text: its sign and digits, or -EINVAL for a fraction or
 * an exponent. */
static int integer_text(const struct core_jtok *t, int *neg, const char **d)
{
	if (t->type != CORE_J_NUMBER)
		return -EINVAL;
	*neg = t->str[0] == '-';
	*d = t->str + *neg;
	return strspn(*d, "0123456789") == strlen(*d) ? 0 : -EINVAL;
}

int core_jnum_u64(const struct core_jtok *t, uint64_t *v)
{
	int neg;
	const char *d;
	if (integer_text(t, &neg, &d) || neg)
		return -EINVAL;
	uint64_t x = 0;
	for (; *d; d++) {
		unsigned k = (unsigned)(*d - '0');
		if (x > (UINT64_MAX - k) / 10)
			return -ERANGE;
		x = x * 10 + k;
	}
	*v = x;
	return 0;
}

int core_jnum_i64(const struct core_jtok *t, int64_t *v)
{
	int neg;
	const char *d;
	if (integer_text(t, &neg, &d))
		return -EINVAL;
	uint64_t x = 0;
	for (; *d; d++) {
		unsigned k = (unsigned)(*d - '0');
		if (x > ((uint64_t)INT64_MAX + 1 - k) / 10)
			return -ERANGE;
		x = x * 10 + k;
	}
	if (x > (uint64_t)INT64_MAX + neg)
		return -ERANGE;
	*v = neg ? (int64_t)(0 - x) : (int64_t)x;
	return 0;
}

int core_jnum_double(const struct core_jtok *t, double *v)
{
	if (t->type != CORE_J_NUMBER)
		return -EINVAL;
	char *end;
	double x = strtod(t->str, &end);
	if (*end)
		return -EINVAL;
	if (!isfinite(x))
		return -ERANGE;
	*v = x;
	return 0;
}
