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

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core_grow.h"
#include "core_maps.h"
#include "core_open.h"
#include "core_search.h"
#include "jh_identity.h"
#include "jh_index.h"
#include "jh_internal.h"
#include "jh_object.h"
#include "jh_symbolize.h"

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
	/* jeprof's PROGRAM argument: the file to read the main executable
	 * (objs[program_obj]) from, or NULL. */
	char *program;
	size_t program_obj;
	struct jh_recorded recorded; /* the profile's stamps */
	int64_t profile_written;
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
	if (jh_recorded_read(&s->recorded, text))
		goto nomem;
	s->profile_written = p->written;
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
	jh_recorded_free(&s->recorded);
	free(s->program);
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

/* Is the file of object m->object, as found now, the one profiled? A live
 * process's file is proven by core_open_mapped itself (map_files, or the
 * inode check). A file named by jeprof's PROGRAM argument is the user's
 * word: only a recorded build id can contradict it. */
static int judge_object(const jeheap_symbolizer *s, const struct jh_mapping *m,
			const struct stat *st)
{
	const struct jh_object *o = &s->objs[m->object];
	if (s->pid > 0)
		return JH_OBJ_OK;
	/* Under a --root (a sysroot, a copy of another machine's files) inode
	 * and time say nothing about the file profiled: the build id alone. */
	int program = s->program && m->object == s->program_obj, here = !s->root;
	struct jh_expected x = { jh_recorded_build_id(&s->recorded, o->path), m->id,
				 here && s->recorded.same_boot && !program,
				 here ? s->profile_written : 0 };
	return jh_identity_verdict(&x, st, o->build_id);
}

/* The file name of a path (what follows its last '/'). */
static const char *file_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* jemalloc's shared library by its name. */
static int named_like_jemalloc(const char *path)
{
	return !strncmp(file_name(path), "libjemalloc", 11);
}

/* A library is all allocator only when it is jemalloc's own: one that
 * embeds jemalloc (a Rust cdylib with tikv-jemallocator, anything linked
 * with libjemalloc_pic.a) holds the program's code too. */
static int jemalloc_kind(const struct jh_object *o)
{
	if (o->loaded < 0)
		return named_like_jemalloc(o->path) ? JH_JE_SHARED : JH_JE_UNKNOWN;
	if (!o->defines_mallctl)
		return JH_JE_NONE;
	return o->executable || !named_like_jemalloc(o->path) ? JH_JE_EMBEDDED : JH_JE_SHARED;
}

static void load_object(jeheap_symbolizer *s, const struct jh_mapping *m)
{
	struct jh_object *o = &s->objs[m->object];
	int fd;
	if (s->program && m->object == s->program_obj)
		fd = core_open_in_root(NULL, s->program);
	else
		/* A live process's own mapping of the file: the very inode it
		 * mapped, even if the path now names another file or none
		 * (proc(5), map_files; needs CAP_SYS_ADMIN, else the path under
		 * its root, checked against the mapped inode). A profile from
		 * elsewhere is judged after loading (judge_object). */
		fd = core_open_mapped(s->pid, m->start, m->end, s->root, o->path,
				      s->pid > 0 ? &m->id : NULL);
	struct stat st;
	int have_st = fd >= 0 && !fstat(fd, &st);
	jh_object_load(o, fd, s->root); /* takes fd */
	if (o->loaded > 0)
		o->problem = have_st ? judge_object(s, m, &st) : JH_OBJ_OK;
	else
		o->problem = fd == -ESTALE ? JH_OBJ_REPLACED : JH_OBJ_MISSING;
	if (o->problem == JH_OBJ_REPLACED || o->problem == JH_OBJ_MISSING)
		o->loaded = -1;
}

/* An address in an object's extent but in no symbol's: "name+0xVADDR",
 * the object's file name and the link-time address, which addr2line -e
 * and gdb's `info symbol` take. */
static const char *unnamed(jeheap_symbolizer *s, const struct jh_object *o, uint64_t vaddr)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "%.400s+0x%" PRIx64, file_name(o->path), vaddr);
	return jh_pool_strndup(&s->pool, buf, (size_t)n);
}

size_t jh_symbolize_at(jeheap_symbolizer *s, uint64_t addr, struct jeheap_frame *out,
		       size_t max, int *jemalloc)
{
	if (jemalloc)
		*jemalloc = JH_JE_NONE;
	if (!s || (!out && max))
		return 0;
	_Static_assert(offsetof(struct jh_mapping, start) == 0, "core_search's key comes first");
	size_t below = core_count_at_or_below(s->maps, s->nmaps, sizeof(s->maps[0]), addr);
	const struct jh_mapping *m = below && addr < s->maps[below - 1].end ? &s->maps[below - 1]
									    : NULL;
	const struct jh_psym *ps = s->npsyms ? from_profile(s, addr) : NULL;
	if (ps) {
		/* Named by the profile: no file is opened, so a shared jemalloc
		 * is known by its name alone. */
		if (jemalloc && m)
			*jemalloc = named_like_jemalloc(s->objs[m->object].path) ? JH_JE_SHARED
										  : JH_JE_UNKNOWN;
		return copy_frames(s->pframes + ps->first, ps->n, out, max);
	}
	if (!m)
		return 0;
	struct jh_object *o = &s->objs[m->object];
	if (!o->loaded)
		load_object(s, m);
	int je = jemalloc_kind(o);
	if (jemalloc)
		*jemalloc = je;
	uint64_t vaddr;
	if (o->loaded < 0 || jh_object_vaddr(o, addr - m->start + m->offset, &vaddr))
		return 0;
	/* A shared libjemalloc's frames are all dropped: no line of it shows. */
	if (je != JH_JE_SHARED)
		o->lines_asked = 1;
	const struct jh_sym *sym = jh_object_symbol(o, vaddr);
	size_t n = jh_dwarf_frames(o, vaddr, out, max);
	if (n == 0) {
		const char *name = sym ? sym->display : unnamed(s, o, vaddr);
		if (!name)
			return 0;
		const struct jeheap_frame f = { name, NULL, 0, 0 };
		return copy_frames(&f, 1, out, max);
	}
	/* The containing function by its symbol, as jeprof takes nm's name
	 * over addr2line's (MapToSymbols): the same rows with or without -g.
	 * A line table without a function (assembly) names it as above. */
	if (n <= max && sym)
		out[n - 1].function = sym->display;
	else if (n <= max && !out[n - 1].function)
		out[n - 1].function = unnamed(s, o, vaddr);
	return n;
}

JH_EXPORT size_t jeheap_symbolize_frames(jeheap_symbolizer *s, uint64_t addr,
					 struct jeheap_frame *out, size_t max)
{
	return jh_symbolize_at(s, addr, out, max, NULL);
}

/* The object of the main executable: the one named like the program, else
 * the lowest-mapped file (a program is mapped below its libraries: at
 * 0x400000, or a PIE's 0x55... against 0x7f...). */
static size_t main_object(const jeheap_symbolizer *s, const char *program)
{
	for (size_t i = 0; i < s->nobjs; i++)
		if (!strcmp(file_name(s->objs[i].path), file_name(program)))
			return i;
	return s->maps[0].object;
}

JH_EXPORT int jeheap_symbolizer_set_program(jeheap_symbolizer *s, const char *path)
{
	if (!s || !path)
		return JEHEAP_EINVAL;
	if (!s->nmaps)
		return JEHEAP_ENOENT;
	int fd = core_open_in_root(NULL, path);
	if (fd < 0)
		return JEHEAP_EIO;
	close(fd);
	char *copy = strdup(path);
	if (!copy)
		return JEHEAP_ENOMEM;
	free(s->program);
	s->program = copy;
	s->program_obj = main_object(s, path);
	return 0;
}

const char *jh_symbolizer_build_id(const jeheap_symbolizer *s, const char *path)
{
	if (!s)
		return NULL;
	const char *id = jh_recorded_build_id(&s->recorded, path);
	if (id || !s->nobjs)
		return id;
	uint32_t *slot = jh_strindex_slot(&s->obj_index, path, object_key, s);
	if (!*slot)
		return NULL;
	const struct jh_object *o = &s->objs[*slot - 1];
	return o->loaded > 0 && o->problem == JH_OBJ_OK && *o->build_id ? o->build_id : NULL;
}

JH_EXPORT int jeheap_symbolizer_foreach_problem(const jeheap_symbolizer *s, jeheap_object_cb cb,
					       void *arg)
{
	static const int state[] = { [JH_OBJ_MISSING] = JEHEAP_OBJECT_MISSING,
				     [JH_OBJ_REPLACED] = JEHEAP_OBJECT_REPLACED,
				     [JH_OBJ_NEWER] = JEHEAP_OBJECT_NEWER };
	if (!s || !cb)
		return JEHEAP_EINVAL;
	for (size_t i = 0; i < s->nobjs; i++) {
		const struct jh_object *o = &s->objs[i];
		if (!o->loaded || o->problem == JH_OBJ_OK)
			continue;
		const char *path = s->program && i == s->program_obj ? s->program : o->path;
		int r = cb(path, state[o->problem], arg);
		if (r)
			return r;
	}
	return 0;
}

JH_EXPORT int jeheap_symbolizer_foreach_lineless(const jeheap_symbolizer *s,
						  jeheap_lineless_cb cb, void *arg)
{
	static const int state[] = { [JH_LINES_NO_DEBUG_INFO] = JEHEAP_LINES_NO_DEBUG_INFO,
				     [JH_LINES_UNREADABLE] = JEHEAP_LINES_UNREADABLE,
				     [JH_LINES_NOT_BUILT] = JEHEAP_LINES_NOT_BUILT };
	if (!s || !cb)
		return JEHEAP_EINVAL;
	for (size_t i = 0; i < s->nobjs; i++) {
		const struct jh_object *o = &s->objs[i];
		if (o->loaded <= 0 || !o->lines_asked || o->lines == JH_LINES_OK ||
		    o->lines == JH_LINES_UNKNOWN)
			continue;
		char debug[128];
		struct jeheap_lineless l = {
			.path = s->program && i == s->program_obj ? s->program : o->path,
			.build_id = *o->build_id ? o->build_id : NULL,
			.debug_path = jh_object_build_id_path(o->build_id, debug, sizeof(debug))
					      ? NULL
					      : debug,
			.state = state[o->lines],
		};
		int r = cb(&l, arg);
		if (r)
			return r;
	}
	return 0;
}

JH_EXPORT const char *jeheap_symbolize(jeheap_symbolizer *s, uint64_t addr)
{
	struct jeheap_frame f[64];
	size_t n = jeheap_symbolize_frames(s, addr, f, 64);
	return n && n <= 64 ? f[n - 1].function : NULL;
}
