/* SPDX-License-Identifier: BSD-2-Clause */
/* The grammar of core_jpull.h's tokenizer. Where a token may stand is
 * decided by the container it is in and what came before in it (its
 * state); the kind of each open container is one bit on a fixed stack, so
 * the nesting a file asks for never allocates. Strings and numbers are
 * scanned in core_jpull_string.c and core_jpull_number.c. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core_jpull.h"
#include "core_jpull_scan.h"

/* The innermost container: just opened, after a member (a comma or the
 * close next), after a key (a colon next), after a comma (a member next). */
enum { ST_OPENED = 0, ST_MEMBER = 1, ST_KEY = 2, ST_COMMA = 3 };

void core_jpull_init(struct core_jpull *j, const char *text, size_t len, size_t max_string,
		     int max_depth)
{
	memset(j, 0, sizeof(*j));
	j->p = j->start = text;
	j->end = text + len;
	j->max_string = max_string;
	j->max_depth = max_depth < 0 ? 0 : max_depth > CORE_JPULL_MAX_DEPTH ? CORE_JPULL_MAX_DEPTH
									     : max_depth;
}

void core_jpull_free(struct core_jpull *j)
{
	free(j->buf);
	j->buf = NULL;
	j->buf_cap = 0;
}

static void skip_ws(struct core_jpull *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int in_object(const struct core_jpull *j)
{
	int d = j->depth - 1;
	return j->objects[d / 8] >> (d % 8) & 1;
}

static int open_container(struct core_jpull *j, struct core_jtok *t, int object)
{
	int d = j->depth;
	if (d >= j->max_depth)
		return core_jpull_fail(j, j->p, CORE_JERR_LIMIT, "nested too deep");
	if (object)
		j->objects[d / 8] |= (unsigned char)(1u << (d % 8));
	else
		j->objects[d / 8] &= (unsigned char)~(1u << (d % 8));
	j->depth++;
	j->state = ST_OPENED;
	j->p++;
	t->type = object ? CORE_J_OBJECT : CORE_J_ARRAY;
	return 0;
}

/* After a complete value: the container it is in wants a comma or its close. */
static void value_done(struct core_jpull *j)
{
	if (j->depth)
		j->state = ST_MEMBER;
	else
		j->done = 1;
}

/* true, false or null; a word the input ends inside ("tr") is a cut
 * file, not a bad one. */
static int literal(struct core_jpull *j, struct core_jtok *t)
{
	static const struct {
		const char *word;
		int type;
	} words[] = { { "true", CORE_J_TRUE }, { "false", CORE_J_FALSE }, { "null", CORE_J_NULL } };
	size_t left = (size_t)(j->end - j->p);
	int cut = 0;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t l = strlen(words[i].word);
		if (left >= l && !memcmp(j->p, words[i].word, l)) {
			t->type = words[i].type;
			j->p += l;
			return 0;
		}
		cut |= left < l && !memcmp(j->p, words[i].word, left);
	}
	if (cut)
		return core_jpull_fail(j, j->p, CORE_JERR_CUT, "truncated: expected a value");
	return core_jpull_fail(j, j->p, CORE_JERR_SYNTAX, "expected a value");
}

static int value(struct core_jpull *j, struct core_jtok *t)
{
	char c = *j->p;
	int e;
	t->src = j->p;
	if (c == '{' || c == '[')
		return open_container(j, t, c == '{');
	if (c == '"') {
		t->type = CORE_J_STRING;
		e = core_jpull_string(j, t);
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		t->type = CORE_J_NUMBER;
		e = core_jpull_number(j, t);
	} else {
		e = literal(j, t);
	}
	if (!e)
		value_done(j);
	return e;
}

/* Past a separator (':' or ','): what follows must be there. */
static int after_separator(struct core_jpull *j, const char *cut_why)
{
	j->p++;
	skip_ws(j);
	if (j->p >= j->end)
		return core_jpull_fail(j, j->p, CORE_JERR_CUT, cut_why);
	return 0;
}

/* Inside a container: a close, a separator, a key or a member. */
static int member(struct core_jpull *j, struct core_jtok *t)
{
	int obj = in_object(j), e;
	char close = obj ? '}' : ']';
	if (j->state == ST_KEY) {
		if (*j->p != ':')
			return core_jpull_fail(j, j->p, CORE_JERR_SYNTAX, "expected ':'");
		if ((e = after_separator(j, "truncated: expected a value")))
			return e;
		return value(j, t);
	}
	if (*j->p == close && j->state != ST_COMMA) {
		t->src = j->p++;
		j->depth--;
		t->type = obj ? CORE_J_OBJECT_END : CORE_J_ARRAY_END;
		value_done(j);
		return 0;
	}
	if (j->state == ST_MEMBER) {
		if (*j->p != ',')
			return core_jpull_fail(j, j->p, CORE_JERR_SYNTAX,
					       obj ? "expected ',' or '}'" : "expected ',' or ']'");
		if ((e = after_separator(j, "truncated: expected a member")))
			return e;
		j->state = ST_COMMA;
	}
	if (!obj)
		return value(j, t);
	if (*j->p != '"')
		return core_jpull_fail(j, j->p, CORE_JERR_SYNTAX, "expected a member name");
	t->type = CORE_J_KEY;
	t->src = j->p;
	j->state = ST_KEY;
	return core_jpull_string(j, t);
}

/* The token at j->p (not white space, not the end). */
static int token(struct core_jpull *j, struct core_jtok *t)
{
	if (!*j->p)
		return core_jpull_fail(j, j->p, CORE_JERR_SYNTAX, "NUL byte in the text");
	return j->depth ? member(j, t) : value(j, t);
}

int core_jpull_next(struct core_jpull *j, struct core_jtok *t)
{
	memset(t, 0, sizeof(*t));
	skip_ws(j);
	if (j->done) {
		if (j->p < j->end)
			return core_jpull_fail(j, j->p, CORE_JERR_SYNTAX, "text after the value");
		t->type = CORE_J_END;
		t->src = j->p;
		return 0;
	}
	if (j->p >= j->end)
		return core_jpull_fail(j, j->p, CORE_JERR_CUT,
				       j->depth ? "truncated: the input ends inside a value"
						: "empty input");
	int e = token(j, t);
	if (!e)
		t->src_len = (size_t)(j->p - t->src);
	return e;
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
