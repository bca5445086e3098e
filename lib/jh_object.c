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
#include <gelf.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "jh_object.h"

static int cmp_sym(const void *a, const void *b)
{
	const struct jh_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static Elf_Scn *find_section(Elf *elf, Elf64_Word type, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (name && elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || (type && sh->sh_type != type))
			continue;
		if (type == SHT_SYMTAB || type == SHT_DYNSYM) {
			if (!sh->sh_entsize)
				continue;
		}
		if (name) {
			const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
			if (!n || strcmp(n, name))
				continue;
		}
		return scn;
	}
	return NULL;
}

static int has_symtab(Elf *elf)
{
	GElf_Shdr sh;
	return find_section(elf, SHT_SYMTAB, NULL, &sh) != NULL;
}

/* Append the function symbols of elf's table of the given type. */
static int collect_symbols(struct jh_object *o, Elf *elf, Elf64_Word type)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, type, NULL, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d)
		return 0;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
			continue;
		int t = GELF_ST_TYPE(s.st_info);
		if (t != STT_FUNC && t != STT_GNU_IFUNC)
			continue;
		const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		if (o->nsyms == o->syms_cap) {
			size_t cap = o->syms_cap ? 2 * o->syms_cap : 256;
			struct jh_sym *ns = realloc(o->syms, cap * sizeof(*ns));
			if (!ns)
				return -1;
			o->syms = ns;
			o->syms_cap = cap;
		}
		struct jh_sym *y = &o->syms[o->nsyms];
		if (!(y->name = jh_pool_strndup(&o->names, name, strlen(name))))
			return -1;
		y->addr = s.st_value;
		y->display = NULL;
		y->strong = GELF_ST_BIND(s.st_info) != STB_WEAK && t == STT_FUNC;
		o->nsyms++;
	}
	return 0;
}

static int load_segments(struct jh_object *o, Elf *elf)
{
	size_t n;
	if (elf_getphdrnum(elf, &n))
		return -1;
	o->segs = calloc(n ? n : 1, sizeof(*o->segs));
	if (!o->segs)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			o->segs[o->nsegs].offset = ph.p_offset;
			o->segs[o->nsegs].filesz = ph.p_filesz;
			o->segs[o->nsegs].vaddr = ph.p_vaddr;
			o->nsegs++;
		}
	}
	return 0;
}

/* The object's build id (NT_GNU_BUILD_ID) as lower-case hex, or "". */
static void build_id(Elf *elf, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	hex[0] = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while (d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + name_off, "GNU", 4))
				continue;
			const unsigned char *id = (const unsigned char *)d->d_buf + desc_off;
			for (size_t i = 0; i < nh.n_descsz && 2 * i + 3 < len; i++)
				snprintf(hex + 2 * i, 3, "%02x", id[i]);
			return;
		}
	}
}

/* An open ELF file. */
struct elf_file {
	int fd;
	Elf *elf;
};

static int open_elf(const char *path, struct elf_file *f)
{
	f->elf = NULL;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0)
		return -1;
	f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
	if (f->elf && elf_kind(f->elf) == ELF_K_ELF)
		return 0;
	if (f->elf)
		elf_end(f->elf);
	close(f->fd);
	f->fd = -1;
	f->elf = NULL;
	return -1;
}

static void close_elf(struct elf_file *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
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

/* The debug file named by .gnu_debuglink, where gdb looks for it. */
static int open_debuglink(Elf *elf, const char *root, const char *objpath, struct elf_file *f)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, 0, ".gnu_debuglink", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || d->d_size < 8)
		return -1;
	const char *name = d->d_buf;
	size_t nl = strnlen(name, d->d_size);
	if (nl == 0 || nl >= d->d_size || strchr(name, '/'))
		return -1;
	size_t crc_off = (nl + 4) & ~(size_t)3; /* after the NUL, 4-aligned */
	if (crc_off + 4 > d->d_size)
		return -1;
	uint32_t want;
	memcpy(&want, (const char *)d->d_buf + crc_off, 4);
	if (elf_getident(elf, NULL)[EI_DATA] != ELFDATA2LSB)
		want = __builtin_bswap32(want);
	const char *slash = strrchr(objpath, '/');
	int dirlen = slash ? (int)(slash - objpath) : 0;
	const char *r = root ? root : "";
	for (int i = 0; i < 3; i++) {
		char path[8192];
		if (i == 0)
			snprintf(path, sizeof(path), "%s%.*s/%s", r, dirlen, objpath, name);
		else if (i == 1)
			snprintf(path, sizeof(path), "%s%.*s/.debug/%s", r, dirlen, objpath, name);
		else
			snprintf(path, sizeof(path), "%s/usr/lib/debug%.*s/%s", r, dirlen, objpath,
				 name);
		uint32_t crc;
		if (open_elf(path, f))
			continue;
		if (!file_crc32(f->fd, &crc) && crc == want)
			return 0;
		close_elf(f);
	}
	return -1;
}

static int open_debug_file(Elf *elf, const char *root, const char *objpath, struct elf_file *f)
{
	char id[128], path[8192];
	build_id(elf, id, sizeof(id));
	if (strlen(id) >= 4) {
		snprintf(path, sizeof(path), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
			 root ? root : "", id, id + 2);
		if (!open_elf(path, f))
			return 0;
	}
	return open_debuglink(elf, root, objpath, f);
}

/* MiniDebugInfo: .gnu_debugdata is an xz stream of a small ELF file (a
 * symbol table: kilobytes to a few megabytes). A larger one is refused
 * rather than inflated: the file may be hostile. */
#define MINIDEBUG_MAX ((size_t)64 << 20)
static int collect_minidebuginfo(struct jh_object *o, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(elf, SHT_PROGBITS, ".gnu_debugdata", &sh);
	Elf_Data *d = scn ? elf_rawdata(scn, NULL) : NULL;
	if (!d || !d->d_size)
		return 0;
	lzma_stream st = LZMA_STREAM_INIT;
	if (lzma_stream_decoder(&st, MINIDEBUG_MAX, 0) != LZMA_OK)
		return 0;
	size_t cap = d->d_size * 4 + 4096, len = 0;
	unsigned char *buf = malloc(cap);
	int rc = 0;
	st.next_in = d->d_buf;
	st.avail_in = d->d_size;
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
			unsigned char *nb = cap < MINIDEBUG_MAX ? realloc(buf, cap * 2) : NULL;
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		} else if (lr == LZMA_BUF_ERROR) {
			free(buf); /* truncated */
			buf = NULL;
		}
	}
	lzma_end(&st);
	if (!buf)
		return 0;
	Elf *mini = elf_memory((char *)buf, len);
	if (mini && elf_kind(mini) == ELF_K_ELF)
		rc = collect_symbols(o, mini, SHT_SYMTAB); /* names are copied */
	if (mini)
		elf_end(mini);
	free(buf);
	return rc;
}

static int has_dwarf(Elf *elf)
{
	GElf_Shdr sh;
	return find_section(elf, 0, ".debug_info", &sh) || find_section(elf, 0, ".zdebug_info", &sh);
}

void jh_object_load(struct jh_object *o, const char *root, const char *first)
{
	char path[8192];
	struct elf_file obj, dbg = { -1, NULL };
	snprintf(path, sizeof(path), "%s%s", root ? root : "", o->path);
	o->loaded = -1;
	o->dw_fd = -1;
	if ((!first || open_elf(first, &obj)) && open_elf(path, &obj))
		return;
	if (load_segments(o, obj.elf))
		goto out;
	int own_symtab = has_symtab(obj.elf), own_dwarf = has_dwarf(obj.elf);
	if (!own_symtab || !own_dwarf)
		open_debug_file(obj.elf, root, o->path, &dbg);
	int rc;
	if (own_symtab)
		rc = collect_symbols(o, obj.elf, SHT_SYMTAB);
	else if (dbg.elf && has_symtab(dbg.elf))
		rc = collect_symbols(o, dbg.elf, SHT_SYMTAB);
	else if (!(rc = collect_symbols(o, obj.elf, SHT_DYNSYM)))
		rc = collect_minidebuginfo(o, obj.elf);
	if (rc)
		goto out;
	if (o->nsyms) /* qsort's pointer must not be NULL, even for 0 items */
		qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
	o->loaded = 1;
	/* DWARF from whichever file has it; that file stays open. */
	struct elf_file *dw = own_dwarf ? &obj : dbg.elf && has_dwarf(dbg.elf) ? &dbg : NULL;
	if (dw && !jh_dwarf_open(o, dw->elf)) {
		o->dw_fd = dw->fd;
		o->dw_elf = dw->elf;
		dw->fd = -1;
		dw->elf = NULL;
	}
out:
	close_elf(&dbg);
	close_elf(&obj);
}

void jh_object_free(struct jh_object *o)
{
	jh_dwarf_close(o);
	if (o->dw_elf)
		elf_end(o->dw_elf);
	if (o->dw_fd >= 0)
		close(o->dw_fd);
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

struct jh_sym *jh_object_symbol(struct jh_object *o, uint64_t vaddr)
{
	if (!o->nsyms)
		return NULL;
	/* The last symbol at or below vaddr (the first of equal addresses). */
	size_t lo = 0, hi = o->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (o->syms[mid].addr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* jeprof names an address by `addr2line -f` (nearest symbol below it,
	 * however far) and, when that says ??, by its `nm` join
	 * (MapSymbolsWithNM), which gives an address below the first symbol
	 * the first symbol's name. That is how the leaf frames inside a
	 * stripped libjemalloc.so (internal functions placed before malloc)
	 * come out as "malloc" and get pruned; doing the same keeps totals
	 * per function equal to jeprof's. */
	size_t last = lo ? lo - 1 : 0, first = last, pick;
	/* Aliases share an address: jeprof (GetProcedureBoundariesViaNm over
	 * `nm -n`, sorted by address then name) keeps the last 't'/'T' symbol,
	 * or the first one when none is: malloc rather than __libc_malloc. */
	while (first > 0 && o->syms[first - 1].addr == o->syms[last].addr)
		first--;
	pick = first;
	for (size_t k = first; k <= last; k++)
		if (o->syms[k].strong)
			pick = k;
	struct jh_sym *y = &o->syms[pick];
	if (!y->display)
		y->display = jh_display_name(&o->names, y->name);
	return y->display ? y : NULL;
}
