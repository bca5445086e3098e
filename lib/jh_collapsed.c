/* SPDX-License-Identifier: BSD-2-Clause */
/* Collapsed ("folded") stacks: one line per distinct stack, root first,
 * frames joined by ';', the value after a space: the input of
 * flamegraph.pl, speedscope and inferno. ';', '%' and line breaks inside a
 * name are written %3B, %25, %0A, %0D. Recursion is kept (a flame graph
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
	struct jh_entries names;
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

static int add(struct collapse *c, const char *stack, double v, int base)
{
	if (jh_strindex_reserve(&c->index, c->n, stack_key, c))
		return JEHEAP_ENOMEM;
	uint32_t *slot = jh_strindex_slot(&c->index, stack, stack_key, c);
	if (*slot) {
		struct folded *f = &c->v[*slot - 1];
		*(base ? &f->base : &f->value) += v;
		return 0;
	}
	if (jh_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return JEHEAP_ENOMEM;
	struct folded *f = &c->v[c->n];
	if (!(f->stack = strdup(stack)))
		return JEHEAP_ENOMEM;
	f->value = base ? 0 : v;
	f->base = base ? v : 0;
	*slot = (uint32_t)(++c->n);
	return 0;
}

/* Bytes a name must not hold in the folded form: ';' separates frames
 * and a line ends the stack, so a name with either (a C++ operator;, a
 * Rust or assembler label) would split. Written %XX, as in a URL. */
static int needs_escape(unsigned char ch)
{
	return ch == ';' || ch == '\n' || ch == '\r' || ch == '%';
}

static char *put_name(char *o, const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
		if (needs_escape(*p)) {
			static const char hex[] = "0123456789ABCDEF";
			*o++ = '%';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 15];
		} else {
			*o++ = (char)*p;
		}
	}
	return o;
}

static int add_stack(void *arg, const struct jh_reduced *rs)
{
	struct collapse *c = arg;
	const uint32_t *path = rs->path;
	size_t n = rs->n, len = 1;
	for (size_t i = 0; i < n; i++)
		len += 3 * strlen(c->names.e[path[i]].name) + 1; /* each byte may be %XX */
	if (jh_grow((void **)&c->buf, &c->buf_cap, len, 1))
		return JEHEAP_ENOMEM;
	char *o = c->buf;
	for (size_t i = n; i-- > 0;) { /* root first */
		o = put_name(o, c->names.e[path[i]].name);
		*o++ = i ? ';' : 0;
	}
	return add(c, c->buf, rs->value, rs->which < 0);
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
	static const struct jh_sink sink = { .stack = add_stack };
	int r = jh_reduce_run(p, s, q, &sink, &c, &c.names);
	if (!r && c.n) /* qsort's pointer must not be NULL, even for 0 items */
		qsort(c.v, c.n, sizeof(*c.v), cmp_folded);
	for (size_t i = 0; i < c.n && !r; i++)
		r = cb(c.v[i].stack, c.v[i].value, c.v[i].base, arg);
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i].stack);
	free(c.v);
	free(c.index.slots);
	free(c.buf);
	jh_entries_free(&c.names);
	return r;
}
