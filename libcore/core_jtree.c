/* SPDX-License-Identifier: BSD-2-Clause */
/* A JSON tree (core_jtree.h): one array of nodes and one buffer of
 * unescaped strings, linked by indexes so that growing either never
 * leaves a dangling pointer while parsing. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "core_jtree.h"

#define MAX_DEPTH 64 /* jemalloc's report nests 6 deep */

/* While parsing, key and str hold offsets into the string buffer + 1 (0:
 * none); core_jtree_parse turns them into pointers once nothing grows. */
struct core_jtree {
	struct core_jnode *v;
	size_t n, cap;
	char *s;
	size_t sn, scap;
};

struct parser {
	struct core_jtree *t;
	const char *p, *end;
	int depth;
};

static int ws(struct parser *ps)
{
	while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
		ps->p++;
	return ps->p < ps->end ? (unsigned char)*ps->p : -1;
}

static int put_bytes(struct core_jtree *t, const char *b, size_t n)
{
	if (CORE_GROW(&t->s, &t->scap, t->sn + n + 1))
		return -ENOMEM;
	memcpy(t->s + t->sn, b, n);
	t->sn += n;
	return 0;
}

/* \uXXXX (with a surrogate pair when there is one) as UTF-8. */
static int put_escape_u(struct parser *ps)
{
	unsigned cp = 0;
	for (int i = 0; i < 4; i++) {
		if (ps->p >= ps->end || !isxdigit((unsigned char)*ps->p))
			return -EINVAL;
		char c = *ps->p++;
		cp = cp * 16 + (unsigned)(isdigit((unsigned char)c) ? c - '0' : (tolower(c) - 'a' + 10));
	}
	char b[4];
	size_t n;
	if (cp < 0x80)
		b[0] = (char)cp, n = 1;
	else if (cp < 0x800)
		b[0] = (char)(0xc0 | cp >> 6), b[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	else
		b[0] = (char)(0xe0 | cp >> 12), b[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
		b[2] = (char)(0x80 | (cp & 0x3f)), n = 3; /* a lone surrogate stays one */
	return put_bytes(ps->t, b, n);
}

/* A string at ps->p (its quote): unescaped into the buffer; *off its
 * offset + 1. */
static int string(struct parser *ps, size_t *off)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	*off = ps->t->sn + 1;
	ps->p++;
	for (;;) {
		if (ps->p >= ps->end || (unsigned char)*ps->p < 0x20)
			return -EINVAL;
		const char *run = ps->p;
		while (ps->p < ps->end && *ps->p != '"' && *ps->p != '\\' &&
		       (unsigned char)*ps->p >= 0x20)
			ps->p++;
		int e = put_bytes(ps->t, run, (size_t)(ps->p - run));
		if (e || ps->p >= ps->end)
			return e ? e : -EINVAL;
		if (*ps->p == '"')
			break;
		if (*ps->p != '\\')
			return -EINVAL;
		if (++ps->p >= ps->end)
			return -EINVAL;
		const char *k = strchr(from, *ps->p);
		if (*ps->p == 'u') {
			ps->p++;
			e = put_escape_u(ps);
		} else if (k && *k) {
			e = put_bytes(ps->t, &to[k - from], 1);
			ps->p++;
		} else {
			e = -EINVAL;
		}
		if (e)
			return e;
	}
	ps->p++;
	ps->t->s[ps->t->sn++] = 0; /* put_bytes left room for it */
	return 0;
}

static int number(struct parser *ps, struct core_jnode *nd)
{
	const char *s = ps->p;
	int neg = ps->p < ps->end && *ps->p == '-', integer = 1;
	ps->p += neg;
	if (ps->p >= ps->end || !isdigit((unsigned char)*ps->p))
		return -EINVAL;
	if (*ps->p == '0')
		ps->p++;
	else
		while (ps->p < ps->end && isdigit((unsigned char)*ps->p))
			ps->p++;
	if (ps->p < ps->end && *ps->p == '.') {
		integer = 0;
		if (++ps->p >= ps->end || !isdigit((unsigned char)*ps->p))
			return -EINVAL;
		while (ps->p < ps->end && isdigit((unsigned char)*ps->p))
			ps->p++;
	}
	if (ps->p < ps->end && (*ps->p == 'e' || *ps->p == 'E')) {
		integer = 0;
		ps->p++;
		if (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-'))
			ps->p++;
		if (ps->p >= ps->end || !isdigit((unsigned char)*ps->p))
			return -EINVAL;
		while (ps->p < ps->end && isdigit((unsigned char)*ps->p))
			ps->p++;
	}
	char buf[64];
	size_t n = (size_t)(ps->p - s);
	if (n >= sizeof(buf))
		n = sizeof(buf) - 1; /* the double of a longer one is approximate anyway */
	memcpy(buf, s, n);
	buf[n] = 0;
	nd->type = CORE_JNUM;
	nd->d = strtod(buf, NULL);
	if (integer && !neg) {
		errno = 0;
		nd->u = strtoull(buf, NULL, 10);
		nd->is_uint = errno == 0;
	}
	return 0;
}

static int value(struct parser *ps, size_t *idx);

/* The members of an object or the elements of an array, linked under
 * node idx. */
static int members(struct parser *ps, size_t idx, char close)
{
	size_t last = 0;
	if (++ps->depth > MAX_DEPTH)
		return -EINVAL;
	ps->p++;
	for (int c = ws(ps); c != close; c = ws(ps)) {
		size_t key = 0, child;
		int e;
		if (last && c != ',')
			return -EINVAL;
		if (last && (c = (ps->p++, ws(ps))) < 0)
			return -EINVAL;
		if (close == '}') {
			if (c != '"' || (e = string(ps, &key)))
				return c != '"' ? -EINVAL : e;
			if (ws(ps) != ':')
				return -EINVAL;
			ps->p++;
		}
		if ((e = value(ps, &child)))
			return e;
		ps->t->v[child].key = (const char *)key;
		if (last)
			ps->t->v[last].next = child;
		else
			ps->t->v[idx].first = child;
		last = child;
		ps->t->v[idx].n++;
	}
	ps->p++;
	ps->depth--;
	return 0;
}

static int value(struct parser *ps, size_t *idx)
{
	struct core_jtree *t = ps->t;
	if (t->n >= CORE_JTREE_MAX_NODES)
		return -E2BIG;
	if (CORE_GROW(&t->v, &t->cap, t->n + 1))
		return -ENOMEM;
	*idx = t->n++;
	memset(&t->v[*idx], 0, sizeof(t->v[*idx]));
	int c = ws(ps), e = 0;
	size_t off;
	if (c == '{' || c == '[') {
		t->v[*idx].type = c == '{' ? CORE_JOBJ : CORE_JARR;
		return members(ps, *idx, c == '{' ? '}' : ']');
	}
	if (c == '"') {
		if ((e = string(ps, &off)))
			return e;
		t->v[*idx].type = CORE_JSTR;
		t->v[*idx].str = (const char *)off;
		return 0;
	}
	static const struct {
		const char *w;
		enum core_jtype type;
		double d;
	} words[] = { { "true", CORE_JBOOL, 1 }, { "false", CORE_JBOOL, 0 }, { "null", CORE_JNULL, 0 } };
	for (size_t i = 0; i < 3; i++) {
		size_t l = strlen(words[i].w);
		if ((size_t)(ps->end - ps->p) >= l && !memcmp(ps->p, words[i].w, l)) {
			ps->p += l;
			t->v[*idx].type = words[i].type;
			t->v[*idx].d = words[i].d;
			return 0;
		}
	}
	return number(ps, &t->v[*idx]);
}

/* Offsets + 1 into the string buffer become pointers, now that it is final. */
static void fix_strings(struct core_jtree *t)
{
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].key)
			t->v[i].key = t->s + ((size_t)t->v[i].key - 1);
		if (t->v[i].str)
			t->v[i].str = t->s + ((size_t)t->v[i].str - 1);
	}
}

int core_jtree_parse(const char *text, size_t len, struct core_jtree **out, size_t *at)
{
	struct core_jtree *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	struct parser ps = { .t = t, .p = text, .end = text + len };
	size_t root;
	int e = value(&ps, &root);
	if (!e && ws(&ps) >= 0)
		e = -EINVAL; /* more than one value */
	if (e) {
		if (at)
			*at = (size_t)(ps.p - text);
		core_jtree_free(t);
		return e;
	}
	fix_strings(t);
	*out = t;
	return 0;
}

void core_jtree_free(struct core_jtree *t)
{
	if (!t)
		return;
	free(t->v);
	free(t->s);
	free(t);
}

const struct core_jnode *core_jtree_root(const struct core_jtree *t)
{
	return t && t->n ? &t->v[0] : NULL;
}

const struct core_jnode *core_jtree_child(const struct core_jtree *t, const struct core_jnode *c)
{
	return c && c->first ? &t->v[c->first] : NULL;
}

const struct core_jnode *core_jtree_next(const struct core_jtree *t, const struct core_jnode *c)
{
	return c && c->next ? &t->v[c->next] : NULL;
}

const struct core_jnode *core_jtree_get(const struct core_jtree *t, const struct core_jnode *obj,
					const char *key)
{
	if (!obj || obj->type != CORE_JOBJ)
		return NULL;
	for (const struct core_jnode *c = core_jtree_child(t, obj); c; c = core_jtree_next(t, c))
		if (!strcmp(c->key, key))
			return c;
	return NULL;
}

const struct core_jnode *core_jtree_at(const struct core_jtree *t, const struct core_jnode *arr,
				       size_t i)
{
	if (!arr || (arr->type != CORE_JARR && arr->type != CORE_JOBJ) || i >= arr->n)
		return NULL;
	const struct core_jnode *c = core_jtree_child(t, arr);
	while (i--)
		c = core_jtree_next(t, c);
	return c;
}

int core_jtree_u64(const struct core_jtree *t, const struct core_jnode *obj, const char *key,
		   uint64_t *out)
{
	const struct core_jnode *c = core_jtree_get(t, obj, key);
	if (!c || c->type != CORE_JNUM || !c->is_uint)
		return -1;
	*out = c->u;
	return 0;
}
