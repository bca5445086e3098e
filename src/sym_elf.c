/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sym_elf.h"

struct sym_elf {
	int fd;
	Elf *elf;
	GElf_Ehdr ehdr;
};

int sym_elf_open(int fd, struct sym_elf **out)
{
	if (elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return -ENOSYS;
	}
	struct sym_elf *e = calloc(1, sizeof(*e));
	if (!e) {
		close(fd);
		return -ENOMEM;
	}
	e->fd = fd;
	e->elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e->elf || elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &e->ehdr)) {
		sym_elf_close(e);
		return -ENOEXEC;
	}
	*out = e;
	return 0;
}

void sym_elf_close(struct sym_elf *e)
{
	if (!e)
		return;
	if (e->elf)
		elf_end(e->elf);
	close(e->fd);
	free(e);
}

int sym_elf_class(const struct sym_elf *e)
{
	return e->ehdr.e_ident[EI_CLASS];
}

int sym_elf_machine(const struct sym_elf *e)
{
	return e->ehdr.e_machine;
}

static Elf_Scn *find_section(const struct sym_elf *e, Elf64_Word type)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	while ((scn = elf_nextscn(e->elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	return NULL;
}

int sym_elf_has_symtab(const struct sym_elf *e)
{
	return find_section(e, SHT_SYMTAB) != NULL;
}

static int is_defined_func(const GElf_Sym *s)
{
	int t = GELF_ST_TYPE(s->st_info);
	return s->st_shndx != SHN_UNDEF && (t == STT_FUNC || t == STT_GNU_IFUNC);
}

/* Walk one symbol table; stop at the first non-zero cb result. */
static int walk_table(struct sym_elf *e, Elf64_Word type, sym_elf_func_cb cb, void *arg)
{
	Elf_Scn *scn = find_section(e, type);
	GElf_Shdr sh;
	if (!scn || !gelf_getshdr(scn, &sh) || !sh.sh_entsize)
		return 0;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d)
		return 0;
	size_t n = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s) || !is_defined_func(&s))
			continue;
		const char *name = elf_strptr(e->elf, sh.sh_link, s.st_name);
		if (!name || !*name)
			continue;
		int r = cb(name, s.st_value, s.st_size, GELF_ST_TYPE(s.st_info) == STT_GNU_IFUNC, arg);
		if (r)
			return r;
	}
	return 0;
}

int sym_elf_foreach_func(struct sym_elf *e, sym_elf_func_cb cb, void *arg)
{
	int r = walk_table(e, SHT_SYMTAB, cb, arg);
	return r ? r : walk_table(e, SHT_DYNSYM, cb, arg);
}

struct lookup {
	const char *name;
	uint64_t value, size;
	int ifunc;
};

static int lookup_cb(const char *name, uint64_t value, uint64_t size, int ifunc, void *arg)
{
	struct lookup *l = arg;
	if (strcmp(name, l->name))
		return 0;
	l->value = value;
	l->size = size;
	l->ifunc = ifunc;
	return 1;
}

int sym_elf_lookup(struct sym_elf *e, const char *name, uint64_t *value, uint64_t *size)
{
	struct lookup l = { name, 0, 0, 0 };
	if (!sym_elf_foreach_func(e, lookup_cb, &l))
		return -ENOENT;
	*value = l.value;
	if (size)
		*size = l.size;
	return 0;
}

int sym_elf_lookup_ifunc(struct sym_elf *e, const char *name, uint64_t *value, int *ifunc)
{
	struct lookup l = { name, 0, 0, 0 };
	if (!sym_elf_foreach_func(e, lookup_cb, &l))
		return -ENOENT;
	*value = l.value;
	*ifunc = l.ifunc;
	return 0;
}

int sym_elf_lookup_dynsym(struct sym_elf *e, const char *name, uint64_t *value)
{
	struct lookup l = { name, 0, 0, 0 };
	if (!walk_table(e, SHT_DYNSYM, lookup_cb, &l))
		return -ENOENT;
	*value = l.value;
	return 0;
}

static int find_segment(struct sym_elf *e, uint32_t p_type, GElf_Phdr *out)
{
	size_t n;
	if (elf_getphdrnum(e->elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e->elf, (int)i, out) && out->p_type == p_type)
			return 0;
	return -ENOENT;
}

int sym_elf_first_load(struct sym_elf *e, uint64_t *vaddr, uint64_t *offset)
{
	GElf_Phdr ph;
	if (find_segment(e, PT_LOAD, &ph))
		return -ENOEXEC;
	*vaddr = ph.p_vaddr;
	*offset = ph.p_offset;
	return 0;
}

int sym_elf_segment(struct sym_elf *e, uint32_t p_type, uint64_t *vaddr)
{
	GElf_Phdr ph;
	int err = find_segment(e, p_type, &ph);
	if (!err)
		*vaddr = ph.p_vaddr;
	return err;
}
