/* SPDX-License-Identifier: BSD-2-Clause */
/* core_jtree: a JSON document read into a tree, for the figures jeattach
 * takes out of a report someone else wrote (jemalloc's malloc_stats_print
 * in its JSON form). Built on core_jpull's tokens (RFC 8259, the same
 * typed errors) with any_bytes: jemalloc writes its strings unescaped, so
 * a string's bytes that are not UTF-8 are kept as written (a caller
 * escapes what it prints); nesting and the count of values bounded;
 * numbers kept as unsigned integers when they are ones (jemalloc's
 * counters are uint64_t and would lose their low bits in a double), and
 * as doubles. */
#ifndef CORE_JTREE_H
#define CORE_JTREE_H

#include <stddef.h>
#include <stdint.h>
#include "core_jpull.h"

#define CORE_JTREE_MAX_DEPTH 64 /* jemalloc's report nests 6 deep */

struct core_jnode {
	enum core_jtype type; /* a value's: CORE_J_OBJECT, _ARRAY, _STRING, _NUMBER, _TRUE,
			       * _FALSE or _NULL */
	const char *key;      /* an object's member: its name (decoded); else NULL */
	const char *str;      /* CORE_J_STRING: the string, decoded (any bytes but NUL) */
	uint64_t u;           /* CORE_J_NUMBER: the value, when a non-negative integer */
	int is_uint;          /* ... it is one (else only d) */
	double d;             /* CORE_J_NUMBER: the value as a double (HUGE_VAL past one) */
	size_t first, next;   /* children and siblings, as node indexes; 0: none */
	size_t n;             /* CORE_J_ARRAY, CORE_J_OBJECT: how many children */
};

struct core_jtree;

/* A node takes 64 bytes: "[0,0,...]" would make one per two bytes of
 * text, so the count is bounded (jemalloc's --frag report makes ~5,000). */
#define CORE_JTREE_MAX_NODES (1u << 20)

/* Parse exactly one JSON value (whitespace around it). 0; -EINVAL, and
 * -E2BIG past CORE_JTREE_MAX_NODES values, with why and where in *err (if
 * err is given; kind CORE_JERR_CUT for a text cut short); -ENOMEM. */
int core_jtree_parse(const char *text, size_t len, struct core_jtree **out,
		     struct core_jerror *err);
void core_jtree_free(struct core_jtree *t);

const struct core_jnode *core_jtree_root(const struct core_jtree *t);
/* An object's member named key, or NULL (not an object, or no such key). */
const struct core_jnode *core_jtree_get(const struct core_jtree *t, const struct core_jnode *obj,
					const char *key);
/* An array's (or object's) i-th child, or NULL. */
const struct core_jnode *core_jtree_at(const struct core_jtree *t, const struct core_jnode *arr,
				       size_t i);
/* The child after node c, or NULL (iteration without the quadratic at()). */
const struct core_jnode *core_jtree_next(const struct core_jtree *t, const struct core_jnode *c);
const struct core_jnode *core_jtree_child(const struct core_jtree *t, const struct core_jnode *c);
/* obj's member key as a non-negative integer: 0, or -1 (absent, not an integer). */
int core_jtree_u64(const struct core_jtree *t, const struct core_jnode *obj, const char *key,
		   uint64_t *out);

#endif
