/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof --drop_negative (SubtractProfile): with a base, each stack of a
 * profile has the base's same stack (the same addresses) subtracted from
 * it at once, a negative difference counting 0, and the stacks only the
 * base holds are not subtracted at all. Without it, the base is reduced
 * and subtracted on its own (jh_reduce.c, which walks it as input -1). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "jh_index.h"
#include "jh_internal.h"

struct base_stack {
	const uint64_t *pcs;
	size_t npcs;
	struct jeheap_counts c;
	uint32_t next; /* the next stack of the same hash, UINT32_MAX: none */
};

struct base_index {
	struct base_stack *s;
	size_t n, cap;
	struct jh_u64map first; /* hash of the addresses -> first stack */
	jeheap_stack_cb cb;     /* the caller's, for the profile's stacks */
	void *arg;
};

static uint64_t hash_pcs(const uint64_t *pcs, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ n;
	for (size_t i = 0; i < n; i++)
		h = (h ^ pcs[i]) * 0x100000001b3ULL;
	return h;
}

static struct base_stack *find(struct base_index *x, const uint64_t *pcs, size_t n)
{
	uint32_t i = jh_u64map_get(&x->first, hash_pcs(pcs, n));
	for (; i != UINT32_MAX; i = x->s[i].next)
		if (x->s[i].npcs == n && (!n || !memcmp(x->s[i].pcs, pcs, n * sizeof(*pcs))))
			return &x->s[i];
	return NULL;
}

static int add_base(const uint64_t *pcs, size_t n, const struct jeheap_counts *c, void *arg)
{
	struct base_index *x = arg;
	struct base_stack *old = find(x, pcs, n);
	if (old) {
		old->c.inuse_objects += c->inuse_objects;
		old->c.inuse_bytes += c->inuse_bytes;
		old->c.alloc_objects += c->alloc_objects;
		old->c.alloc_bytes += c->alloc_bytes;
		return 0;
	}
	uint32_t *slot = jh_u64map_slot(&x->first, hash_pcs(pcs, n));
	if (!slot || jh_grow((void **)&x->s, &x->cap, x->n + 1, sizeof(*x->s)))
		return JEHEAP_ENOMEM;
	x->s[x->n] = (struct base_stack){ pcs, n, *c, *slot };
	*slot = (uint32_t)x->n++;
	return 0;
}

static double less(double a, double b)
{
	return a > b ? a - b : 0;
}

/* A stack of the profile, minus the base's same stack, at least 0. */
static int subtract(const uint64_t *pcs, size_t n, const struct jeheap_counts *c, void *arg)
{
	struct base_index *x = arg;
	const struct base_stack *b = find(x, pcs, n);
	if (!b)
		return x->cb(pcs, n, c, x->arg);
	struct jeheap_counts d = {
		less(c->inuse_objects, b->c.inuse_objects), less(c->inuse_bytes, b->c.inuse_bytes),
		less(c->alloc_objects, b->c.alloc_objects), less(c->alloc_bytes, b->c.alloc_bytes),
	};
	return x->cb(pcs, n, &d, x->arg);
}

int jh_foreach_dropping_negative(const jeheap_profile *p, const struct jeheap_query *q,
				 jeheap_stack_cb cb, void *arg)
{
	if (p == q->base)
		return 0; /* subtracted from the profile's stacks instead */
	struct base_index x = { .cb = cb, .arg = arg };
	int e = jh_foreach_query_stacks(q->base, q, add_base, &x);
	if (!e)
		e = jh_foreach_query_stacks(p, q, subtract, &x);
	free(x.s);
	jh_u64map_free(&x.first);
	return e;
}
