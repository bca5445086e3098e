/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof --text, computed the way jeprof computes it (jeprof.in:
 * ReadThreadedHeapProfile, FixCallerAddresses, RemoveUninterestingFrames,
 * ReduceProfile, FlatProfile, CumulativeProfile, PrintText):
 * - each stack's t*: line un-sampled on its own (AdjustSamples);
 * - every address but the leaf minus one (return address -> call site);
 * - frames up to and including the last allocator entry point dropped;
 * - a function counted once per stack (recursion), flat to the first;
 * - sorted by flat value, then name. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jh_internal.h"

/* jeprof's skip list for heap profiles, each also with a leading '_' (Mach)
 * and, beyond jeprof, with jemalloc's symbol prefixes je_ and _rjem_, so a
 * prefixed build is pruned as a plain one is. */
static const char *const skip_names[] = {
	"calloc", "cfree", "malloc", "newImpl", "void* newImpl", "free", "memalign",
	"posix_memalign", "aligned_alloc", "pvalloc", "valloc", "realloc", "mallocx", "rallocx",
	"xallocx", "dallocx", "sdallocx", "sdallocx_noflags", "tc_calloc", "tc_cfree",
	"tc_malloc", "tc_free", "tc_memalign", "tc_posix_memalign", "tc_pvalloc", "tc_valloc",
	"tc_realloc", "tc_new", "tc_delete", "tc_newarray", "tc_deletearray", "tc_new_nothrow",
	"tc_newarray_nothrow", "do_malloc", "::do_malloc", "::do_malloc_or_cpp_alloc",
	"DoSampledAllocation", "simple_alloc::allocate", "__malloc_alloc_template::allocate",
	"__builtin_delete", "__builtin_new", "__builtin_vec_delete", "__builtin_vec_new",
	"operator new", "operator new[]", "malloc_zone_malloc", "malloc_zone_calloc",
	"malloc_zone_valloc", "malloc_zone_realloc", "malloc_zone_memalign", "malloc_zone_free",
	"__start_google_malloc", "__stop_google_malloc", "__start_malloc_hook",
	"__stop_malloc_hook",
};

static int is_skipped(const char *name)
{
	static const char *const prefixes[] = { "", "_", "je_", "_rjem_" };
	/* jeprof also skips anything matching /TCMalloc|^tcmalloc::/. */
	if (strstr(name, "TCMalloc") || !strncmp(name, "tcmalloc::", 10))
		return 1;
	for (size_t p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
		size_t pl = strlen(prefixes[p]);
		if (strncmp(name, prefixes[p], pl))
			continue;
		for (size_t i = 0; i < sizeof(skip_names) / sizeof(skip_names[0]); i++)
			if (!strcmp(name + pl, skip_names[i]))
				return 1;
	}
	return 0;
}

struct entry {
	const char *name;
	char *owned; /* for addresses without a symbol */
	double flat, cum;
	uint64_t mark;
	int skip;
};

struct jeheap_top {
	struct entry *e;
	size_t n, cap;
	/* pc -> entry and name -> entry, open addressing */
	uint64_t *pc_keys;
	uint32_t *pc_vals;
	size_t pc_cap, pc_n;
	uint32_t *name_slots; /* entry index + 1; 0 empty */
	size_t name_cap;
	double total;
	struct jeheap_top_entry *sorted;
	size_t nsorted;
	jeheap_symbolizer *sym;
};

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static int name_rehash(jeheap_top *t, size_t cap)
{
	uint32_t *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t j = hash_str(t->e[i].name) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = (uint32_t)(i + 1);
	}
	free(t->name_slots);
	t->name_slots = slots;
	t->name_cap = cap;
	return 0;
}

/* The entry for a name; created if new. -1 on out of memory. */
static long entry_for_name(jeheap_top *t, const char *name, char *owned)
{
	if ((t->n + 1) * 2 > t->name_cap && name_rehash(t, t->name_cap ? t->name_cap * 2 : 1024))
		return -1;
	size_t j = hash_str(name) & (t->name_cap - 1);
	while (t->name_slots[j]) {
		struct entry *e = &t->e[t->name_slots[j] - 1];
		if (!strcmp(e->name, name)) {
			free(owned);
			return (long)(t->name_slots[j] - 1);
		}
		j = (j + 1) & (t->name_cap - 1);
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct entry *ne = realloc(t->e, cap * sizeof(*ne));
		if (!ne)
			return -1;
		t->e = ne;
		t->cap = cap;
	}
	struct entry *e = &t->e[t->n];
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->owned = owned;
	e->skip = is_skipped(name);
	t->name_slots[j] = (uint32_t)(t->n + 1);
	return (long)t->n++;
}

static int pc_rehash(jeheap_top *t, size_t cap)
{
	uint64_t *keys = malloc(cap * sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	memset(vals, 0xff, cap * sizeof(*vals));
	for (size_t i = 0; i < t->pc_cap; i++) {
		if (t->pc_vals[i] == UINT32_MAX)
			continue;
		size_t j = hash64(t->pc_keys[i]) & (cap - 1);
		while (vals[j] != UINT32_MAX)
			j = (j + 1) & (cap - 1);
		keys[j] = t->pc_keys[i];
		vals[j] = t->pc_vals[i];
	}
	free(t->pc_keys);
	free(t->pc_vals);
	t->pc_keys = keys;
	t->pc_vals = vals;
	t->pc_cap = cap;
	return 0;
}

/* The entry of the function at address a (symbolized once per address). */
static long entry_for_pc(jeheap_top *t, uint64_t a)
{
	if ((t->pc_n + 1) * 2 > t->pc_cap && pc_rehash(t, t->pc_cap ? t->pc_cap * 2 : 4096))
		return -1;
	size_t j = hash64(a) & (t->pc_cap - 1);
	while (t->pc_vals[j] != UINT32_MAX) {
		if (t->pc_keys[j] == a)
			return t->pc_vals[j];
		j = (j + 1) & (t->pc_cap - 1);
	}
	const char *name = t->sym ? jeheap_symbolize(t->sym, a) : NULL;
	char *owned = NULL;
	if (!name) {
		/* jeprof's key for an unknown address: 0x and 16 hex digits */
		owned = malloc(19);
		if (!owned)
			return -1;
		snprintf(owned, 19, "0x%016" PRIx64, a);
		name = owned;
	}
	long idx = entry_for_name(t, name, owned);
	if (idx < 0)
		return -1;
	t->pc_keys[j] = a;
	t->pc_vals[j] = (uint32_t)idx;
	t->pc_n++;
	return idx;
}

struct walk {
	jeheap_top *t;
	int metric;
	uint32_t *path;
	size_t path_cap;
	uint64_t gen;
	int err;
};

static int add_stack(const uint64_t *pcs, size_t npcs, const struct jeheap_counts *c, void *arg)
{
	struct walk *w = arg;
	jeheap_top *t = w->t;
	double v = jh_metric(c, w->metric);
	if (npcs > w->path_cap) {
		uint32_t *np = realloc(w->path, npcs * sizeof(*np));
		if (!np)
			return w->err = JEHEAP_ENOMEM;
		w->path = np;
		w->path_cap = npcs;
	}
	size_t n = 0;
	for (size_t i = 0; i < npcs; i++) {
		uint64_t a = i ? pcs[i] - 1 : pcs[i];
		if (a > 0x7fffffffffffffffULL) /* jeprof drops these (TranslateStack) */
			continue;
		long e = entry_for_pc(t, a);
		if (e < 0)
			return w->err = JEHEAP_ENOMEM;
		if (t->e[e].skip) {
			n = 0; /* what came before was inside the allocator */
			continue;
		}
		w->path[n++] = (uint32_t)e;
	}
	w->gen++;
	int first = 1;
	for (size_t i = 0; i < n; i++) {
		struct entry *e = &t->e[w->path[i]];
		if (e->mark == w->gen)
			continue; /* recursion: once per stack */
		e->mark = w->gen;
		if (first)
			e->flat += v;
		first = 0;
		e->cum += v;
	}
	if (n)
		t->total += v;
	return 0;
}

static int cmp_top(const void *a, const void *b)
{
	const struct jeheap_top_entry *x = a, *y = b;
	if (x->flat != y->flat)
		return x->flat > y->flat ? -1 : 1;
	return strcmp(x->name, y->name);
}

JH_EXPORT int jeheap_top_new(const jeheap_profile *p, jeheap_symbolizer *s, int metric,
			     jeheap_top **out)
{
	if (!p || !out || metric < JEHEAP_INUSE_SPACE || metric > JEHEAP_ALLOC_OBJECTS)
		return JEHEAP_EINVAL;
	*out = NULL;
	jeheap_top *t = calloc(1, sizeof(*t));
	if (!t)
		return JEHEAP_ENOMEM;
	t->sym = s;
	struct walk w = { .t = t, .metric = metric };
	int r = jeheap_profile_foreach_stack(p, JEHEAP_UNSAMPLED, add_stack, &w);
	free(w.path);
	if (!r && !(t->sorted = calloc(t->n ? t->n : 1, sizeof(*t->sorted))))
		r = JEHEAP_ENOMEM;
	if (r) {
		jeheap_top_free(t);
		return r;
	}
	size_t k = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->e[i].flat == 0 && t->e[i].cum == 0)
			continue;
		t->sorted[k].name = t->e[i].name;
		t->sorted[k].flat = t->e[i].flat;
		t->sorted[k].cum = t->e[i].cum;
		k++;
	}
	qsort(t->sorted, k, sizeof(*t->sorted), cmp_top);
	t->nsorted = k;
	free(t->pc_keys);
	free(t->pc_vals);
	free(t->name_slots);
	t->pc_keys = NULL;
	t->pc_vals = NULL;
	t->name_slots = NULL;
	*out = t;
	return 0;
}

JH_EXPORT void jeheap_top_free(jeheap_top *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		free(t->e[i].owned);
	free(t->sorted);
	free(t->pc_keys);
	free(t->pc_vals);
	free(t->name_slots);
	free(t->e);
	free(t);
}

JH_EXPORT double jeheap_top_total(const jeheap_top *t)
{
	return t ? t->total : 0;
}

JH_EXPORT size_t jeheap_top_count(const jeheap_top *t)
{
	return t ? t->nsorted : 0;
}

JH_EXPORT const struct jeheap_top_entry *jeheap_top_entry(const jeheap_top *t, size_t i)
{
	return t && i < t->nsorted ? &t->sorted[i] : NULL;
}
