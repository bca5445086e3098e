/* SPDX-License-Identifier: BSD-2-Clause */
/* Address -> compilation unit. GCC writes .debug_aranges for every unit;
 * clang (since LLVM 3.x, unless -gdwarf-aranges) and rustc write none, and
 * libdw's dwarf_addrdie (elfutils 0.188, Debian 12) then finds no unit at
 * all: no inlined frame, file or line for a clang-built jemalloc or a Rust
 * service. Each unit's DIE carries its own ranges (DW_AT_low_pc and
 * DW_AT_high_pc, or DW_AT_ranges: DWARF 5's .debug_rnglists too), which
 * is what addr2line and eu-addr2line fall back on. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include "core_grow.h"
#include "core_search.h"
#include "jh_dwarf_units.h"

#ifdef HAVE_LIBDW
#include <dwarf.h>
#include <elfutils/libdw.h>
#endif

int jh_units_add(struct jh_units *u, uint64_t lo, uint64_t hi, uint64_t unit)
{
	if (hi <= lo)
		return 0;
	if (CORE_GROW(&u->r, &u->cap, u->n + 1))
		return -1;
	u->r[u->n++] = (struct jh_unit_range){ lo, hi, unit };
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct jh_unit_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void jh_units_sort(struct jh_units *u)
{
	if (u->n)
		qsort(u->r, u->n, sizeof(*u->r), cmp_range);
}

int64_t jh_units_find(const struct jh_units *u, uint64_t vaddr)
{
	_Static_assert(offsetof(struct jh_unit_range, lo) == 0, "core_search's key comes first");
	size_t lo = core_count_at_or_below(u->r, u->n, sizeof(u->r[0]), vaddr);
	/* Ranges may overlap a little (a unit's range around another's
	 * padding): look back over a few. */
	for (size_t i = lo, k = 0; i > 0 && k < 16; i--, k++)
		if (vaddr >= u->r[i - 1].lo && vaddr < u->r[i - 1].hi)
			return (int64_t)u->r[i - 1].unit;
	return -1;
}

void jh_units_free(struct jh_units *u)
{
	free(u->r);
	*u = (struct jh_units){ 0 };
}

#ifdef HAVE_LIBDW
/* The file is not trusted: units may all name one long range list, and
 * units x entries would be rows (a 2 MB file asking for 10^10). Past these
 * many units or range entries looked at, no table (libdw's own lookup
 * alone). A real program's are far fewer: a unit per source file, a range
 * per function at most. */
#define MAX_UNITS ((size_t)1 << 20)
#define MAX_RANGE_ENTRIES ((size_t)1 << 23)

int jh_units_from_dies(Dwarf *dw, struct jh_units *u)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die die;
	uint8_t type;
	size_t units = 0, entries = 0;
	/* dwarf_get_units reads each unit's header and DIE only: the cost is
	 * one DIE per unit, not the unit's tree. Type units (.debug_types,
	 * DW_UT_type) hold no code. */
	while (!dwarf_get_units(dw, cu, &cu, NULL, &type, &die, NULL)) {
		if (++units > MAX_UNITS)
			return -1;
		if (type != DW_UT_compile && type != DW_UT_partial && type != DW_UT_skeleton)
			continue;
		Dwarf_Addr base, lo, hi;
		ptrdiff_t off = 0;
		while ((off = dwarf_ranges(&die, off, &base, &lo, &hi)) > 0)
			if (++entries > MAX_RANGE_ENTRIES ||
			    jh_units_add(u, lo, hi, dwarf_dieoffset(&die)))
				return -1;
	}
	jh_units_sort(u);
	return u->n ? 0 : -1;
}
#endif
