/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof's reduction of a stack (jeprof.in: FixCallerAddresses,
 * RemoveUninterestingFrames, TranslateStack; --focus and --ignore as in
 * FocusProfile/IgnoreProfile: keep stacks through a matching function, drop
 * stacks through one). Names are interned once; addresses are symbolized
 * once per profile. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jh_reduce.h"

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

int jh_reducer_init(struct jh_reducer *r, const struct jeheap_query *q)
{
	memset(r, 0, sizeof(*r));
	if (q->granularity < JEHEAP_FUNCTIONS || q->granularity > JEHEAP_ADDRESSES)
		return JEHEAP_EINVAL;
	r->granularity = q->granularity;
	if (q->focus) {
		if (regcomp(&r->focus_re, q->focus, REG_EXTENDED | REG_NOSUB))
			return JEHEAP_EINVAL;
		r->have_focus = 1;
	}
	if (q->ignore) {
		if (regcomp(&r->ignore_re, q->ignore, REG_EXTENDED | REG_NOSUB)) {
			jh_reducer_free(r);
			return JEHEAP_EINVAL;
		}
		r->have_ignore = 1;
	}
	return 0;
}

void jh_reducer_free(struct jh_reducer *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->e[i].owned);
	free(r->e);
	free(r->names.slots);
	jh_u64map_free(&r->pcs);
	free(r->pcinfo);
	free(r->pc_ent);
	free(r->path);
	free(r->apath);
	free(r->frames);
	if (r->have_focus)
		regfree(&r->focus_re);
	if (r->have_ignore)
		regfree(&r->ignore_re);
	memset(r, 0, sizeof(*r));
}

void jh_reducer_use(struct jh_reducer *r, jeheap_symbolizer *sym)
{
	r->sym = sym;
	jh_u64map_clear(&r->pcs);
	r->nframes = 0;
	r->npcinfo = 0;
	r->npc_ent = 0;
}

static const char *name_key(const void *arg, size_t i)
{
	return ((const struct jh_reducer *)arg)->e[i].name;
}

/* The entry for a name, created if new (owned is freed if not needed). */
static long entry_for_name(struct jh_reducer *r, const char *name, char *owned)
{
	if (jh_strindex_reserve(&r->names, r->n, name_key, r)) {
		free(owned);
		return -1;
	}
	uint32_t *slot = jh_strindex_slot(&r->names, name, name_key, r);
	if (*slot) {
		free(owned);
		return (long)(*slot - 1);
	}
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 1024;
		struct jh_name *ne = realloc(r->e, cap * sizeof(*ne));
		if (!ne) {
			free(owned);
			return -1;
		}
		r->e = ne;
		r->cap = cap;
	}
	struct jh_name *e = &r->e[r->n];
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->owned = owned;
	e->focus = e->ignore = -1;
	*slot = (uint32_t)(r->n + 1);
	return (long)r->n++;
}

/* The name of frame i of n at address a, at the reducer's granularity, as
 * jeprof's TranslateStack writes it: inlined frames get " (inline)"; an
 * unknown function is its address (0x and 16 hex digits); --addresses rows
 * start with the address (16 hex digits, no 0x). Returns a string to own
 * (NULL without memory). */
static char *frame_name(const struct jh_reducer *r, uint64_t a, const struct jeheap_frame *f,
			size_t i, size_t n)
{
	char *s = NULL, loc[64];
	const char *inl = i + 1 < n ? " (inline)" : "";
	const char *file = f && f->file ? f->file : "??";
	/* addr2line's form, which jeprof shows: "file:line (discriminator N)" */
	if (f && f->file && f->discriminator)
		snprintf(loc, sizeof(loc), ":%lu (discriminator %u)", f->line, f->discriminator);
	else if (f && f->file)
		snprintf(loc, sizeof(loc), ":%lu", f->line);
	else
		snprintf(loc, sizeof(loc), ":?");
	int rc;
	if (!f || !f->function) {
		if (r->granularity == JEHEAP_ADDRESSES)
			rc = asprintf(&s, "%016" PRIx64 " ?? %s%s", a, file, loc);
		else if (r->granularity == JEHEAP_LINES && f && f->file)
			rc = asprintf(&s, "?? %s%s", file, loc);
		else
			rc = asprintf(&s, "0x%016" PRIx64, a);
	} else if (r->granularity == JEHEAP_LINES)
		rc = asprintf(&s, "%s%s %s%s", f->function, inl, file, loc);
	else if (r->granularity == JEHEAP_ADDRESSES)
		rc = asprintf(&s, "%016" PRIx64 " %s%s %s%s", a, f->function, inl, file, loc);
	else if (*inl)
		rc = asprintf(&s, "%s%s", f->function, inl);
	else
		return (char *)f->function; /* not owned: see info_for_pc */
	return rc < 0 ? NULL : s;
}

/* What address a reduces to (symbolized once per address and profile). */
static const struct jh_pcinfo *info_for_pc(struct jh_reducer *r, uint64_t a)
{
	uint32_t *slot = jh_u64map_slot(&r->pcs, a);
	if (!slot)
		return NULL;
	if (*slot != UINT32_MAX)
		return &r->pcinfo[*slot];
	struct jeheap_frame f[64];
	size_t n = r->sym ? jeheap_symbolize_frames(r->sym, a, f, 64) : 0;
	if (n > 64)
		n = 64; /* deeper inline chains are cut at the innermost 64 */
	size_t nf = n ? n : 1;
	if (jh_grow((void **)&r->pcinfo, &r->pcinfo_cap, r->npcinfo + 1, sizeof(*r->pcinfo)) ||
	    jh_grow((void **)&r->pc_ent, &r->pc_ent_cap, r->npc_ent + nf, sizeof(*r->pc_ent)))
		return NULL;
	struct jh_pcinfo *pi = &r->pcinfo[r->npcinfo];
	pi->ffirst = (uint32_t)r->nframes;
	pi->nframes = r->keep_frames ? (uint32_t)n : 0;
	if (pi->nframes) {
		if (jh_grow((void **)&r->frames, &r->frames_cap, r->nframes + n, sizeof(*r->frames)))
			return NULL;
		memcpy(r->frames + r->nframes, f, n * sizeof(*f));
		r->nframes += n;
	}
	pi->addr = a;
	pi->first = (uint32_t)r->npc_ent;
	pi->n = (uint32_t)nf;
	/* jeprof's RemoveUninterestingFrames tests the first name of an
	 * address's symbol list: the containing function, not an inlined one. */
	pi->skip = n && f[n - 1].function && is_skipped(f[n - 1].function);
	for (size_t i = 0; i < nf; i++) {
		char *name = frame_name(r, a, n ? &f[i] : NULL, i, nf);
		if (!name)
			return NULL;
		int owned = !n || name != f[i].function;
		long idx = entry_for_name(r, name, owned ? name : NULL);
		if (idx < 0)
			return NULL;
		r->pc_ent[r->npc_ent++] = (uint32_t)idx;
	}
	*slot = (uint32_t)r->npcinfo;
	return &r->pcinfo[r->npcinfo++];
}

static int matches(regex_t *re, int *cache, const char *name)
{
	if (*cache < 0)
		*cache = regexec(re, name, 0, NULL, 0) == 0;
	return *cache;
}

int jh_reduce(struct jh_reducer *r, const uint64_t *pcs, size_t npcs, const uint32_t **path,
	      size_t *n)
{
	size_t k = 0;
	r->napath = 0;
	for (size_t i = 0; i < npcs; i++) {
		uint64_t a = i ? pcs[i] - 1 : pcs[i];
		if (a > 0x7fffffffffffffffULL) /* jeprof drops these (TranslateStack) */
			continue;
		const struct jh_pcinfo *pi = info_for_pc(r, a);
		if (!pi)
			return JEHEAP_ENOMEM;
		if (pi->skip) {
			k = 0; /* what came before was inside the allocator */
			r->napath = 0;
			continue;
		}
		if (jh_grow((void **)&r->path, &r->path_cap, k + pi->n, sizeof(*r->path)) ||
		    jh_grow((void **)&r->apath, &r->apath_cap, r->napath + 1, sizeof(*r->apath)))
			return JEHEAP_ENOMEM;
		memcpy(r->path + k, r->pc_ent + pi->first, pi->n * sizeof(*r->path));
		k += pi->n;
		r->apath[r->napath++] = (uint32_t)(pi - r->pcinfo);
	}
	int focused = !r->have_focus;
	for (size_t i = 0; i < k; i++) {
		struct jh_name *e = &r->e[r->path[i]];
		if (r->have_ignore && matches(&r->ignore_re, &e->ignore, e->name)) {
			k = 0;
			break;
		}
		if (!focused && matches(&r->focus_re, &e->focus, e->name))
			focused = 1;
	}
	*path = r->path;
	*n = focused ? k : 0;
	if (!*n)
		r->napath = 0;
	return 0;
}

int jh_foreach_input(struct jh_reducer *r, const jeheap_profile *p, jeheap_symbolizer *s,
		     const struct jeheap_query *q, jeheap_stack_cb cb, void *arg, long *which)
{
	*which = 0;
	jh_reducer_use(r, s);
	int e = jh_foreach_query(p, q, cb, arg);
	for (size_t i = 0; !e && i < q->nmore; i++) {
		*which = (long)i + 1;
		jh_reducer_use(r, q->more_symbolizers ? q->more_symbolizers[i] : NULL);
		e = jh_foreach_query(q->more[i], q, cb, arg);
	}
	if (!e && q->base) {
		*which = -1;
		jh_reducer_use(r, q->base_symbolizer);
		e = jh_foreach_query(q->base, q, cb, arg);
	}
	return e;
}

int jh_query_valid(const struct jeheap_query *q)
{
	if (!q || q->metric < JEHEAP_INUSE_SPACE || q->metric > JEHEAP_ALLOC_OBJECTS)
		return 0;
	if (q->nmore && !q->more)
		return 0;
	for (size_t i = 0; i < q->nmore; i++)
		if (!q->more[i])
			return 0;
	return 1;
}
