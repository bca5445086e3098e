/* SPDX-License-Identifier: BSD-2-Clause */
/* core_json_reencode: a target's JSON copied token by token as core_jpull
 * reads it. Each token is written as it stood in the input (a string's
 * escapes kept, a number's digits kept), so what was accepted is what is
 * written; only the white space between tokens goes, and the separators
 * are written by this loop, never copied. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "core_jpull.h"
#include "core_json.h"

struct out {
	char *s;
	size_t n, cap;
};

static int put(struct out *o, const char *s, size_t n)
{
	if (CORE_GROW(&o->s, &o->cap, o->n + n + 1))
		return -ENOMEM;
	memcpy(o->s + o->n, s, n);
	o->n += n;
	o->s[o->n] = 0;
	return 0;
}

/* The token t with the separator before it: ':' after a key, ',' before
 * any member but a container's first. *first: the innermost container has
 * no member yet; *after_key: the token before was a key. */
static int write_token(struct out *o, const struct core_jtok *t, int *first, int *after_key)
{
	int close = t->type == CORE_J_OBJECT_END || t->type == CORE_J_ARRAY_END, e = 0;
	if (*after_key)
		e = put(o, ":", 1);
	else if (!close && !*first)
		e = put(o, ",", 1);
	if (!e)
		e = put(o, t->src, t->src_len);
	*first = t->type == CORE_J_OBJECT || t->type == CORE_J_ARRAY;
	*after_key = t->type == CORE_J_KEY;
	return e;
}

int core_json_reencode(const char *in, char **out, struct core_jerror *err)
{
	struct core_jpull j;
	struct core_jtok t;
	struct out o = { 0 };
	int first = 1, after_key = 0, e;
	if (err)
		memset(err, 0, sizeof(*err));
	core_jpull_init(&j, in, strlen(in), SIZE_MAX, CORE_JPULL_MAX_DEPTH);
	while (!(e = core_jpull_next(&j, &t)) && t.type != CORE_J_END)
		if ((e = write_token(&o, &t, &first, &after_key)))
			break;
	if (e == -EINVAL && err)
		*err = j.err;
	core_jpull_free(&j);
	if (e) {
		free(o.s);
		return e;
	}
	*out = o.s;
	return 0;
}
