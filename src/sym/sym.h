/* SPDX-License-Identifier: BSD-2-Clause */
/* sym_: where jemalloc is in a target: its object, its symbol prefix, the
 * addresses of the functions jeattach calls, and the code that must not be
 * interrupted (jemalloc's and the dynamic linker's). */
#ifndef JEATTACH_SYM_H
#define JEATTACH_SYM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "sym_maps.h"

struct sym_range {
	uint64_t start, end;
};

struct sym_ranges {
	struct sym_range *v;
	size_t n, cap;
};

int sym_ranges_add(struct sym_ranges *r, uint64_t start, uint64_t end);
void sym_ranges_sort(struct sym_ranges *r);
int sym_ranges_contains(const struct sym_ranges *r, uint64_t addr);
void sym_ranges_free(struct sym_ranges *r);

struct sym_jemalloc {
	char object[4096];      /* the object's path as the target maps it */
	char prefix[64];        /* "", "je_", "_rjem_", or --prefix */
	int object_deleted;     /* replaced or deleted on disk since it was mapped */
	int is_main_executable; /* linked statically into the program */
	int from_symtab_only;   /* found in .symtab, not exported in .dynsym */
	int found_by_link_map;  /* the object is in the dynamic linker's list */
	uint64_t mallctl;
	uint64_t malloc_stats_print;
	uint64_t bias;
	struct sym_ranges unsafe; /* pcs where no thread may be borrowed */
	struct sym_ranges forking; /* libc's fork path: no thread there either */
};

/* Objects looked at and why none had jemalloc, for the error message. */
int sym_locate_jemalloc(pid_t pid, const struct sym_maps *maps, const char *prefix,
			struct sym_jemalloc *je, char *why, size_t whylen);
void sym_jemalloc_free(struct sym_jemalloc *je);

/* A defined function named name, in the first object (in the dynamic
 * linker's search order) that has it: its address in the target, and
 * whether that address is an IFUNC resolver. */
int sym_lookup_function(pid_t pid, const struct sym_maps *maps, const char *name, uint64_t *addr,
			int *ifunc);

/* The dynamic linker's list of loaded objects (r_debug / link_map), read from
 * the target's memory: each object's load bias and dynamic section (which
 * ties it to its mapping; names are not read: they differ across merged-/usr
 * links, and cost 4 KiB an entry for nothing). */
struct sym_linkmap_entry {
	uint64_t l_addr, l_ld;
};
int sym_linkmap_read(pid_t pid, struct sym_linkmap_entry **out, size_t *n);

/* Where the unwind table (.eh_frame_hdr, PT_GNU_EH_FRAME) of the object
 * whose code contains ip is, in the target's memory, and the bounds of that
 * code mapping. -ENOENT if ip is not in a file-backed object or it has none. */
struct sym_unwind_table {
	uint64_t text_start, text_end;
	uint64_t eh_frame_hdr;
};
int sym_unwind_table(pid_t pid, const struct sym_maps *maps, uint64_t ip,
		     struct sym_unwind_table *out);

/* Find code bytes starting with prefix in the target's unchanging code
 * (check, if given, validates the rest and returns >= 0, stored in *extra). */
int sym_find_code(pid_t pid, const struct sym_maps *maps, const char *prefix, size_t plen,
		  int (*check)(const unsigned char *p, size_t n), uint64_t *addr, int *extra);
/* Find a `syscall` instruction in the target's executable mappings. */
int sym_find_syscall_insn(pid_t pid, const struct sym_maps *maps, uint64_t *addr);

#endif
