/* SPDX-License-Identifier: BSD-2-Clause */
/* core_elf: the one ELF reader (through libelf) for jeattach's symbol
 * layer and libjeheap's symbolizer: function symbols of .symtab and
 * .dynsym, program headers, sections, the build id. */
#ifndef CORE_ELF_H
#define CORE_ELF_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

struct core_elf;

/* Takes ownership of fd (closed on failure too). -ENOEXEC if not ELF. */
int core_elf_open(int fd, struct core_elf **out);
int core_elf_open_path(const char *path, struct core_elf **out);
/* An ELF image in memory; takes ownership of buf (malloc'd). */
int core_elf_open_memory(void *buf, size_t len, struct core_elf **out);
void core_elf_close(struct core_elf *e); /* NULL is fine */
Elf *core_elf_libelf(struct core_elf *e);
int core_elf_fd(const struct core_elf *e); /* -1 for memory images */
int core_elf_class(const struct core_elf *e);   /* ELFCLASS32 / ELFCLASS64 */
int core_elf_machine(const struct core_elf *e); /* EM_* */

/* Which symbol tables a walk or lookup reads (.symtab before .dynsym). */
enum core_elf_tables { CORE_ELF_SYMTAB = 1, CORE_ELF_DYNSYM = 2, CORE_ELF_BOTH = 3 };
int core_elf_has_symtab(const struct core_elf *e);

/* A defined function (or IFUNC) symbol. */
struct core_elf_sym {
	const char *name; /* valid while the file is open */
	uint64_t value, size;
	int ifunc; /* its value is a resolver returning the implementation */
	int weak;
};
/* cb for each defined function of the tables asked for (a name may come
 * twice); a non-zero return from cb stops and is returned. */
typedef int (*core_elf_sym_cb)(const struct core_elf_sym *s, void *arg);
int core_elf_foreach_func(struct core_elf *e, enum core_elf_tables tables, core_elf_sym_cb cb,
			  void *arg);
/* The first function named name in the tables asked for, or -ENOENT. */
int core_elf_lookup(struct core_elf *e, const char *name, enum core_elf_tables tables,
		    struct core_elf_sym *out);

/* cb for each PT_LOAD segment; a non-zero return stops and is returned. */
typedef int (*core_elf_load_cb)(uint64_t offset, uint64_t filesz, uint64_t vaddr, void *arg);
int core_elf_foreach_load(struct core_elf *e, core_elf_load_cb cb, void *arg);
/* The first PT_LOAD segment's p_vaddr and p_offset: with the mapping of that
 * file offset they give the load bias. */
int core_elf_first_load(struct core_elf *e, uint64_t *vaddr, uint64_t *offset);
/* p_vaddr of the segment of type p_type (PT_GNU_EH_FRAME...), or -ENOENT. */
int core_elf_segment(struct core_elf *e, uint32_t p_type, uint64_t *vaddr);

/* The contents of the section named name (as stored: raw, not
 * decompressed), or -ENOENT. Valid while the file is open. */
int core_elf_section(struct core_elf *e, const char *name, const void **data, size_t *len);
int core_elf_has_section(struct core_elf *e, const char *name);
/* The build id (NT_GNU_BUILD_ID) as lower-case hex, or "" if none. */
void core_elf_build_id(struct core_elf *e, char *hex, size_t len);

#endif
