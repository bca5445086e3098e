/* SPDX-License-Identifier: BSD-2-Clause */
/* core_jtree: a JSON document read into a tree, for the figures jeattach
 * takes out of a report someone else wrote (jemalloc's malloc_stats_print
 * in its JSON form). RFC 8259, bounded nesting; numbers kept as unsigned
 * integers when they are ones (jemalloc's counters are uint64_t and would
 * lose their low bits in a double), else as doubles. */
#ifndef CORE_JTREE_H
#define CORE_JTREE_H

#include <stddef.h>
#include <stdint.h>

enum core_jtype {
	CORE_JNULL, CORE_JBOOL, CORE_JNUM, CORE_JSTR, CORE_JARR, CORE_JOBJ,
};

struct core_jnode {
	enum core_jtype type;
	const char *key;      /* an object's member: its name (unescaped); else NULL */
	const char *str;      /* CORE_JSTR: the string, unescaped (\u0000 ends it) */
	uint64_t u;           /* CORE_JNUM: the value, when a non-negative integer */
	int is_uint;          /* ... it is one (else only d) */
	double d;             /* CORE_JNUM: the value as a double; CORE_JBOOL: 0 or 1 */
	size_t first, next;   /* children and siblings, as node indexes; 0: none */
	size_t n;             /* CORE_JARR, CORE_JOBJ: how many children */
};

struct core_jtree;

/* A node takes 64 bytes: "[0,0,...]" would make one per two bytes of
 * text, so the count is bounded (jemalloc's --frag report makes ~5,000). */
#define CORE_JTREE_MAX_NODES (1u << 20)

/* Parse exactly one JSON value (whitespace around it). 0; -EINVAL with
 * the byte offset of the fault in *at (if at is given); -E2BIG past
 * CORE_JTREE_MAX_NODES values; -ENOMEM. */
int core_jtree_parse(const char *text, size_t len, struct core_jtree **out, size_t *at);
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
