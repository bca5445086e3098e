/* SPDX-License-Identifier: BSD-2-Clause */
/* A JSON tree (core_jtree.h) built from core_jpull's tokens: one array of
 * nodes and one buffer of decoded strings, linked by indexes so that
 * growing either never leaves a dangling pointer while parsing. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "core_jpull.h"
#include "core_jtree.h"

/* While parsing, key and str hold offsets into the string buffer + 1 (0:
 * none); core_jtree_parse turns them into pointers once nothing grows. */
struct core_jtree {
	struct core_jnode *v;
	size_t n, cap;
	char *s;
	size_t sn, scap;
};

/* The tree being built from the tokens: the open containers (core_jpull
 * bounds how many), the last child of each, the name of the member whose
 * value comes next. */
struct build {
	struct core_jtree *t;
	size_t open[CORE_JTREE_MAX_DEPTH], last[CORE_JTREE_MAX_DEPTH];
	int depth;
	size_t key;
};

/* A decoded string into the buffer: *off its offset + 1. */
static int keep_string(struct core_jtree *t, const struct core_jtok *tok, size_t *off)
{
	if (CORE_GROW(&t->s, &t->scap, t->sn + tok->len + 1))
		return -ENOMEM;
	memcpy(t->s + t->sn, tok->str, tok->len + 1);
	*off = t->sn + 1;
	t->sn += tok->len + 1;
	return 0;
}

/* A node for the value tok begins, linked under the open container. */
static int add(struct build *b, const struct core_jtok *tok)
{
	struct core_jtree *t = b->t;
	if (t->n >= CORE_JTREE_MAX_NODES)
		return -E2BIG;
	if (CORE_GROW(&t->v, &t->cap, t->n + 1))
		return -ENOMEM;
	size_t i = t->n++, off;
	struct core_jnode *nd = &t->v[i];
	memset(nd, 0, sizeof(*nd));
	nd->type = (enum core_jtype)tok->type;
	nd->key = (const char *)b->key;
	b->key = 0;
	if (b->depth) {
		int d = b->depth - 1;
		if (b->last[d])
			t->v[b->last[d]].next = i;
		else
			t->v[b->open[d]].first = i;
		b->last[d] = i;
		t->v[b->open[d]].n++;
	}
	if (tok->type == CORE_J_STRING) {
		if (keep_string(t, tok, &off))
			return -ENOMEM;
		nd->str = (const char *)off;
	} else if (tok->type == CORE_J_NUMBER) {
		nd->d = strtod(tok->str, NULL);
		nd->is_uint = !core_jnum_u64(tok, &nd->u);
	} else if (tok->type == CORE_J_OBJECT || tok->type == CORE_J_ARRAY) {
		b->open[b->depth] = i;
		b->last[b->depth++] = 0;
	}
	return 0;
}

static int step(struct build *b, const struct core_jtok *tok)
{
	switch (tok->type) {
	case CORE_J_KEY:
		return keep_string(b->t, tok, &b->key);
	case CORE_J_OBJECT_END:
	case CORE_J_ARRAY_END:
		b->depth--;
		return 0;
	default:
		return add(b, tok);
	}
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

int core_jtree_parse(const char *text, size_t len, struct core_jtree **out,
		     struct core_jerror *err)
{
	struct build b = { .t = calloc(1, sizeof(struct core_jtree)) };
	if (err)
		memset(err, 0, sizeof(*err));
	if (!b.t)
		return -ENOMEM;
	struct core_jpull j;
	struct core_jtok tok;
	core_jpull_init(&j, text, len, SIZE_MAX, CORE_JTREE_MAX_DEPTH);
	j.any_bytes = 1;
	int e;
	while (!(e = core_jpull_next(&j, &tok)) && tok.type != CORE_J_END)
		if ((e = step(&b, &tok)))
			break;
	if (e == -E2BIG)
		j.err = (struct core_jerror){ CORE_JERR_LIMIT, "more values than a tree holds",
					      (size_t)(tok.src - text) };
	core_jpull_free(&j);
	if (e) {
		if (err && e != -ENOMEM)
			*err = j.err;
		core_jtree_free(b.t);
		return e;
	}
	fix_strings(b.t);
	*out = b.t;
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
	if (!obj || obj->type != CORE_J_OBJECT)
		return NULL;
	for (const struct core_jnode *c = core_jtree_child(t, obj); c; c = core_jtree_next(t, c))
		if (!strcmp(c->key, key))
			return c;
	return NULL;
}

const struct core_jnode *core_jtree_at(const struct core_jtree *t, const struct core_jnode *arr,
				       size_t i)
{
	if (!arr || (arr->type != CORE_J_ARRAY && arr->type != CORE_J_OBJECT) || i >= arr->n)
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
	if (!c || c->type != CORE_J_NUMBER || !c->is_uint)
		return -1;
	*out = c->u;
	return 0;
}
