/* SPDX-License-Identifier: BSD-2-Clause */
/* sym_elf: symbols and program headers of one ELF file, through libelf. */
#ifndef JEATTACH_SYM_ELF_H
#define JEATTACH_SYM_ELF_H

#include <stdint.h>

struct sym_elf;

/* Takes ownership of fd. -ENOEXEC if it is not an ELF file. */
int sym_elf_open(int fd, struct sym_elf **out);
void sym_elf_close(struct sym_elf *e);
int sym_elf_class(const struct sym_elf *e);   /* ELFCLASS32 / ELFCLASS64 */
int sym_elf_machine(const struct sym_elf *e); /* EM_* */
int sym_elf_has_symtab(const struct sym_elf *e); /* a .symtab (not just .dynsym) */

/* A defined function (or IFUNC) named name: .symtab first, then .dynsym.
 * Returns 0 and its link-time value, or -ENOENT. */
int sym_elf_lookup(struct sym_elf *e, const char *name, uint64_t *value, uint64_t *size);
/* The same, also telling whether it is an IFUNC (its value is a resolver
 * that returns the implementation's address). */
int sym_elf_lookup_ifunc(struct sym_elf *e, const char *name, uint64_t *value, int *ifunc);

/* The same, in .dynsym only: is the function exported? */
int sym_elf_lookup_dynsym(struct sym_elf *e, const char *name, uint64_t *value);

/* Call cb for each defined function symbol of .symtab and .dynsym (a name may
 * come twice); a non-zero return from cb stops and is returned. */
typedef int (*sym_elf_func_cb)(const char *name, uint64_t value, uint64_t size, int ifunc,
			       void *arg);
int sym_elf_foreach_func(struct sym_elf *e, sym_elf_func_cb cb, void *arg);

/* The first PT_LOAD segment's p_vaddr and p_offset: with the mapping of that
 * file offset they give the load bias. */
int sym_elf_first_load(struct sym_elf *e, uint64_t *vaddr, uint64_t *offset);

/* p_vaddr of the segment of type p_type (PT_GNU_EH_FRAME...), or -ENOENT. */
int sym_elf_segment(struct sym_elf *e, uint32_t p_type, uint64_t *vaddr);

#endif
