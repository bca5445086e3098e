/* SPDX-License-Identifier: BSD-2-Clause */
/* Addresses -> function names, from the profile's own copy of the maps.
 * address -> mapping -> file offset -> the PT_LOAD segment holding that
 * offset -> link-time virtual address -> nearest function symbol at or below
 * it. Going through the program headers (not "path equals the executable")
 * is what makes PIE executables and shared objects work alike. Symbols come
 * from .symtab when the file has one, else .dynsym: the choice jeprof makes
 * through nm, so names, and so totals per function, agree with it. */
#include "config.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jh_internal.h"
#include "jh_maps.h"

struct jh_sym {
	uint64_t addr;
	const char *name;
	int strong; /* nm's 'T' or 't', not 'W' (weak) or 'i' (ifunc) */
};

struct jh_seg {
	uint64_t offset, filesz, vaddr;
};

struct jh_object {
	char *path;
	int loaded; /* 1 ok, -1 unusable */
	struct jh_sym *syms;
	size_t nsyms;
	struct jh_seg *segs;
	size_t nsegs;
	char *strings; /* names, one block */
};

struct jh_mapping {
	uint64_t start, end, offset;
	size_t object;
};

struct jeheap_symbolizer {
	const jeheap_profile *p; /* its own symbols, when it came symbolized */
	char *root;
	struct jh_object *objs;
	size_t nobjs;
	struct jh_mapping *maps;
	size_t nmaps;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct jh_sym *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static Elf_Scn *find_symtab(Elf *elf, Elf64_Word type, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, sh) && sh->sh_type == type && sh->sh_entsize)
			return scn;
	return NULL;
}

static int load_symbols(struct jh_object *o, Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_symtab(elf, SHT_SYMTAB, &sh);
	if (!scn)
		scn = find_symtab(elf, SHT_DYNSYM, &sh);
	if (!scn)
		return 0;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d)
		return 0;
	size_t n = sh.sh_size / sh.sh_entsize, strbytes = 0;
	o->syms = calloc(n ? n : 1, sizeof(*o->syms));
	if (!o->syms)
		return -1;
	/* First pass: sizes, so that names live in one block. */
	for (int pass = 0; pass < 2; pass++) {
		size_t used = 0;
		o->nsyms = 0;
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
			size_t l = strlen(name) + 1;
			if (pass == 1) {
				memcpy(o->strings + used, name, l);
				o->syms[o->nsyms].addr = s.st_value;
				o->syms[o->nsyms].name = o->strings + used;
				o->syms[o->nsyms].strong =
					GELF_ST_BIND(s.st_info) != STB_WEAK && t == STT_FUNC;
			}
			o->nsyms++;
			used += l;
		}
		if (pass == 0) {
			strbytes = used;
			o->strings = malloc(strbytes ? strbytes : 1);
			if (!o->strings)
				return -1;
		}
	}
	qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
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

/* A stripped object's symbols may live in a separate debug file, found by
 * build id the way gdb and addr2line find it (debug packages such as
 * libc6-dbg install /usr/lib/debug/.build-id/xx/yyyy.debug). Its program
 * headers match the object's, only its section contents differ. */
static int load_debug_symbols(jeheap_symbolizer *s, struct jh_object *o, Elf *elf)
{
	char id[128], path[8192];
	build_id(elf, id, sizeof(id));
	if (strlen(id) < 4)
		return -1;
	snprintf(path, sizeof(path), "%s/usr/lib/debug/.build-id/%.2s/%s.debug",
		 s->root ? s->root : "", id, id + 2);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	Elf *dbg = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	int r = -1;
	if (dbg && elf_kind(dbg) == ELF_K_ELF && find_symtab(dbg, SHT_SYMTAB, &(GElf_Shdr){ 0 })) {
		free(o->syms);
		free(o->strings);
		o->syms = NULL;
		o->strings = NULL;
		o->nsyms = 0;
		r = load_symbols(o, dbg);
	}
	if (dbg)
		elf_end(dbg);
	close(fd);
	return r;
}

/* Open and index an object the first time one of its addresses is asked for. */
static void load_object(jeheap_symbolizer *s, struct jh_object *o)
{
	char path[8192];
	snprintf(path, sizeof(path), "%s%s", s->root ? s->root : "", o->path);
	o->loaded = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && !load_segments(o, elf) && !load_symbols(o, elf)) {
		o->loaded = 1;
		GElf_Shdr sh;
		if (!find_symtab(elf, SHT_SYMTAB, &sh))
			load_debug_symbols(s, o, elf); /* better names if there are any */
	}
	if (elf)
		elf_end(elf);
	close(fd);
}

static size_t object_index(jeheap_symbolizer *s, const char *path, size_t len)
{
	for (size_t i = 0; i < s->nobjs; i++)
		if (strlen(s->objs[i].path) == len && !strncmp(s->objs[i].path, path, len))
			return i;
	struct jh_object *no = realloc(s->objs, (s->nobjs + 1) * sizeof(*no));
	if (!no)
		return SIZE_MAX;
	s->objs = no;
	memset(&no[s->nobjs], 0, sizeof(no[0]));
	no[s->nobjs].path = strndup(path, len);
	if (!no[s->nobjs].path)
		return SIZE_MAX;
	return s->nobjs++;
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
	s->p = p;
	if (root && *root && strcmp(root, "/") && !(s->root = strdup(root)))
		goto nomem;
	const char *text = jeheap_profile_mappings(p);
	size_t nlines = 1;
	for (const char *c = text; *c; c++)
		nlines += *c == '\n';
	s->maps = calloc(nlines, sizeof(*s->maps));
	if (!s->maps)
		goto nomem;
	for (const char *line = text; *line;) {
		struct jh_maps_line l;
		const char *nl = strchr(line, '\n');
		if (!jh_maps_parse_line(line, &l) && l.x && l.path_len && l.path[0] == '/') {
			size_t oi = object_index(s, l.path, l.path_len);
			if (oi == SIZE_MAX)
				goto nomem;
			struct jh_mapping *m = &s->maps[s->nmaps++];
			m->start = l.start;
			m->end = l.end;
			m->offset = l.offset;
			m->object = oi;
		}
		line = nl ? nl + 1 : line + strlen(line);
	}
	*out = s;
	return 0;
nomem:
	jeheap_symbolizer_free(s);
	return JEHEAP_ENOMEM;
}

JH_EXPORT void jeheap_symbolizer_free(jeheap_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nobjs; i++) {
		free(s->objs[i].path);
		free(s->objs[i].syms);
		free(s->objs[i].segs);
		free(s->objs[i].strings);
	}
	free(s->objs);
	free(s->maps);
	free(s->root);
	free(s);
}

/* A symbolized profile names exactly the addresses it will be asked for. */
static const char *from_profile(const jeheap_profile *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nsyms && p->syms[lo].addr == addr ? p->syms[lo].name : NULL;
}

JH_EXPORT const char *jeheap_symbolize(jeheap_symbolizer *s, uint64_t addr)
{
	if (!s)
		return NULL;
	if (s->p->nsyms) {
		const char *name = from_profile(s->p, addr);
		if (name)
			return name;
	}
	const struct jh_mapping *m = NULL;
	for (size_t i = 0; i < s->nmaps; i++) /* few executable mappings: a scan is fine */
		if (addr >= s->maps[i].start && addr < s->maps[i].end) {
			m = &s->maps[i];
			break;
		}
	if (!m)
		return NULL;
	struct jh_object *o = &s->objs[m->object];
	if (!o->loaded)
		load_object(s, o);
	if (o->loaded < 0 || !o->nsyms)
		return NULL;
	uint64_t off = addr - m->start + m->offset, vaddr = 0;
	int found = 0;
	for (size_t i = 0; i < o->nsegs && !found; i++)
		if (off >= o->segs[i].offset && off < o->segs[i].offset + o->segs[i].filesz) {
			vaddr = off - o->segs[i].offset + o->segs[i].vaddr;
			found = 1;
		}
	if (!found)
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
	return o->syms[pick].name;
}
