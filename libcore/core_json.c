/* SPDX-License-Identifier: BSD-2-Clause */
/* RFC 8259 string escaping: quote, backslash and control characters; bytes
 * >= 0x80 pass through (paths are bytes, JSON wants UTF-8: invalid UTF-8 in
 * a path is escaped as \u00XX per byte so the output always parses). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
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

/* The re-encoder: a recursive-descent parser that copies what it accepts. */
struct reenc {
	const char *p;
	char *o;
	size_t n, cap;
	int depth;
};

#define MAX_DEPTH 256

static int put(struct reenc *r, const char *s, size_t n)
{
	if (CORE_GROW(&r->o, &r->cap, r->n + n + 1))
		return -ENOMEM;
	memcpy(r->o + r->n, s, n);
	r->n += n;
	return 0;
}

static void skip_ws(struct reenc *r)
{
	while (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')
		r->p++;
}

static int value(struct reenc *r);

static int string(struct reenc *r)
{
	const char *s = r->p++; /* the opening quote */
	for (;;) {
		unsigned char c = (unsigned char)*r->p;
		if (c == '"')
			break;
		if (c < 0x20) /* raw control bytes, and the end of the text */
			return -EINVAL;
		if (c == '\\') {
			const char *e = r->p + 1;
			if (*e == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)e[i]))
						return -EINVAL;
				r->p += 6;
			} else if (*e && strchr("\"\\/bfnrt", *e)) {
				r->p += 2;
			} else {
				return -EINVAL;
			}
			continue;
		}
		size_t l = c < 0x80 ? 1 : core_utf8_len((const unsigned char *)r->p);
		if (!l)
			return -EINVAL;
		r->p += l;
	}
	r->p++;
	return put(r, s, (size_t)(r->p - s));
}

static int number(struct reenc *r)
{
	const char *s = r->p;
	if (*r->p == '-')
		r->p++;
	if (*r->p == '0')
		r->p++;
	else if (*r->p >= '1' && *r->p <= '9')
		while (isdigit((unsigned char)*r->p))
			r->p++;
	else
		return -EINVAL;
	if (*r->p == '.') {
		if (!isdigit((unsigned char)*++r->p))
			return -EINVAL;
		while (isdigit((unsigned char)*r->p))
			r->p++;
	}
	if (*r->p == 'e' || *r->p == 'E') {
		r->p++;
		if (*r->p == '+' || *r->p == '-')
			r->p++;
		if (!isdigit((unsigned char)*r->p))
			return -EINVAL;
		while (isdigit((unsigned char)*r->p))
			r->p++;
	}
	return put(r, s, (size_t)(r->p - s));
}

/* An object or array: open, members separated by commas, close. */
static int container(struct reenc *r, char close)
{
	if (++r->depth > MAX_DEPTH)
		return -EINVAL;
	int e = put(r, r->p++, 1);
	skip_ws(r);
	for (int first = 1; !e && *r->p != close; first = 0) {
		if (!first) {
			if (*r->p != ',')
				return -EINVAL;
			e = put(r, r->p++, 1);
			skip_ws(r);
		}
		if (!e && close == '}') {
			if (*r->p != '"')
				return -EINVAL;
			e = string(r);
			skip_ws(r);
			if (!e && *r->p != ':')
				return -EINVAL;
			if (!e)
				e = put(r, r->p++, 1);
		}
		if (!e)
			e = value(r);
	}
	if (e)
		return e;
	r->depth--;
	return put(r, r->p++, 1);
}

static int value(struct reenc *r)
{
	static const char *const words[] = { "true", "false", "null" };
	int e;
	skip_ws(r);
	switch (*r->p) {
	case '{':
		e = container(r, '}');
		break;
	case '[':
		e = container(r, ']');
		break;
	case '"':
		e = string(r);
		break;
	default:
		e = -EINVAL;
		for (size_t i = 0; i < 3 && e; i++) {
			size_t l = strlen(words[i]);
			if (!strncmp(r->p, words[i], l)) {
				e = put(r, r->p, l);
				r->p += l;
			}
		}
		if (e == -EINVAL)
			e = number(r);
	}
	skip_ws(r);
	return e;
}

int core_json_reencode(const char *in, char **out)
{
	struct reenc r = { .p = in };
	int e = value(&r);
	if (!e && *r.p)
		e = -EINVAL; /* more than one value */
	if (!e)
		e = put(&r, "", 0);
	if (e) {
		free(r.o);
		return e;
	}
	r.o[r.n] = 0;
	*out = r.o;
	return 0;
}
