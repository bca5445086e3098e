/* SPDX-License-Identifier: BSD-2-Clause */
/* The record of recent allocations: its accessors, and its stacks named.
 * A record repeats few distinct stacks many times (each record keeps its
 * prof_tctx_t, so one per stack and thread: prof_recent.c), so each
 * distinct trace is reduced once, through the reducer heap profiles use
 * (jh_reduce.c): the same allocator-frame pruning, the same names. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "jh_recent.h"

JH_EXPORT void jeheap_recent_free(jeheap_recent *r)
{
	if (!r)
		return;
	free(r->recs);
	jh_seqset_free(&r->traces);
	jh_seqset_free(&r->stacks);
	jh_entries_free(&r->entries);
	free(r->trace_stack);
	free(r->frames);
	free(r->stack_first);
	free(r->by_stack);
	free(r->names.slots);
	free(r->tnames);
	jh_pool_free(&r->pool);
	jeheap_profile_free(r->profile);
	free(r);
}

static const char *tname_key(const void *arg, size_t i)
{
	return ((const jeheap_recent *)arg)->tnames[i];
}

/* s is a decoded JSON string: NUL-terminated, no NUL inside (core_jpull). */
const char *jh_recent_name(jeheap_recent *r, const char *s)
{
	if (jh_strindex_reserve(&r->names, r->ntnames, tname_key, r))
		return NULL;
	uint32_t *slot = jh_strindex_slot(&r->names, s, tname_key, r);
	if (*slot)
		return r->tnames[*slot - 1];
	const char *copy = jh_pool_strndup(&r->pool, s, strlen(s));
	if (!copy || CORE_GROW(&r->tnames, &r->tnames_cap, r->ntnames + 1))
		return NULL;
	r->tnames[r->ntnames] = copy;
	*slot = (uint32_t)++r->ntnames;
	return copy;
}

JH_EXPORT int jeheap_recent_get_info(const jeheap_recent *r, struct jeheap_recent_info *out)
{
	if (!r || !out)
		return JEHEAP_EINVAL;
	memset(out, 0, sizeof(*out));
	out->sample_interval = r->sample_interval;
	out->recent_alloc_max = r->recent_alloc_max;
	out->records = r->nrecs;
	out->has_jeattach = r->has_jeattach;
	out->pid = r->pid;
	out->time = r->time;
	out->clock = r->clock;
	out->oldest = r->nrecs ? UINT64_MAX : 0;
	for (size_t i = 0; i < r->nrecs; i++) {
		const struct jh_rrec *x = &r->recs[i];
		out->live += !x->released;
		out->free_unknown += x->released && !x->free_known;
		/* jemalloc lists records in allocation order, but with a coarse
		 * clock several share a time, and a forged file need not be sorted */
		if (x->alloc_time < out->oldest)
			out->oldest = x->alloc_time;
		if (x->alloc_time > out->newest)
			out->newest = x->alloc_time;
	}
	out->now = r->has_jeattach ? r->now : out->newest;
	return 0;
}

JH_EXPORT const jeheap_profile *jeheap_recent_profile(const jeheap_recent *r)
{
	return r ? r->profile : NULL;
}

JH_EXPORT size_t jeheap_recent_count(const jeheap_recent *r)
{
	return r ? r->nrecs : 0;
}

size_t jh_recent_stack_of(const jeheap_recent *r, uint32_t trace)
{
	if (!r->symbolized || trace == JH_NO_ID || r->trace_stack[trace] == JH_NO_ID)
		return JEHEAP_RECENT_NONE;
	return r->trace_stack[trace];
}

void jh_recent_record(const jeheap_recent *r, size_t i, struct jeheap_recent_record *out)
{
	const struct jh_rrec *x = &r->recs[i];
	*out = (struct jeheap_recent_record){
		.size = x->size,
		.usize = x->usize,
		.released = x->released,
		.free_known = x->free_known,
		.alloc_thread = x->alloc_thread,
		.free_thread = x->free_thread,
		.alloc_thread_name = x->alloc_name,
		.free_thread_name = x->free_name,
		.alloc_time = x->alloc_time,
		.free_time = x->free_time,
		.alloc_stack = jh_recent_stack_of(r, x->alloc_trace),
		.free_stack = jh_recent_stack_of(r, x->free_trace),
	};
}

JH_EXPORT int jeheap_recent_get(const jeheap_recent *r, size_t i, struct jeheap_recent_record *out)
{
	if (!r || !out || i >= r->nrecs)
		return JEHEAP_EINVAL;
	jh_recent_record(r, i, out);
	return 0;
}

JH_EXPORT size_t jeheap_recent_stack_count(const jeheap_recent *r)
{
	return r && r->symbolized ? r->stacks.n : 0;
}

JH_EXPORT size_t jeheap_recent_stack(const jeheap_recent *r, size_t id,
				     const char *const **frames)
{
	if (!r || !frames || !r->symbolized || id >= r->stacks.n)
		return 0;
	*frames = r->frames + r->stacks.seqs[id].off;
	return r->stacks.seqs[id].n;
}

/* Forget an earlier symbolization. */
static void unsymbolize(jeheap_recent *r)
{
	r->symbolized = 0;
	jh_seqset_free(&r->stacks);
	jh_entries_free(&r->entries);
	free(r->trace_stack);
	free(r->stack_first);
	free(r->by_stack);
	r->trace_stack = NULL;
	r->stack_first = r->by_stack = NULL;
}

/* Each trace reduced to its stack of names; equal stacks are one. */
static int reduce_traces(jeheap_recent *r, struct jh_reducer *red)
{
	r->trace_stack = malloc((r->traces.n ? r->traces.n : 1) * sizeof(*r->trace_stack));
	if (!r->trace_stack)
		return JEHEAP_ENOMEM;
	for (uint32_t t = 0; t < r->traces.n; t++) {
		uint32_t npcs, id;
		const uint64_t *pcs = jh_seqset_get(&r->traces, t, &npcs);
		const uint32_t *path;
		size_t n;
		int e = jh_reducer_stack(red, pcs, npcs, &path, &n);
		if (e)
			return e;
		r->trace_stack[t] = JH_NO_ID;
		if (n && (n > UINT32_MAX || jh_seqset_add(&r->stacks, path, (uint32_t)n, &id)))
			return JEHEAP_ENOMEM;
		if (n)
			r->trace_stack[t] = id;
	}
	return 0;
}

/* The names of every stack, by the stacks' element offsets. */
static int name_stacks(jeheap_recent *r)
{
	if (jh_grow((void **)&r->frames, &r->frames_cap, r->stacks.len + 1, sizeof(*r->frames)))
		return JEHEAP_ENOMEM;
	const uint32_t *ids = (const uint32_t *)r->stacks.data;
	for (size_t k = 0; k < r->stacks.len; k++)
		r->frames[k] = r->entries.e[ids[k]].name;
	return 0;
}

/* The records of each stack (a counting sort by allocation stack). */
static int index_stacks(jeheap_recent *r)
{
	size_t ns = r->stacks.n;
	r->stack_first = calloc(ns + 2, sizeof(*r->stack_first));
	r->by_stack = malloc((r->nrecs ? r->nrecs : 1) * sizeof(*r->by_stack));
	if (!r->stack_first || !r->by_stack)
		return JEHEAP_ENOMEM;
	/* counts at k + 2, their sums from there; then stack_first[k + 1] is
	 * stack k's cursor, which ends where stack k + 1 begins */
	for (size_t i = 0; i < r->nrecs; i++) {
		size_t k = jh_recent_stack_of(r, r->recs[i].alloc_trace);
		if (k != JEHEAP_RECENT_NONE)
			r->stack_first[k + 2]++;
	}
	for (size_t k = 2; k < ns + 2; k++)
		r->stack_first[k] += r->stack_first[k - 1];
	for (size_t i = 0; i < r->nrecs; i++) {
		size_t k = jh_recent_stack_of(r, r->recs[i].alloc_trace);
		if (k != JEHEAP_RECENT_NONE)
			r->by_stack[r->stack_first[k + 1]++] = i;
	}
	return 0;
}

JH_EXPORT int jeheap_recent_symbolize(jeheap_recent *r, jeheap_symbolizer *s, int granularity)
{
	if (!r || granularity < JEHEAP_FUNCTIONS || granularity > JEHEAP_ADDRESSES)
		return JEHEAP_EINVAL;
	unsymbolize(r);
	jh_seqset_init(&r->stacks, sizeof(uint32_t));
	struct jeheap_query q = { .granularity = granularity };
	struct jh_reducer *red = jh_reducer_new(&q, s, &r->entries);
	if (!red)
		return JEHEAP_ENOMEM;
	int e = reduce_traces(r, red);
	jh_reducer_free(red);
	if (!e)
		e = name_stacks(r);
	r->symbolized = !e; /* index_stacks asks for the records' stacks */
	if (!e)
		e = index_stacks(r);
	if (e)
		unsymbolize(r);
	return e;
}
