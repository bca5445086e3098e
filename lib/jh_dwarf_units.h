/* SPDX-License-Identifier: BSD-2-Clause */
/* Which compilation unit holds an address: a sorted table of address
 * ranges, each with its unit's offset in .debug_info (jh_dwarf_units.c),
 * filled from .debug_aranges (jh_dwarf_lazy.c) or, where a compiler wrote
 * none, from the units' own ranges. Internal to libjeheap. */
#ifndef JH_DWARF_UNITS_H
#define JH_DWARF_UNITS_H

#include <stddef.h>
#include <stdint.h>

struct jh_unit_range {
	uint64_t lo, hi; /* [lo, hi) in the object's link-time addresses */
	uint64_t unit;   /* the unit's offset (header or DIE: the caller's choice) */
};

struct jh_units {
	struct jh_unit_range *r;
	size_t n, cap;
};

/* Add [lo, hi) for unit; -1 when out of memory. Empty ranges are ignored. */
int jh_units_add(struct jh_units *u, uint64_t lo, uint64_t hi, uint64_t unit);
/* Sort once after the last jh_units_add. */
void jh_units_sort(struct jh_units *u);
/* The unit whose range holds vaddr, or -1. */
int64_t jh_units_find(const struct jh_units *u, uint64_t vaddr);
void jh_units_free(struct jh_units *u);

#ifdef HAVE_LIBDW
struct Dwarf;
/* The table from every compilation unit's own DW_AT_low_pc/DW_AT_high_pc
 * or DW_AT_ranges, each with its unit DIE's offset (for dwarf_offdie),
 * sorted: 0, or -1 (out of memory, no unit has an address, or more units
 * or range entries than a real program has: jh_dwarf_units.c). */
int jh_units_from_dies(struct Dwarf *dw, struct jh_units *u);
#endif

#endif
