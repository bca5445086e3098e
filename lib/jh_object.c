/* SPDX-License-Identifier: BSD-2-Clause */
/* Loading one object's symbols the way gdb and addr2line find them:
 *  1. its own .symtab;
 *  2. else a separate debug file: by build id
 *     (/usr/lib/debug/.build-id/xx/yyyy.debug, what Debian's -dbg and
 *     -dbgsym packages install), else by .gnu_debuglink (the file's
 *     directory, its .debug/ subdirectory, /usr/lib/debug/<directory>; the
 *     link's CRC32 must match, so a stale debug file is not believed);
 *  3. else .dynsym plus MiniDebugInfo: the xz-compressed ELF in
 *     .gnu_debugdata whose .symtab holds the functions .dynsym lacks
 *     (Fedora and others strip binaries this way).
 * A debug file's program headers match the object's, only its section
 * contents differ, so its symbol values need no adjustment. */
#include "config.h"

#include <fcntl.h>
#include <stddef.h>
#include <gelf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "core_grow.h"
#include "core_open.h"
#include "core_search.h"
#include "jh_object.h"

static int cmp_sym(const void *a, const void *b)
{
	const struct jh_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* mallctl under any prefix jemalloc's configure can give it
 * (--with-jemalloc-prefix: je_mallctl, _rjem_mallctl, ...). */
static int is_mallctl(const char *name)
{
	size_t n = strlen(name);
	return n >= 7 && !strcmp(name + n - 7, "mallctl") && (n == 7 || name[n - 8] == '_');
}

/* Append the function symbols of e's tables (names copied). */
static int collect_cb(const struct core_elf_sym *y, void *arg)
{
	struct jh_object *o = arg;
	if (CORE_GROW(&o->syms, &o->syms_cap, o->nsyms + 1))
		return -1;
	struct jh_sym *s = &o->syms[o->nsyms];
	if (!(s->name = jh_pool_strndup(&o->names, y->name, strlen(y->name))))
		return -1;
	if (is_mallctl(y->name))
		o->defines_mallctl = 1;
	if (!strcmp(y->name, "main"))
		o->has_main = 1; /* a static-pie executable has no PT_INTERP */
	s->addr = y->value;
	s->size = y->size;
	s->display = NULL;
	s->strong = !y->weak && !y->ifunc;
	o->nsyms++;
	return 0;
}

static int collect_symbols(struct jh_object *o, struct core_elf *e, enum core_elf_tables which)
{
	return core_elf_foreach_func(e, which, collect_cb, o);
}

static int segment_cb(uint64_t offset, uint64_t filesz, uint64_t vaddr, void *arg)
{
	struct jh_object *o = arg;
	if (CORE_GROW(&o->segs, &o->segs_cap, o->nsegs + 1))
		return -1;
	o->segs[o->nsegs++] = (struct jh_seg){ offset, filesz, vaddr };
	return 0;
}

static int file_crc32(int fd, uint32_t *crc)
{
	struct stat st;
	if (fstat(fd, &st) || st.st_size <= 0)
		return -1;
	void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	uLong c = crc32(0L, Z_NULL, 0);
	/* zlib takes uInt lengths: feed large files in pieces. */
	for (off_t done = 0; done < st.st_size;) {
		uInt n = (uInt)(st.st_size - done > (1 << 30) ? (1 << 30) : st.st_size - done);
		c = crc32(c, (const Bytef *)m + done, n);
		done += n;
	}
	munmap(m, (size_t)st.st_size);
	*crc = (uint32_t)c;
	return 0;
}

/* A debug file, by core_open_in_root's rules: a profile's root (a sysroot,
 * or a live target's /proc/PID/root) is where its links must stay. */
static struct core_elf *open_in_root(const char *root, const char *path)
{
	struct core_elf *f;
	int fd = core_open_in_root(root, path);
	return fd >= 0 && !core_elf_open(fd, &f) ? f : NULL;
}

/* The debug file named by .gnu_debuglink, where gdb looks for it. */
static struct core_elf *open_debuglink(struct core_elf *obj, const char *root, const char *objpath)
{
	const void *data;
	size_t size;
	if (core_elf_section(obj, ".gnu_debuglink", &data, &size) || size < 8)
		return NULL;
	const char *name = data;
	size_t nl = strnlen(name, size);
	if (nl == 0 || nl >= size || strchr(name, '/'))
		return NULL;
	size_t crc_off = (nl + 4) & ~(size_t)3; /* after the NUL, 4-aligned */
	if (crc_off + 4 > size)
		return NULL;
	uint32_t want;
	memcpy(&want, (const char *)data + crc_off, 4);
	if (elf_getident(core_elf_libelf(obj), NULL)[EI_DATA] != ELFDATA2LSB)
		want = __builtin_bswap32(want);
	const char *slash = strrchr(objpath, '/');
	int dirlen = slash ? (int)(slash - objpath) : 0;
	for (int i = 0; i < 3; i++) {
		char path[8192];
		if (i == 0)
			snprintf(path, sizeof(path), "%.*s/%s", dirlen, objpath, name);
		else if (i == 1)
			snprintf(path, sizeof(path), "%.*s/.debug/%s", dirlen, objpath, name);
		else
			snprintf(path, sizeof(path), "/usr/lib/debug%.*s/%s", dirlen, objpath, name);
		uint32_t crc;
		struct core_elf *f = open_in_root(root, path);
		if (!f)
			continue;
		if (!file_crc32(core_elf_fd(f), &crc) && crc == want)
			return f;
		core_elf_close(f);
	}
	return NULL;
}

int jh_object_build_id_path(const char *id, char *buf, size_t size)
{
	if (strlen(id) < 4)
		return -1;
	int n = snprintf(buf, size, "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
	return n < 0 || (size_t)n >= size ? -1 : 0;
}

static struct core_elf *open_debug_file(struct core_elf *obj, const char *root, const char *objpath)
{
	char id[128], path[8192];
	struct core_elf *f;
	core_elf_build_id(obj, id, sizeof(id));
	if (!jh_object_build_id_path(id, path, sizeof(path)) && (f = open_in_root(root, path)))
		return f;
	return open_debuglink(obj, root, objpath);
}

/* MiniDebugInfo: .gnu_debugdata is an xz stream of a small ELF file (a
 * symbol table: kilobytes to a few megabytes). A larger one is refused
 * rather than inflated: the file may be hostile. */
#define MINIDEBUG_MAX ((size_t)64 << 20)
static int collect_minidebuginfo(struct jh_object *o, struct core_elf *obj)
{
	const void *data;
	size_t size;
	if (core_elf_section(obj, ".gnu_debugdata", &data, &size) || !size)
		return 0;
	lzma_stream st = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&st, MINIDEBUG_MAX, 0) != LZMA_OK)
		return 0;
	size_t cap = size * 4 + 4096, len = 0;
	unsigned char *buf = malloc(cap);
	int rc = 0;
	st.next_in = data;
	st.avail_in = size;
	while (buf) {
		st.next_out = buf + len;
		st.avail_out = cap - len;
		lzma_ret lr = lzma_code(&st, LZMA_FINISH);
		len = cap - st.avail_out;
		if (lr == LZMA_STREAM_END)
			break;
		if (lr != LZMA_OK && lr != LZMA_BUF_ERROR) {
			free(buf); /* corrupt: the object keeps its .dynsym */
			buf = NULL;
			break;
		}
		if (st.avail_out == 0) {
			/* Full: double, up to the limit. */
			if (cap >= MINIDEBUG_MAX || CORE_GROW(&buf, &cap, cap + 1)) {
				free(buf);
				buf = NULL;
				break;
			}
		} else if (lr == LZMA_BUF_ERROR) {
			free(buf); /* truncated */
			buf = NULL;
		}
	}
	lzma_end(&st);
	if (!buf)
		return 0;
	struct core_elf *mini;
	if (!core_elf_open_memory(buf, len, &mini)) {
		rc = collect_symbols(o, mini, CORE_ELF_SYMTAB); /* names are copied */
		core_elf_close(mini);
	}
	return rc;
}

static int has_dwarf(struct core_elf *e)
{
	return core_elf_has_section(e, ".debug_info") || core_elf_has_section(e, ".zdebug_info");
}

/* An executable (ET_EXEC, or a PIE: it asks for an interpreter), as
 * opposed to a shared library. */
static int is_executable(struct core_elf *e)
{
	GElf_Ehdr eh;
	uint64_t v;
	if (gelf_getehdr(core_elf_libelf(e), &eh) && eh.e_type == ET_EXEC)
		return 1;
	return core_elf_segment(e, PT_INTERP, &v) == 0;
}

void jh_object_load(struct jh_object *o, int fd, const char *root)
{
	struct core_elf *obj, *dbg = NULL;
	o->loaded = -1;
	if (fd < 0 || core_elf_open(fd, &obj))
		return;
	if (core_elf_foreach_load(obj, segment_cb, o))
		goto out;
	int own_symtab = core_elf_has_symtab(obj), own_dwarf = has_dwarf(obj);
	if (!own_symtab || !own_dwarf)
		dbg = open_debug_file(obj, root, o->path);
	int rc;
	if (own_symtab)
		rc = collect_symbols(o, obj, CORE_ELF_SYMTAB);
	else if (dbg && core_elf_has_symtab(dbg))
		rc = collect_symbols(o, dbg, CORE_ELF_SYMTAB);
	else if (!(rc = collect_symbols(o, obj, CORE_ELF_DYNSYM)))
		rc = collect_minidebuginfo(o, obj);
	if (rc)
		goto out;
	o->executable = o->has_main || is_executable(obj);
	core_elf_build_id(obj, o->build_id, sizeof(o->build_id));
	if (o->nsyms) /* qsort's pointer must not be NULL, even for 0 items */
		qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
	o->loaded = 1;
	/* DWARF from whichever file has it; that file stays open. */
	struct core_elf **dw = own_dwarf ? &obj : dbg && has_dwarf(dbg) ? &dbg : NULL;
	if (!dw)
		o->lines = JH_LINES_NO_DEBUG_INFO;
	else if (!jh_dwarf_open(o, core_elf_libelf(*dw))) {
		o->lines = JH_LINES_OK;
		o->dw_file = *dw;
		*dw = NULL;
	} else
		o->lines = jh_dwarf_supported() ? JH_LINES_UNREADABLE : JH_LINES_NOT_BUILT;
out:
	core_elf_close(dbg);
	core_elf_close(obj);
}

void jh_object_free(struct jh_object *o)
{
	jh_dwarf_close(o);
	core_elf_close(o->dw_file);
	free(o->path);
	free(o->syms);
	free(o->segs);
	jh_pool_free(&o->names);
}

int jh_object_vaddr(const struct jh_object *o, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < o->nsegs; i++)
		if (off >= o->segs[i].offset && off < o->segs[i].offset + o->segs[i].filesz) {
			*vaddr = off - o->segs[i].offset + o->segs[i].vaddr;
			return 0;
		}
	return -1;
}

/* Does symbol k's extent hold vaddr? A symbol of size 0 (hand-written
 * assembly, some linker-made stubs) claims up to next, the address of the
 * next symbol above it, but not past the last one (next 0): there is no
 * end to believe. */
static int holds(const struct jh_object *o, size_t k, uint64_t vaddr, uint64_t next)
{
	const struct jh_sym *y = &o->syms[k];
	if (y->size)
		return vaddr - y->addr < y->size;
	return next && vaddr < next;
}

/* How many symbol groups below vaddr are tried for one whose extent holds
 * it: function symbols do not nest, but a function's .cold part or a
 * local label typed as a function may lie between. */
#define SYMBOL_LOOKBACK 8

struct jh_sym *jh_object_symbol(struct jh_object *o, uint64_t vaddr)
{
	_Static_assert(offsetof(struct jh_sym, addr) == 0, "core_search's key comes first");
	size_t below = core_count_at_or_below(o->syms, o->nsyms, sizeof(o->syms[0]), vaddr);
	for (int tries = 0; below > 0 && tries < SYMBOL_LOOKBACK; tries++) {
		/* The group of aliases at one address, [first, last]. */
		size_t last = below - 1, first = last;
		while (first > 0 && o->syms[first - 1].addr == o->syms[last].addr)
			first--;
		below = first;
		/* Sorted by address: the next higher one, once per group (a
		 * scan per alias made 200,000 aliases quadratic). */
		uint64_t next = last + 1 < o->nsyms ? o->syms[last + 1].addr : 0;
		/* jeprof (GetProcedureBoundariesViaNm over `nm -n`, sorted by
		 * address then name) keeps the last 't'/'T' alias, or the first
		 * one when none is: malloc rather than __libc_malloc. Among
		 * those whose extent holds vaddr. */
		size_t pick = SIZE_MAX;
		for (size_t k = first; k <= last; k++)
			if (holds(o, k, vaddr, next) && (pick == SIZE_MAX || o->syms[k].strong))
				pick = k;
		if (pick == SIZE_MAX)
			continue;
		struct jh_sym *y = &o->syms[pick];
		if (!y->display)
			y->display = jh_display_name(&o->names, y->name);
		return y->display ? y : NULL;
	}
	return NULL;
}
