/* SPDX-License-Identifier: BSD-2-Clause */
/* What the record of recent allocations shows: the allocations still live
 * (by age or size), the record grouped by allocation stack or by the pair
 * of stacks of allocations freed by another thread, and how long the freed
 * ones lived. Counts are of samples: jemalloc records an allocation only
 * when it is sampled (about one per sample_interval bytes allocated,
 * prof_recent_alloc is called from prof_malloc_sample_object), so the
 * un-sampled estimates use the heap profile's formula per allocation. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "jh_recent.h"

struct order {
	const jeheap_recent *r;
	uint64_t now;
	size_t i;
};

static uint64_t age(uint64_t now, uint64_t t)
{
	/* a record stamped after the clock was read (another CPU's coarse
	 * tick, a realtime clock stepped back) is of age 0 */
	return t < now ? now - t : 0;
}

static int by_age(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	uint64_t ax = x->r->recs[x->i].alloc_time, ay = y->r->recs[y->i].alloc_time;
	if (ax != ay)
		return ax > ay ? -1 : 1; /* youngest first */
	return x->i > y->i ? -1 : x->i < y->i;
}

static int by_size(const void *a, const void *b)
{
	const struct order *x = a, *y = b;
	uint64_t sx = x->r->recs[x->i].usize, sy = y->r->recs[y->i].usize;
	if (sx != sy)
		return sx > sy ? -1 : 1;
	return by_age(a, b);
}

JH_EXPORT int jeheap_recent_live(const jeheap_recent *r, uint64_t max_age, int order,
				 jeheap_recent_cb cb, void *arg)
{
	if (!r || !cb || (order != JEHEAP_RECENT_BY_AGE && order != JEHEAP_RECENT_BY_SIZE))
		return JEHEAP_EINVAL;
	struct jeheap_recent_info info;
	jeheap_recent_get_info(r, &info);
	struct order *v = malloc((r->nrecs ? r->nrecs : 1) * sizeof(*v));
	if (!v)
		return JEHEAP_ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < r->nrecs; i++)
		if (!r->recs[i].released &&
		    (!max_age || age(info.now, r->recs[i].alloc_time) <= max_age))
			v[n++] = (struct order){ r, info.now, i };
	qsort(v, n, sizeof(*v), order == JEHEAP_RECENT_BY_AGE ? by_age : by_size);
	int e = 0;
	for (size_t k = 0; k < n && !e; k++) {
		struct jeheap_recent_record rec;
		jh_recent_record(r, v[k].i, &rec);
		e = cb(v[k].i, &rec, arg);
	}
	free(v);
	return e;
}

static int cross_thread(const struct jh_rrec *x)
{
	return x->free_known && x->alloc_thread != x->free_thread;
}

/* One record into its group. */
static void add_to_group(const jeheap_recent *r, struct jeheap_recent_group *g,
			 const struct jh_rrec *x)
{
	double on, os;
	if (!g->count) {
		g->alloc_thread = x->alloc_thread;
		g->alloc_thread_name = x->alloc_name;
		g->free_thread = x->free_thread;
		g->free_thread_name = x->free_name;
	}
	jh_unsample(r->sample_interval, 1, x->usize, &on, &os);
	g->count++;
	g->bytes += x->usize;
	g->est_count += on;
	g->est_bytes += os;
	if (x->released) {
		g->freed++;
		g->freed_bytes += x->usize;
	} else {
		g->live++;
		g->live_bytes += x->usize;
	}
	g->cross_thread += cross_thread(x);
}

static int by_bytes(const void *a, const void *b)
{
	const struct jeheap_recent_group *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->alloc_stack != y->alloc_stack)
		return x->alloc_stack < y->alloc_stack ? -1 : 1;
	return x->free_stack < y->free_stack ? -1 : x->free_stack > y->free_stack;
}

/* The group of record x: by its stack, or its pair of stacks. */
static int group_of(struct jh_seqset *keys, const jeheap_recent *r, const struct jh_rrec *x,
		    int grouping, uint32_t *id)
{
	size_t a = jh_recent_stack_of(r, x->alloc_trace), f = jh_recent_stack_of(r, x->free_trace);
	uint32_t key[2] = { (uint32_t)a, grouping == JEHEAP_RECENT_CROSS_THREAD ? (uint32_t)f
									 : JH_NO_ID };
	return jh_seqset_add(keys, key, 2, id) ? JEHEAP_ENOMEM : 0;
}

JH_EXPORT int jeheap_recent_groups(const jeheap_recent *r, int grouping,
				   jeheap_recent_group_cb cb, void *arg)
{
	if (!r || !cb || !r->symbolized ||
	    (grouping != JEHEAP_RECENT_BY_STACK && grouping != JEHEAP_RECENT_CROSS_THREAD))
		return JEHEAP_EINVAL;
	struct jh_seqset keys;
	jh_seqset_init(&keys, sizeof(uint32_t));
	struct jeheap_recent_group *g = NULL;
	size_t cap = 0;
	int e = 0;
	for (size_t i = 0; i < r->nrecs && !e; i++) {
		const struct jh_rrec *x = &r->recs[i];
		uint32_t id;
		if (grouping == JEHEAP_RECENT_CROSS_THREAD && !cross_thread(x))
			continue;
		if ((e = group_of(&keys, r, x, grouping, &id)))
			break;
		if (id >= cap && jh_grow_zeroed((void **)&g, &cap, (size_t)id + 1, sizeof(*g))) {
			e = JEHEAP_ENOMEM;
			break;
		}
		uint32_t klen;
		const uint32_t *key = jh_seqset_get(&keys, id, &klen);
		g[id].alloc_stack = key[0] == JH_NO_ID ? JEHEAP_RECENT_NONE : key[0];
		g[id].free_stack = key[1] == JH_NO_ID ? JEHEAP_RECENT_NONE : key[1];
		add_to_group(r, &g[id], x);
	}
	if (!e && keys.n)
		qsort(g, keys.n, sizeof(*g), by_bytes);
	for (size_t k = 0; k < keys.n && !e; k++)
		e = cb(&g[k], arg);
	free(g);
	jh_seqset_free(&keys);
	return e;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static unsigned bucket_of(uint64_t ns)
{
	unsigned k = 0;
	while (k < 63 && ns >> (k + 1))
		k++;
	return k;
}

JH_EXPORT int jeheap_recent_lifetimes(const jeheap_recent *r, size_t stack,
				      struct jeheap_recent_lifetimes *out)
{
	if (!r || !out || (stack != JEHEAP_RECENT_NONE && !r->symbolized))
		return JEHEAP_EINVAL;
	memset(out, 0, sizeof(*out));
	uint64_t *v = malloc((r->nrecs ? r->nrecs : 1) * sizeof(*v));
	if (!v)
		return JEHEAP_ENOMEM;
	size_t from = 0, to = r->nrecs;
	if (stack != JEHEAP_RECENT_NONE) {
		if (stack >= r->stacks.n)
			to = 0;
		else
			from = r->stack_first[stack], to = r->stack_first[stack + 1];
	}
	for (size_t k = from; k < to; k++) {
		const struct jh_rrec *x = &r->recs[stack == JEHEAP_RECENT_NONE ? k : r->by_stack[k]];
		if (!x->released) {
			out->live++;
			continue;
		}
		if (!x->free_known) {
			out->unknown++;
			continue;
		}
		uint64_t life = age(x->free_time, x->alloc_time);
		unsigned b = bucket_of(life);
		out->count[b]++;
		out->bytes[b] += x->usize;
		v[out->freed++] = life;
	}
	if (out->freed) {
		qsort(v, out->freed, sizeof(*v), cmp_u64);
		out->min = v[0];
		out->max = v[out->freed - 1];
		out->median = v[out->freed / 2];
	}
	free(v);
	return 0;
}
