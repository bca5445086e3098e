/* SPDX-License-Identifier: BSD-2-Clause */
/* file:line and inlined frames from DWARF, through libdw, the way
 * `addr2line -f -i` (which jeprof runs) and elfutils' eu-addr2line report
 * them: the innermost scope's line from the line table; then, for each
 * DW_TAG_inlined_subroutine from the inside out, the function it inlines
 * (named through DW_AT_abstract_origin) and, for the frame around it, its
 * DW_AT_call_file:DW_AT_call_line. Without libdw at build time, no object
 * has DWARF and every frame comes from the symbol tables alone. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "jeheap.h"
#include "jh_object.h"

#ifdef HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#include "jh_dwarf_lazy.h"
#include "jh_dwarf_units.h"

/* A compressed .debug_info is inflated lazily (jh_dwarf_lazy.c), an
 * uncompressed one is mapped by libdw itself. */
int jh_dwarf_open(struct jh_object *o, Elf *elf)
{
	struct jh_lazy *z;
	int l = jh_lazy_open(elf, &z);
	if (!l) {
		o->lazy = z;
		return 0;
	}
	if (l == -2)
		return -1; /* libdw would inflate it all: no DWARF from it */
	Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (!dw)
		return -1;
	o->dwarf = dw;
	return 0;
}

int jh_dwarf_supported(void)
{
	return 1;
}

void jh_dwarf_close(struct jh_object *o)
{
	if (o->dwarf)
		dwarf_end(o->dwarf);
	o->dwarf = NULL;
	jh_units_free(&o->units);
	o->units_tried = 0;
	jh_lazy_close(o->lazy);
	o->lazy = NULL;
}

/* A scope's name as addr2line gives it: the linkage name when there is one
 * (demangled later), else DW_AT_name, following abstract origins. */
static const char *scope_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
	if (!n)
		n = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
	return n;
}

/* A source path as addr2line (binutils' concat_filename) and gdb show it:
 * a relative one under the compilation unit's DW_AT_comp_dir. Joined paths
 * are kept in the object's pool, one per distinct (CU, file) pair seen
 * last: consecutive lookups mostly hit the same file. */
static const char *full_path(struct jh_object *o, Dwarf_Die *cu, const char *file)
{
	if (!file || file[0] == '/')
		return file;
	Dwarf_Attribute a;
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &a));
	if (!dir || !*dir)
		return file;
	if (o->last_file == file && o->last_dir == dir)
		return o->last_path;
	size_t dl = strlen(dir), fl = strlen(file);
	char *tmp = malloc(dl + fl + 2);
	if (!tmp)
		return file;
	memcpy(tmp, dir, dl);
	tmp[dl] = '/';
	memcpy(tmp + dl + 1, file, fl + 1);
	const char *path = jh_pool_strndup(&o->names, tmp, dl + fl + 1);
	free(tmp);
	if (!path)
		return file;
	o->last_file = file;
	o->last_dir = dir;
	o->last_path = path;
	return path;
}

static int is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

/* The unit holding vaddr by the units' own ranges, where libdw's aranges
 * have none (jh_dwarf_units.c: clang and rustc write no .debug_aranges). */
static Dwarf_Die *unit_by_ranges(struct jh_object *o, uint64_t vaddr, Dwarf_Die *cu)
{
	if (!o->units_tried) {
		o->units_tried = 1;
		if (jh_units_from_dies(o->dwarf, &o->units))
			jh_units_free(&o->units); /* none, or out of memory: libdw's alone */
	}
	int64_t off = jh_units_find(&o->units, vaddr);
	return off < 0 ? NULL : dwarf_offdie(o->dwarf, (Dwarf_Off)off, cu);
}

size_t jh_dwarf_frames(struct jh_object *o, uint64_t vaddr, struct jeheap_frame *out, size_t max)
{
	Dwarf_Die cu;
	if (o->lazy ? !jh_lazy_cu(o->lazy, vaddr, &cu)
		    : !o->dwarf || (!dwarf_addrdie(o->dwarf, vaddr, &cu) &&
				    !unit_by_ranges(o, vaddr, &cu)))
		return 0;
	const char *file = NULL;
	int line = 0;
	unsigned disc = 0;
	Dwarf_Line *l = dwarf_getsrc_die(&cu, vaddr);
	if (l) {
		file = dwarf_linesrc(l, NULL, NULL);
		if (dwarf_lineno(l, &line))
			line = 0;
		if (dwarf_linediscriminator(l, &disc))
			disc = 0;
	}
	Dwarf_Files *files = NULL;
	if (dwarf_getsrcfiles(&cu, &files, NULL))
		files = NULL;
	/* dwarf_getscopes gives the innermost scope at vaddr, but past an
	 * inlined subroutine it follows the abstract origin's parents (the
	 * CU), not the function it was inlined into; the DIE tree's own
	 * parents of that innermost scope (dwarf_getscopes_die) are the
	 * concrete chain, as eu-addr2line -i walks it. */
	Dwarf_Die *scopes = NULL, inner;
	int nscopes = dwarf_getscopes(&cu, vaddr, &scopes);
	if (nscopes > 0) {
		inner = scopes[0];
		free(scopes);
		scopes = NULL;
		nscopes = dwarf_getscopes_die(&inner, &scopes);
	}
	size_t n = 0;
	for (int i = 0; i < nscopes; i++) {
		Dwarf_Die *die = &scopes[i];
		if (!is_function(die))
			continue;
		if (n < max) {
			const char *name = scope_name(die);
			out[n].function = name ? jh_display_name(&o->names, name) : NULL;
			out[n].file = full_path(o, &cu, file);
			out[n].line = line > 0 ? (unsigned long)line : 0;
			out[n].discriminator = n == 0 ? disc : 0;
		}
		n++;
		if (dwarf_tag(die) != DW_TAG_inlined_subroutine)
			break; /* the containing function: the end of the chain */
		/* The frame around an inlined call is at its call site. */
		Dwarf_Attribute a;
		Dwarf_Word v;
		file = NULL;
		line = 0;
		if (files && !dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &v))
			file = dwarf_filesrc(files, v, NULL, NULL);
		if (!dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &v))
			line = (int)v;
	}
	free(scopes);
	if (n == 0) { /* in a CU but in no function DIE (assembly): a line only */
		if (max) {
			out[0].function = NULL;
			out[0].file = full_path(o, &cu, file);
			out[0].line = line > 0 ? (unsigned long)line : 0;
			out[0].discriminator = disc;
		}
		n = 1;
	}
	return n;
}

#else

int jh_dwarf_open(struct jh_object *o, Elf *elf)
{
	(void)o, (void)elf;
	return -1;
}

int jh_dwarf_supported(void)
{
	return 0;
}

void jh_dwarf_close(struct jh_object *o)
{
	(void)o;
}

size_t jh_dwarf_frames(struct jh_object *o, uint64_t vaddr, struct jeheap_frame *out, size_t max)
{
	(void)o, (void)vaddr, (void)out, (void)max;
	return 0;
}
#endif
