/* SPDX-License-Identifier: BSD-2-Clause */
/* Addresses -> frames, from the profile's own copy of the maps.
 * address -> mapping -> file offset -> the PT_LOAD segment holding that
 * offset -> link-time virtual address -> the function symbol at or below it
 * (jh_object.c) and, where DWARF is there, file:line and inlined frames
 * (jh_dwarf.c). Going through the program headers (not "path equals the
 * executable") is what makes PIE executables and shared objects work alike.
 * A profile in jeprof's symbolized form brings its own names and needs no
 * file at all. */
#include "config.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "core_maps.h"
#include "core_open.h"
#include "core_search.h"
#include "jh_index.h"
#include "jh_internal.h"
#include "jh_object.h"

struct jh_mapping {
	uint64_t start, end, offset;
	size_t object;
	struct core_file_id id; /* as the maps line names it */
};

/* The frames of one address of a symbolized profile, innermost first. */
struct jh_psym {
	uint64_t addr;
	size_t first, n; /* in frames */
};

struct jeheap_symbolizer {
	char *root;
	int pid; /* > 0: a live process's profile (jeheap_symbolizer_new_pid) */
	struct jh_object *objs;
	size_t nobjs, objs_cap;
	struct jh_strindex obj_index; /* path -> objs[] */
	struct jh_mapping *maps;
	size_t nmaps;
	struct jh_psym *psyms;
	size_t npsyms;
	struct jeheap_frame *pframes;
	size_t npframes;
	struct jh_pool pool;
};

static const char *object_key(const void *arg, size_t i)
{
	return ((const jeheap_symbolizer *)arg)->objs[i].path;
}

/* The object of a path, added if new: by a hash index, since a profile
 * (the target's maps) may name tens of thousands of files; one linear scan
 * per line made 80,000 mappings cost 27 s. */
static size_t object_index(jeheap_symbolizer *s, const char *path, size_t len)
{
	char *copy = strndup(path, len);
	if (!copy || jh_strindex_reserve(&s->obj_index, s->nobjs, object_key, s) ||
	    CORE_GROW(&s->objs, &s->objs_cap, s->nobjs + 1)) {
		free(copy);
		return SIZE_MAX;
	}
	uint32_t *slot = jh_strindex_slot(&s->obj_index, copy, object_key, s);
	if (*slot) {
		free(copy);
		return *slot - 1;
	}
	memset(&s->objs[s->nobjs], 0, sizeof(s->objs[0]));
	s->objs[s->nobjs].path = copy;
	*slot = (uint32_t)(s->nobjs + 1);
	return s->nobjs++;
}

/* jeprof's symbolized form names each address "outer--...--inner[--]"
 * (PrintSymbolizedProfile): split into frames, innermost first, each name
 * shortened as jeprof's ReadSymbols does. */
static int split_profile_symbols(jeheap_symbolizer *s, const jeheap_profile *p)
{
	size_t total = 0;
	for (size_t i = 0; i < p->nsyms; i++) {
		total++;
		for (const char *c = p->syms[i].name; (c = strstr(c, "--")); c += 2)
			total++;
	}
	s->psyms = calloc(p->nsyms ? p->nsyms : 1, sizeof(*s->psyms));
	s->pframes = calloc(total ? total : 1, sizeof(*s->pframes));
	if (!s->psyms || !s->pframes)
		return -1;
	for (size_t i = 0; i < p->nsyms; i++) {
		struct jh_psym *ps = &s->psyms[s->npsyms++];
		ps->addr = p->syms[i].addr;
		ps->first = s->npframes;
		for (const char *c = p->syms[i].name; *c;) {
			const char *e = strstr(c, "--");
			size_t l = e ? (size_t)(e - c) : strlen(c);
			if (l) {
				const char *full = jh_pool_strndup(&s->pool, c, l);
				const char *name = full ? jh_display_name(&s->pool, full) : NULL;
				if (!name)
					return -1;
				s->pframes[s->npframes++].function = name;
			}
			c += l + (e ? 2 : 0);
		}
		ps->n = s->npframes - ps->first;
		/* outer first in the file; innermost first here */
		for (size_t a = ps->first, b = s->npframes; a + 1 < b; a++, b--) {
			struct jeheap_frame t = s->pframes[a];
			s->pframes[a] = s->pframes[b - 1];
			s->pframes[b - 1] = t;
		}
	}
	return 0;
}

/* An executable mapping of a file: where its addresses are looked up. */
static int add_mapping(const struct core_maps_line *l, void *arg)
{
	jeheap_symbolizer *s = arg;
	if (!l->x || !l->path_len || l->path[0] != '/')
		return 0;
	size_t oi = object_index(s, l->path, l->path_len);
	if (oi == SIZE_MAX)
		return -1;
	struct jh_mapping *m = &s->maps[s->nmaps++];
	m->start = l->start;
	m->end = l->end;
	m->offset = l->offset;
	m->object = oi;
	m->id = (struct core_file_id){ l->inode, l->dev_major, l->dev_minor };
	return 0;
}

static int cmp_mapping(const void *a, const void *b)
{
	const struct jh_mapping *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

JH_EXPORT int jeheap_symbolizer_new(const jeheap_profile *p, const char *root,
				    jeheap_symbolizer **out)
{
	if (!p || !out)
		return JEHEAP_EINVAL;
	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return JEHEAP_EIO;
	jeheap_symbolizer *s = calloc(1, sizeof(*s));
	if (!s)
		return JEHEAP_ENOMEM;
	if (root && *root && strcmp(root, "/") && !(s->root = strdup(root)))
		goto nomem;
	if (split_profile_symbols(s, p))
		goto nomem;
	const char *text = jeheap_profile_mappings(p);
	size_t nlines = 1;
	for (const char *c = text; *c; c++)
		nlines += *c == '\n';
	s->maps = calloc(nlines, sizeof(*s->maps));
	if (!s->maps)
		goto nomem;
	if (core_maps_foreach(text, add_mapping, s))
		goto nomem;
	/* Sorted by start, for a binary search per address: a maps text has
	 * no overlapping lines. */
	if (s->nmaps)
		qsort(s->maps, s->nmaps, sizeof(*s->maps), cmp_mapping);
	*out = s;
	return 0;
nomem:
	jeheap_symbolizer_free(s);
	return JEHEAP_ENOMEM;
}

JH_EXPORT int jeheap_symbolizer_new_pid(const jeheap_profile *p, int pid,
					jeheap_symbolizer **out)
{
	if (pid <= 0 || !out)
		return JEHEAP_EINVAL;
	char root[48];
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	int e = jeheap_symbolizer_new(p, root, out);
	if (!e)
		(*out)->pid = pid;
	return e;
}

JH_EXPORT void jeheap_symbolizer_free(jeheap_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nobjs; i++)
		jh_object_free(&s->objs[i]);
	free(s->objs);
	free(s->obj_index.slots);
	free(s->maps);
	free(s->psyms);
	free(s->pframes);
	jh_pool_free(&s->pool);
	free(s->root);
	free(s);
}

/* A symbolized profile names exactly the addresses it will be asked for. */
static const struct jh_psym *from_profile(const jeheap_symbolizer *s, uint64_t addr)
{
	size_t lo = 0, hi = s->npsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->psyms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->npsyms && s->psyms[lo].addr == addr ? &s->psyms[lo] : NULL;
}

static size_t copy_frames(const struct jeheap_frame *f, size_t n, struct jeheap_frame *out,
			  size_t max)
{
	memcpy(out, f, (n < max ? n : max) * sizeof(*f));
	return n;
}

JH_EXPORT size_t jeheap_symbolize_frames(jeheap_symbolizer *s, uint64_t addr,
					 struct jeheap_frame *out, size_t max)
{
	if (!s || (!out && max))
		return 0;
	const struct jh_psym *ps = s->npsyms ? from_profile(s, addr) : NULL;
	if (ps)
		return copy_frames(s->pframes + ps->first, ps->n, out, max);
	_Static_assert(offsetof(struct jh_mapping, start) == 0, "core_search's key comes first");
	size_t below = core_count_at_or_below(s->maps, s->nmaps, sizeof(s->maps[0]), addr);
	const struct jh_mapping *m = below ? &s->maps[below - 1] : NULL;
	if (!m || addr >= m->end)
		return 0;
	struct jh_object *o = &s->objs[m->object];
	if (!o->loaded) {
		/* A live process's own mapping of the file: the very inode it
		 * mapped, even if the path now names another file or none
		 * (proc(5), map_files; needs CAP_SYS_ADMIN, else the path under
		 * its root is read). */
		/* A live target's file must be the very one it mapped; a
		 * profile from elsewhere names another machine's inodes. */
		int fd = core_open_mapped(s->pid, m->start, m->end, s->root, o->path,
					  s->pid > 0 ? &m->id : NULL);
		jh_object_load(o, fd, s->root);
	}
	uint64_t vaddr;
	if (o->loaded < 0 || jh_object_vaddr(o, addr - m->start + m->offset, &vaddr))
		return 0;
	const struct jh_sym *sym = jh_object_symbol(o, vaddr);
	size_t n = jh_dwarf_frames(o, vaddr, out, max);
	if (n == 0) {
		if (!sym)
			return 0;
		const struct jeheap_frame f = { sym->display, NULL, 0, 0 };
		return copy_frames(&f, 1, out, max);
	}
	/* The containing function by its symbol, as jeprof takes nm's name
	 * over addr2line's (MapToSymbols): the same rows with or without -g. */
	if (n <= max && sym)
		out[n - 1].function = sym->display;
	return n;
}

JH_EXPORT const char *jeheap_symbolize(jeheap_symbolizer *s, uint64_t addr)
{
	struct jeheap_frame f[64];
	size_t n = jeheap_symbolize_frames(s, addr, f, 64);
	return n && n <= 64 ? f[n - 1].function : NULL;
}
