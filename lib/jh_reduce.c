/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof's reduction of a stack (jeprof.in: FixCallerAddresses,
 * RemoveUninterestingFrames, TranslateStack; --focus and --ignore as in
 * FocusProfile/IgnoreProfile: keep stacks through a matching function, drop
 * stacks through one). Names are interned once; addresses are symbolized
 * once per profile. The reducer walks the inputs itself and hands each
 * reduced stack to the writer's sink. */
#include "config.h"

#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jh_reduce.h"
#include "jh_symbolize.h"

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

/* jemalloc's own functions that a backtrace meets on the way from an
 * allocator entry to the unwinder, where they keep a plain name: static or
 * inline in jemalloc 4.x-5.3 (src/jemalloc.c, src/prof*.c,
 * src/jemalloc_cpp.cpp), so untouched by --with-jemalloc-prefix and the
 * private namespace, and named in a static or unstripped build. Then the
 * unwinders jemalloc calls (libgcc, libunwind, glibc's backtrace). */
static const char *const internal_names[] = {
	"imalloc", "imalloc_body", "imalloc_sample", "imalloc_no_sample", "imalloc_prof",
	"imalloc_prof_sample", "ialloc_body", "ialloc_prof", "ialloc_prof_sample",
	"imallocx_body", "imallocx_flags", "imallocx_prof", "imallocx_prof_sample",
	"imallocx_no_prof", "imemalign", "imemalign_prof_sample", "irealloc_prof",
	"irealloc_prof_sample", "irallocx_prof", "irallocx_prof_sample", "ixallocx_prof",
	"ixallocx_prof_sample", "ixallocx_helper", "do_rallocx", "do_realloc_nonnull_zero",
	"malloc_default", "batch_alloc", "prof_backtrace", "prof_backtrace_impl",
	"prof_unwind_callback", "prof_alloc_prep", "prof_tctx_create", "prof_lookup",
	"handleOOM", "fallback_impl", "fallbackNewImpl", "_Unwind_Backtrace", "unw_backtrace",
	"backtrace", "__backtrace",
};

/* A frame of jemalloc itself: a name above, or any name in jemalloc's
 * private namespace (je_ by default, _rjem_je_ and _rjem_ in Rust's
 * tikv-jemalloc-sys). */
static int is_internal(const char *name)
{
	if (!strncmp(name, "je_", 3) || !strncmp(name, "_rjem_", 6))
		return 1;
	for (size_t i = 0; i < sizeof(internal_names) / sizeof(internal_names[0]); i++)
		if (!strcmp(name, internal_names[i]))
			return 1;
	return 0;
}

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

/* What one address reduces to: n entries (inlined frames innermost first,
 * then the containing function) from pc_ent[first]. */
struct jh_pcinfo {
	uint64_t addr; /* as looked up: a caller's return address minus one */
	uint32_t first, n;
	uint32_t ffirst, nframes; /* its frames in frames[], when keep_frames */
	int skip; /* the containing function is an allocator entry point */
	int internal; /* in a shared libjemalloc, or jemalloc's own name where jemalloc is */
	/* How many of its innermost inlined frames are the allocator's (an
	 * inline wrapper named calloc, as ld.so's rtld-malloc.h has): dropped
	 * when this address is the first one kept. */
	uint32_t lead_skip;
	/* The containing function's name as jeheap_symbolize gives it (NULL:
	 * unknown), and its --exclude/--retain verdict: 0 not yet, 1 keep,
	 * 2 drop. */
	const char *func;
	signed char verdict;
};

struct jh_reducer {
	struct jh_entries *names; /* the writer's */
	/* address -> address id (pcinfo index), for the current input: the
	 * same address in another input is another id, since each input has
	 * its own mappings and symbolizer. */
	struct jh_u64map pcs;
	struct jh_pcinfo *pcinfo; /* by address id, for the whole run */
	size_t npcinfo, pcinfo_cap;
	uint32_t *pc_ent;
	size_t npc_ent, pc_ent_cap;
	int granularity; /* enum jeheap_granularity */
	/* The sink asked for each address's frames (pprof): kept from the one
	 * symbolization instead of asked for again. */
	int keep_frames;
	struct jeheap_frame *frames;
	size_t nframes, frames_cap;
	jeheap_symbolizer *sym; /* the current input's */
	regex_t focus_re, ignore_re;
	int have_focus, have_ignore;
	/* jeprof's --exclude and --retain (FilterFrames): single frames, each
	 * address's verdict kept in its jh_pcinfo. */
	regex_t exclude_re, retain_re;
	int have_exclude, have_retain;
	uint32_t *path;
	size_t path_cap;
	uint32_t *apath; /* the addresses kept by reduce(): address ids, leaf first */
	size_t napath, apath_cap;
	const struct jh_sink *sink;
	void *arg;
	int metric;
	long which; /* the current input: 0 the first, i + 1 more[i], -1 the base */
	uint64_t thread; /* the thread of the current stack, UINT64_MAX: all */
	const jeheap_profile *p; /* the current input */
};

static void reducer_release(struct jh_reducer *r); /* its contents; jh_reducer_free: and itself */

/* One of the query's regexes, if given: 0, or JEHEAP_EINVAL. */
static int compile(regex_t *re, int *have, const char *text)
{
	if (!text)
		return 0;
	if (regcomp(re, text, REG_EXTENDED | REG_NOSUB))
		return JEHEAP_EINVAL;
	*have = 1;
	return 0;
}

/* focus, ignore, exclude, retain and granularity from q. */
static int reducer_init(struct jh_reducer *r, const struct jeheap_query *q)
{
	memset(r, 0, sizeof(*r));
	if (q->granularity < JEHEAP_FUNCTIONS || q->granularity > JEHEAP_ADDRESSES)
		return JEHEAP_EINVAL;
	r->granularity = q->granularity;
	if (compile(&r->focus_re, &r->have_focus, q->focus) ||
	    compile(&r->ignore_re, &r->have_ignore, q->ignore) ||
	    compile(&r->exclude_re, &r->have_exclude, q->exclude) ||
	    compile(&r->retain_re, &r->have_retain, q->retain)) {
		reducer_release(r);
		return JEHEAP_EINVAL;
	}
	return 0;
}

static void reducer_release(struct jh_reducer *r)
{
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
	if (r->have_exclude)
		regfree(&r->exclude_re);
	if (r->have_retain)
		regfree(&r->retain_re);
}

void jh_entries_free(struct jh_entries *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->e[i].owned);
	free(x->e);
	free(x->index.slots);
	memset(x, 0, sizeof(*x));
}

static const char *name_key(const void *arg, size_t i)
{
	return ((const struct jh_entries *)arg)->e[i].name;
}

/* The entry for a name, created if new (owned is freed if not needed). */
static long entry_for_name(struct jh_entries *x, const char *name, char *owned)
{
	if (jh_strindex_reserve(&x->index, x->n, name_key, x)) {
		free(owned);
		return -1;
	}
	uint32_t *slot = jh_strindex_slot(&x->index, name, name_key, x);
	if (*slot) {
		free(owned);
		return (long)(*slot - 1);
	}
	if (jh_grow((void **)&x->e, &x->cap, x->n + 1, sizeof(*x->e))) {
		free(owned);
		return -1;
	}
	struct jh_name *e = &x->e[x->n];
	e->name = name;
	e->owned = owned;
	e->focus = e->ignore = -1;
	*slot = (uint32_t)(x->n + 1);
	return (long)x->n++;
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
static struct jh_pcinfo *info_for_pc(struct jh_reducer *r, uint64_t a)
{
	uint32_t *slot = jh_u64map_slot(&r->pcs, a);
	if (!slot)
		return NULL;
	if (*slot != UINT32_MAX)
		return &r->pcinfo[*slot];
	struct jeheap_frame f[64];
	int je = JH_JE_NONE;
	size_t n = r->sym ? jh_symbolize_at(r->sym, a, f, 64, &je) : 0;
	const char *func = n && n <= 64 ? f[n - 1].function : NULL; /* jeheap_symbolize's */
	if (n > 64)
		n = 64; /* deeper inline chains are cut at the innermost 64 */
	size_t nf = n ? n : 1;
	if (jh_grow((void **)&r->pcinfo, &r->pcinfo_cap, r->npcinfo + 1, sizeof(*r->pcinfo)) ||
	    jh_grow((void **)&r->pc_ent, &r->pc_ent_cap, r->npc_ent + nf, sizeof(*r->pc_ent)))
		return NULL;
	struct jh_pcinfo *pi = &r->pcinfo[r->npcinfo];
	pi->func = func;
	pi->verdict = 0;
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
	/* jemalloc's names count only where jemalloc is: a program's own
	 * function called backtrace or je_parse is the program's. */
	int names = je != JH_JE_NONE;
	pi->internal = je == JH_JE_SHARED ||
		       (names && n && f[n - 1].function && is_internal(f[n - 1].function));
	pi->lead_skip = 0;
	while (pi->lead_skip + 1 < n && f[pi->lead_skip].function &&
	       (is_skipped(f[pi->lead_skip].function) ||
		(names && is_internal(f[pi->lead_skip].function))))
		pi->lead_skip++;
	for (size_t i = 0; i < nf; i++) {
		char *name = frame_name(r, a, n ? &f[i] : NULL, i, nf);
		if (!name)
			return NULL;
		int owned = !n || name != f[i].function;
		long idx = entry_for_name(r->names, name, owned ? name : NULL);
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

/* jeprof's FilterFrames: is the frame at pi kept under --exclude/--retain?
 * It tests the containing function's name (the first of the address's
 * symbol list), or the address when unknown. */
static int keep_frame(const struct jh_reducer *r, struct jh_pcinfo *pi)
{
	if (!pi->verdict) {
		char hex[24];
		const char *name = pi->func;
		if (!name) {
			snprintf(hex, sizeof(hex), "0x%016" PRIx64, pi->addr);
			name = hex;
		}
		int keep = (!r->have_retain || !regexec(&r->retain_re, name, 0, NULL, 0)) &&
			   (!r->have_exclude || regexec(&r->exclude_re, name, 0, NULL, 0));
		pi->verdict = keep ? 1 : 2;
	}
	return pi->verdict == 1;
}

/* One stack: *path gets entry ids, leaf first (an address with inlined
 * frames gives several), and r->apath its addresses; *n 0 when the stack
 * is filtered out or empty. */
static int reduce(struct jh_reducer *r, const uint64_t *pcs, size_t npcs, const uint32_t **path,
		  size_t *n)
{
	size_t k = 0;
	/* Past an entry point, jemalloc is left behind: its rule alone
	 * (an entry point anywhere) applies further up. */
	int past_entry = 0;
	r->napath = 0;
	for (size_t i = 0; i < npcs; i++) {
		uint64_t a = i ? pcs[i] - 1 : pcs[i];
		if (a > 0x7fffffffffffffffULL) /* jeprof drops these (TranslateStack) */
			continue;
		struct jh_pcinfo *pi = info_for_pc(r, a);
		if (!pi)
			return JEHEAP_ENOMEM;
		/* jeprof's rule: an entry point anywhere means what came
		 * before was inside the allocator. Beyond it: leading frames
		 * of jemalloc itself go too, whatever their names (a stripped
		 * library's internals, a prefixed or static build's), so the
		 * first frame shown is the program's own. */
		if (pi->skip || (pi->internal && r->napath == 0 && !past_entry)) {
			past_entry |= pi->skip;
			k = 0;
			r->napath = 0;
			continue;
		}
		if (r->have_exclude || r->have_retain) {
			if (!keep_frame(r, pi))
				continue;
		}
		uint32_t drop = r->napath == 0 ? pi->lead_skip : 0;
		if (jh_grow((void **)&r->path, &r->path_cap, k + pi->n, sizeof(*r->path)) ||
		    jh_grow((void **)&r->apath, &r->apath_cap, r->napath + 1, sizeof(*r->apath)))
			return JEHEAP_ENOMEM;
		memcpy(r->path + k, r->pc_ent + pi->first + drop, (pi->n - drop) * sizeof(*r->path));
		k += pi->n - drop;
		r->apath[r->napath++] = (uint32_t)(pi - r->pcinfo);
	}
	int focused = !r->have_focus;
	for (size_t i = 0; i < k; i++) {
		struct jh_name *e = &r->names->e[r->path[i]];
		if (r->have_ignore && matches(&r->ignore_re, &e->ignore, e->name)) {
			k = 0;
			break;
		}
		if (!focused && matches(&r->focus_re, &e->focus, e->name))
			focused = 1;
	}
	*path = r->path;
	*n = focused ? k : 0;
	return 0;
}

static int reduce_stack(const uint64_t *pcs, size_t npcs, const struct jeheap_counts *c,
			void *arg)
{
	struct jh_reducer *r = arg;
	const uint32_t *path;
	size_t n;
	int e = reduce(r, pcs, npcs, &path, &n);
	if (e || !n)
		return e;
	struct jh_reduced rs = { path, n, r->apath, r->napath, c, jh_metric(c, r->metric),
				 r->which, r->thread, NULL, r };
	if (r->thread != UINT64_MAX)
		rs.thread_name = jeheap_profile_thread_name(r->p, r->thread);
	return r->sink->stack(r->arg, &rs);
}

/* The stacks of one input, through its own symbolizer (its addresses are
 * looked up afresh: another process's mappings). */
static int run_input(struct jh_reducer *r, const jeheap_profile *p, jeheap_symbolizer *sym,
		     long which, const struct jeheap_query *q)
{
	r->which = which;
	r->sym = sym;
	r->p = p;
	jh_u64map_clear(&r->pcs);
	r->thread = q->per_thread ? q->thread : UINT64_MAX;
	if (r->sink->by_thread && !q->per_thread && jeheap_profile_format(p) == JEHEAP_FORMAT_THREADED)
		return jh_foreach_thread_line(p, &r->thread, reduce_stack, r);
	return jh_foreach_query(p, q, reduce_stack, r);
}

int jh_reduce_run(const jeheap_profile *p, jeheap_symbolizer *s, const struct jeheap_query *q,
		  const struct jh_sink *sink, void *arg, struct jh_entries *names)
{
	struct jh_reducer r;
	int e = reducer_init(&r, q);
	if (e)
		return e;
	r.names = names;
	r.sink = sink;
	r.arg = arg;
	r.metric = q->metric;
	r.keep_frames = sink->want_frames;
	e = run_input(&r, p, s, 0, q);
	for (size_t i = 0; !e && i < q->nmore; i++)
		e = run_input(&r, q->more[i], q->more_symbolizers ? q->more_symbolizers[i] : NULL,
			      (long)i + 1, q);
	if (!e && q->base)
		e = run_input(&r, q->base, q->base_symbolizer, -1, q);
	reducer_release(&r);
	return e;
}

struct jh_reducer *jh_reducer_new(const struct jeheap_query *q, jeheap_symbolizer *s,
				  struct jh_entries *names)
{
	struct jh_reducer *r = malloc(sizeof(*r));
	if (!r || reducer_init(r, q)) {
		free(r);
		return NULL;
	}
	r->names = names;
	r->sym = s;
	return r;
}

int jh_reducer_stack(struct jh_reducer *r, const uint64_t *pcs, size_t npcs,
		     const uint32_t **path, size_t *n)
{
	return reduce(r, pcs, npcs, path, n);
}

void jh_reducer_free(struct jh_reducer *r)
{
	if (!r)
		return;
	reducer_release(r);
	free(r);
}

const struct jeheap_frame *jh_reduced_addr(const struct jh_reduced *rs, uint32_t k,
					   uint64_t *addr, size_t *n)
{
	const struct jh_pcinfo *pi = &rs->r->pcinfo[k];
	*addr = pi->addr;
	*n = pi->nframes;
	return pi->nframes ? rs->r->frames + pi->ffirst : NULL;
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
