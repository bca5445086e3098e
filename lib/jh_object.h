/* SPDX-License-Identifier: BSD-2-Clause */
/* One ELF object of a profile's maps: its PT_LOAD segments, its function
 * symbols from wherever they are (the file, its build-id or debuglink debug
 * file, its MiniDebugInfo), and a handle on its DWARF if there is any.
 * Opened and indexed once, the first time one of its addresses is asked
 * for. Internal to libjeheap. */
#ifndef JH_OBJECT_H
#define JH_OBJECT_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include "core_elf.h"
#include "jh_dwarf_units.h"
#include "jh_names.h"

struct jh_lazy;

struct jh_sym {
	uint64_t addr;
	uint64_t size;       /* st_size; 0: unknown (assembly often says 0) */
	const char *name;    /* as in the symbol table */
	const char *display; /* as jeprof shows it; NULL until asked for */
	int strong;          /* nm's 'T' or 't', not 'W' (weak) or 'i' (ifunc) */
};

struct jh_seg {
	uint64_t offset, filesz, vaddr;
};

/* Why an object's addresses are not named from its file. */
enum jh_object_problem {
	JH_OBJ_OK = 0,
	JH_OBJ_MISSING,  /* no file at its path (or not readable, not ELF) */
	JH_OBJ_REPLACED, /* a file is there, but not the one profiled: another
			  * build id, or another inode on the same boot */
	JH_OBJ_NEWER,    /* no proof either way, but changed after the profile
			  * was written: used, names may be wrong */
};

/* Whether an object has line data (DWARF), once loaded. */
enum jh_lines {
	JH_LINES_UNKNOWN = 0,   /* not loaded */
	JH_LINES_OK,            /* DWARF read, from the file or its debug file */
	JH_LINES_NO_DEBUG_INFO, /* none in either */
	JH_LINES_UNREADABLE,    /* there, but jh_dwarf_open refused it */
	JH_LINES_NOT_BUILT,     /* there, but libjeheap has no libdw */
};

struct jh_object {
	char *path;
	int loaded; /* 0 not yet, 1 ok, -1 unusable */
	int problem; /* enum jh_object_problem, once loaded */
	int defines_mallctl; /* under any prefix, exported or not */
	int executable;      /* a program (ET_EXEC, a PIE, a static-pie), no library */
	int has_main;
	char build_id[68]; /* lower-case hex, "" if none */
	int lines;         /* enum jh_lines */
	int lines_asked;   /* an address of it was looked up for frames */
	struct jh_sym *syms;
	size_t nsyms, syms_cap;
	struct jh_seg *segs;
	size_t nsegs, segs_cap;
	struct jh_pool names;
	/* The file whose DWARF answers for this object (itself or its
	 * debug file), kept open while the symbolizer lives. */
	struct core_elf *dw_file;
	void *dwarf; /* Dwarf *, when built with libdw */
	struct jh_lazy *lazy; /* instead, for a compressed .debug_info */
	/* With dwarf: units by their own ranges, built at the first address
	 * libdw's aranges miss (jh_dwarf_units.c); units_tried once tried. */
	struct jh_units units;
	int units_tried;
	const char *last_file, *last_dir, *last_path; /* jh_dwarf.c's path cache */
};

/* Load from fd, the object's file opened by core_open_mapped (taken; < 0:
 * none could be opened); root: a sysroot prefix for its debug files, or
 * NULL. Sets o->loaded, o->defines_mallctl, o->executable and o->build_id. */
void jh_object_load(struct jh_object *o, int fd, const char *root);
void jh_object_free(struct jh_object *o);
/* The build-id debug file of an object whose build id is id (hex), as
 * gdb and Debian's -dbgsym packages place it:
 * /usr/lib/debug/.build-id/xx/rest.debug, into buf; -1 when id is too
 * short to name one, or buf too small. */
int jh_object_build_id_path(const char *id, char *buf, size_t size);
/* The link-time address of file offset off, or -1 if no segment has it. */
int jh_object_vaddr(const struct jh_object *o, uint64_t off, uint64_t *vaddr);
/* The function symbol whose extent holds vaddr, or NULL: an address past
 * a symbol's end (a stripped object's internal function, padding) is not
 * named after it, since nothing proves that name. */
struct jh_sym *jh_object_symbol(struct jh_object *o, uint64_t vaddr);

/* DWARF (jh_dwarf.c). Frames at vaddr, innermost first; the last is the
 * containing function. Returns the count (at most max stored), 0 when the
 * object has no DWARF for vaddr. */
struct jeheap_frame;
int jh_dwarf_open(struct jh_object *o, Elf *elf);
/* Was libjeheap built with libdw (1), or does it read no DWARF (0)? */
int jh_dwarf_supported(void);
void jh_dwarf_close(struct jh_object *o);
size_t jh_dwarf_frames(struct jh_object *o, uint64_t vaddr, struct jeheap_frame *out, size_t max);

#endif
