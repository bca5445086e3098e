/* SPDX-License-Identifier: BSD-2-Clause */
/* The one ELF reader (see core_elf.h). Every size in the file is the file's
 * claim: libelf checks section data against the file's length, and the
 * walks here go by the counts libelf gives. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core_elf.h"

struct core_elf {
	int fd;    /* -1 for a memory image */
	void *mem; /* a memory image's bytes, owned */
	Elf *elf;
	GElf_Ehdr ehdr;
};

static int finish_open(struct core_elf *e, struct core_elf **out)
{
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &e->ehdr)) {
		core_elf_close(e);
		return -ENOEXEC;
	}
	*out = e;
	return 0;
}

static struct core_elf *new_elf(void)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	struct core_elf *e = calloc(1, sizeof(*e));
	if (e)
		e->fd = -1;
	return e;
}

int core_elf_open(int fd, struct core_elf **out)
{
	struct core_elf *e = new_elf();
	if (!e) {
		close(fd);
		return -ENOMEM;
	}
	e->fd = fd;
	e->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	return finish_open(e, out);
}

int core_elf_open_path(const char *path, struct core_elf **out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	return fd < 0 ? -errno : core_elf_open(fd, out);
}

int core_elf_open_memory(void *buf, size_t len, struct core_elf **out)
{
	struct core_elf *e = new_elf();
	if (!e) {
		free(buf);
		return -ENOMEM;
	}
	e->mem = buf;
	e->elf = elf_memory(buf, len);
	return finish_open(e, out);
}

void core_elf_close(struct core_elf *e)
{
	if (!e)
		return;
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->mem);
	free(e);
}

Elf *core_elf_libelf(struct core_elf *e)
{
	return e->elf;
}

int core_elf_fd(const struct core_elf *e)
{
	return e->fd;
}

int core_elf_class(const struct core_elf *e)
{
	return e->ehdr.e_ident[EI_CLASS];
}

int core_elf_machine(const struct core_elf *e)
{
	return e->ehdr.e_machine;
}

/* The first section of type (0: any) and name (NULL: any). A symbol table
 * whose entries claim size 0 is no table. */
static Elf_Scn *find_section(Elf *elf, Elf64_Word type, const char *name, GElf_Shdr *sh)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	if (name && elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh) || (type && sh->sh_type != type))
			continue;
		if ((type == SHT_SYMTAB || type == SHT_DYNSYM) && !sh->sh_entsize)
			continue;
		if (name) {
			const char *n = elf_strptr(elf, shstrndx, sh->sh_name);
			if (!n || strcmp(n, name))
				continue;
		}
		return scn;
	}
	return NULL;
}

int core_elf_has_symtab(const struct core_elf *e)
{
	GElf_Shdr sh;
	return find_section(e->elf, SHT_SYMTAB, NULL, &sh) != NULL;
}

/* The most symbols one table walk reads. The table's size is the file's
 * claim: a sparse file whose .symtab says 4 GiB (178 million entries) kept
 * jeattach 15 s and 4.2 GB on it. Real programs have a few million
 * symbols at most (a browser with full symbols: ~3 million). */
#define MAX_SYMBOLS ((size_t)8 << 20)

/* Walk one symbol table; stop at the first non-zero cb result. */
static int walk_table(struct core_elf *e, Elf64_Word type, core_elf_sym_cb cb, void *arg)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e->elf, type, NULL, &sh);
	if (!scn || sh.sh_size / sh.sh_entsize > MAX_SYMBOLS)
		return 0; /* no table, or an absurd one: treated as none */
	Elf_Data *d = elf_getdata(scn, NULL);
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
		const char *name = elf_strptr(e->elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		struct core_elf_sym y = { name, s.st_value, s.st_size, t == STT_GNU_IFUNC,
					  GELF_ST_BIND(s.st_info) == STB_WEAK };
		int r = cb(&y, arg);
		if (r)
			return r;
	}
	return 0;
}

int core_elf_foreach_func(struct core_elf *e, enum core_elf_tables tables, core_elf_sym_cb cb,
			  void *arg)
{
	int r = (tables & CORE_ELF_SYMTAB) ? walk_table(e, SHT_SYMTAB, cb, arg) : 0;
	return r || !(tables & CORE_ELF_DYNSYM) ? r : walk_table(e, SHT_DYNSYM, cb, arg);
}

struct lookup {
	const char *name;
	struct core_elf_sym *out;
};

static int lookup_cb(const struct core_elf_sym *s, void *arg)
{
	struct lookup *l = arg;
	if (strcmp(s->name, l->name))
		return 0;
	*l->out = *s;
	return 1;
}

int core_elf_lookup(struct core_elf *e, const char *name, enum core_elf_tables tables,
		    struct core_elf_sym *out)
{
	struct lookup l = { name, out };
	return core_elf_foreach_func(e, tables, lookup_cb, &l) ? 0 : -ENOENT;
}

/* cb for each program header of type p_type. */
typedef int (*phdr_cb)(const GElf_Phdr *ph, void *arg);
static int foreach_phdr(struct core_elf *e, uint32_t p_type, phdr_cb cb, void *arg)
{
	size_t n;
	if (elf_getphdrnum(e->elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		int r;
		if (gelf_getphdr(e->elf, (int)i, &ph) && ph.p_type == p_type && (r = cb(&ph, arg)))
			return r;
	}
	return 0;
}

struct load_walk {
	core_elf_load_cb cb;
	void *arg;
};

static int load_cb(const GElf_Phdr *ph, void *arg)
{
	struct load_walk *w = arg;
	return w->cb(ph->p_offset, ph->p_filesz, ph->p_vaddr, w->arg);
}

int core_elf_foreach_load(struct core_elf *e, core_elf_load_cb cb, void *arg)
{
	struct load_walk w = { cb, arg };
	return foreach_phdr(e, PT_LOAD, load_cb, &w);
}

static int first_cb(const GElf_Phdr *ph, void *arg)
{
	*(GElf_Phdr *)arg = *ph;
	return 1;
}

int core_elf_first_load(struct core_elf *e, uint64_t *vaddr, uint64_t *offset)
{
	GElf_Phdr ph;
	if (foreach_phdr(e, PT_LOAD, first_cb, &ph) != 1)
		return -ENOEXEC;
	*vaddr = ph.p_vaddr;
	*offset = ph.p_offset;
	return 0;
}

int core_elf_segment(struct core_elf *e, uint32_t p_type, uint64_t *vaddr)
{
	GElf_Phdr ph;
	int r = foreach_phdr(e, p_type, first_cb, &ph);
	if (r < 0)
		return r;
	if (r == 0)
		return -ENOENT;
	*vaddr = ph.p_vaddr;
	return 0;
}

int core_elf_section(struct core_elf *e, const char *name, const void **data, size_t *len)
{
	GElf_Shdr sh;
	Elf_Scn *scn = find_section(e->elf, 0, name, &sh);
	Elf_Data *d = scn ? elf_rawdata(scn, NULL) : NULL;
	if (!d || !d->d_buf)
		return -ENOENT;
	*data = d->d_buf;
	*len = d->d_size;
	return 0;
}

int core_elf_has_section(struct core_elf *e, const char *name)
{
	GElf_Shdr sh;
	return find_section(e->elf, 0, name, &sh) != NULL;
}

void core_elf_build_id(struct core_elf *e, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	hex[0] = 0;
	while ((scn = elf_nextscn(e->elf, scn))) {
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
