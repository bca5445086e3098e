/* SPDX-License-Identifier: BSD-2-Clause */
/* DWARF with a compressed .debug_info, inflated only as far as the units
 * asked for (jh_dwarf_lazy.c). Internal to libjeheap; only with libdw. */
#ifndef JH_DWARF_LAZY_H
#define JH_DWARF_LAZY_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stdint.h>

struct jh_lazy;

/* 0 and *out, or -1 when this file is not for it (its .debug_info is not
 * zlib-compressed, it has no .debug_aranges, it is not 64-bit, it is
 * relocatable, it uses a dwz file): open it with dwarf_begin_elf then; -2
 * when it claims more than a real program's DWARF (MAX_EAGER): use no
 * DWARF from it. elf stays open while *out lives. */
int jh_lazy_open(Elf *elf, struct jh_lazy **out);
/* The compilation unit holding vaddr in *cu, and the Dwarf it is read
 * from (valid until jh_lazy_close); NULL if no unit holds it. */
Dwarf *jh_lazy_cu(struct jh_lazy *z, uint64_t vaddr, Dwarf_Die *cu);
void jh_lazy_close(struct jh_lazy *z);

#endif
