/* SPDX-License-Identifier: BSD-2-Clause */
/* Collapsed ("folded") stacks: one line per distinct stack, root first,
 * frames joined by ';', the value after a space: the input of
 * flamegraph.pl, speedscope and inferno. Recursion is kept (a flame graph
 * shows it); allocator frames are pruned as for top. With a base, each
 * stack carries both values (flamegraph's difffolded.pl form). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "jh_reduce.h"

struct folded {
	char *stack;
	double value, base;
};

struct collapse {
	struct jh_reducer r;
	int metric;
	long which; /* whose stacks: -1 the base's */
	struct folded *v;
	size_t n, cap;
	struct jh_strindex index; /* stack string -> element */
	char *buf;
	size_t buf_cap;
};

static const char *stack_key(const void *arg, size_t i)
{
	return ((const struct collapse *)arg)->v[i].stack;
}

static int add(struct collapse *c, const char *stack, double v)
{
	if (jh_strindex_reserve(&c->index, c->n, stack_key, c))
		return JEHEAP_ENOMEM;
	uint32_t *slot = jh_strindex_slot(&c->index, stack, stack_key, c);
	if (*slot) {
		struct folded *f = &c->v[*slot - 1];
		*(c->which < 0 ? &f->base : &f->value) += v;
		return 0;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 1024;
		struct folded *nv = realloc(c->v, cap * sizeof(*nv));
		if (!nv)
			return JEHEAP_ENOMEM;
		c->v = nv;
		c->cap = cap;
	}
	struct folded *f = &c->v[c->n];
	if (!(f->stack = strdup(stack)))
		return JEHEAP_ENOMEM;
	f->value = c->which < 0 ? 0 : v;
	f->base = c->which < 0 ? v : 0;
	*slot = (uint32_t)(++c->n);
	return 0;
}

static int add_stack(const uint64_t *pcs, size_t npcs, const struct jeheap_counts *counts,
		     void *arg)
{
	struct collapse *c = arg;
	const uint32_t *path;
	size_t n, len = 1;
	int e = jh_reduce(&c->r, pcs, npcs, &path, &n);
	if (e || !n)
		return e;
	for (size_t i = 0; i < n; i++)
		len += strlen(c->r.e[path[i]].name) + 1;
	if (len > c->buf_cap) {
		char *nb = realloc(c->buf, len);
		if (!nb)
			return JEHEAP_ENOMEM;
		c->buf = nb;
		c->buf_cap = len;
	}
	char *o = c->buf;
	for (size_t i = n; i-- > 0;) { /* root first */
		const char *name = c->r.e[path[i]].name;
		size_t l = strlen(name);
		memcpy(o, name, l);
		o += l;
		*o++ = i ? ';' : 0;
	}
	return add(c, c->buf, jh_metric(counts, c->metric));
}

static int cmp_folded(const void *a, const void *b)
{
	return strcmp(((const struct folded *)a)->stack, ((const struct folded *)b)->stack);
}

JH_EXPORT int jeheap_collapsed(const jeheap_profile *p, jeheap_symbolizer *s,
			       const struct jeheap_query *q, jeheap_collapsed_cb cb, void *arg)
{
	if (!p || !cb || !jh_query_valid(q))
		return JEHEAP_EINVAL;
	struct collapse c;
	memset(&c, 0, sizeof(c));
	int r = jh_reducer_init(&c.r, q);
	if (r)
		return r;
	c.metric = q->metric;
	r = jh_foreach_input(&c.r, p, s, q, add_stack, &c, &c.which);
	if (!r && c.n) /* qsort's pointer must not be NULL, even for 0 items */
		qsort(c.v, c.n, sizeof(*c.v), cmp_folded);
	for (size_t i = 0; i < c.n && !r; i++)
		r = cb(c.v[i].stack, c.v[i].value, c.v[i].base, arg);
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i].stack);
	free(c.v);
	free(c.index.slots);
	free(c.buf);
	jh_reducer_free(&c.r);
	return r;
}
