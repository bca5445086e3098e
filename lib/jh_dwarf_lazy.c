/* SPDX-License-Identifier: BSD-2-Clause */
/* DWARF whose .debug_info is zlib-compressed (SHF_COMPRESSED: how Debian's
 * -dbg and -dbgsym packages ship it), read only as far as the addresses
 * asked for need: for each, the compilation unit .debug_aranges names, its
 * abbreviation table and its line table; jh_dwarf_image.c inflates each
 * of those sections that far and gives libdw an image of them. GCC writes
 * units, their abbreviations and their line tables in the same order, so
 * the few units of libc a heap profile names cost a few percent of its
 * DWARF. A unit is found by its offset (dwarf_nextcu, dwarf_offdie), never
 * through libdw's own aranges, which reject offsets past what is inflated.
 * Every offset and length read here comes from the file and is checked
 * against what is there. */
#include "config.h"

#ifdef HAVE_LIBDW
#include <dwarf.h>
#include <stdlib.h>
#include <string.h>
#include "jh_dwarf_image.h"
#include "jh_dwarf_lazy.h"
#include "jh_dwarf_units.h"

/* After this many re-opens the rest is inflated at once. */
#define MAX_REOPENS 6
/* Inflated past what a unit needs, so neighbouring units come free. */
#define SLACK ((size_t)64 << 10)

struct jh_lazy {
	struct jh_image im;
	struct jh_units units; /* from .debug_aranges: unit header offsets */
};

/* .debug_aranges (DWARF 2-5, 32-bit offsets, 64-bit addresses): each set's
 * ranges with its unit's offset. -1: none usable. */
static int read_aranges(struct jh_lazy *z, const unsigned char *p, size_t len)
{
	for (size_t at = 0; at + 16 <= len;) {
		uint32_t l32;
		memcpy(&l32, p + at, 4);
		if (l32 >= 0xfffffff0u || l32 < 12 || l32 > len - at - 4)
			break; /* 64-bit DWARF sets are not met in practice: stop */
		size_t end = at + 4 + l32;
		uint32_t cu;
		memcpy(&cu, p + at + 6, 4);
		if (p[at + 10] != 8 || p[at + 11] != 0)
			break; /* address size 8, no segments */
		for (size_t t = at + 16; t + 16 <= end; t += 16) { /* tuples 16-aligned */
			uint64_t lo, n;
			memcpy(&lo, p + t, 8);
			memcpy(&n, p + t + 8, 8);
			if (!lo && !n)
				break;
			if (n > UINT64_MAX - lo)
				continue; /* wraps: no address is in it */
			if (jh_units_add(&z->units, lo, lo + n, cu))
				return -1;
		}
		at = end;
	}
	jh_units_sort(&z->units);
	return z->units.n ? 0 : -1;
}

/* The end of the unit at off of stream s (a unit length: 4 bytes, or
 * 0xffffffff and 8), inflating as needed; 0 if it cannot be read. *is64
 * (if given): 64-bit DWARF. */
static uint64_t unit_end(struct jh_image *im, int s, uint64_t off, int *is64)
{
	if (off > im->st[s].cap || jh_image_need(im, s, (size_t)off + 12))
		return 0;
	const unsigned char *h = im->img + im->st[s].off + off;
	uint32_t l32;
	uint64_t end;
	memcpy(&l32, h, 4);
	if (is64)
		*is64 = l32 == 0xffffffffu;
	if (l32 == 0xffffffffu) {
		uint64_t l64;
		memcpy(&l64, h + 4, 8);
		end = l64 > im->st[s].cap ? 0 : off + 12 + l64;
	} else {
		end = off + 4 + l32;
	}
	return end <= im->st[s].cap ? end : 0;
}

/* Read an unsigned LEB128 at *at below end; -1 past it. */
static int uleb(const unsigned char *p, size_t end, size_t *at, uint64_t *v)
{
	*v = 0;
	for (int shift = 0; *at < end; shift += 7) {
		unsigned char b = p[(*at)++];
		if (shift < 64)
			*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
	}
	return -1;
}

/* Where the abbreviation table at off ends, in what is inflated: 0 if it
 * does not end there. Declarations: code, tag, children byte, then (name,
 * form[, implicit constant]) pairs up to (0, 0); the table ends at code 0. */
static size_t abbrev_end_in(const struct jh_image *im, size_t off)
{
	const struct jh_stream *st = &im->st[JH_ABBREV];
	const unsigned char *p = im->img + st->off;
	size_t at = off, end = st->have;
	uint64_t code, v, name, form;
	while (!uleb(p, end, &at, &code)) {
		if (!code)
			return at;
		if (uleb(p, end, &at, &v) || ++at > end)
			return 0; /* tag, children */
		do {
			if (uleb(p, end, &at, &name) || uleb(p, end, &at, &form))
				return 0;
			if (form == DW_FORM_implicit_const && uleb(p, end, &at, &v))
				return 0; /* a signed LEB128 has the same length */
		} while (name || form);
	}
	return 0;
}

/* Inflate the abbreviations until the table at off ends. */
static int need_abbrev(struct jh_image *im, uint64_t off)
{
	struct jh_stream *st = &im->st[JH_ABBREV];
	if (off >= st->cap)
		return -1;
	for (size_t want = (size_t)off + 4096;; want *= 2) {
		jh_image_need(im, JH_ABBREV, want);
		if (abbrev_end_in(im, (size_t)off))
			return 0;
		if (st->have >= st->cap)
			return -1;
	}
}

/* The unit header's abbreviation offset: after the version (2 bytes) in
 * DWARF 2-4; after the version, unit type and address size in DWARF 5. */
static int unit_abbrev(struct jh_image *im, uint64_t off, uint64_t *abbrev)
{
	int is64;
	if (!unit_end(im, JH_INFO, off, &is64) ||
	    jh_image_need(im, JH_INFO, (size_t)off + 32))
		return -1;
	const unsigned char *h = im->img + im->st[JH_INFO].off + off + (is64 ? 12 : 4);
	uint16_t version;
	memcpy(&version, h, 2);
	const unsigned char *a = h + (version >= 5 ? 4 : 2);
	uint32_t a32 = 0;
	*abbrev = 0;
	if (is64) {
		memcpy(abbrev, a, 8);
	} else {
		memcpy(&a32, a, 4);
		*abbrev = a32;
	}
	return 0;
}

/* The unit at off and what its DIEs need, inflated; its DIE in *cu from
 * the Dwarf returned, the size of its offsets in *offsize. */
static Dwarf *open_unit(struct jh_lazy *z, uint64_t off, Dwarf_Die *cu, uint8_t *offsize)
{
	struct jh_image *im = &z->im;
	uint64_t end = unit_end(im, JH_INFO, off, NULL), abbrev;
	if (!end || unit_abbrev(im, off, &abbrev) || need_abbrev(im, abbrev))
		return NULL;
	if (im->n >= MAX_REOPENS)
		jh_image_finish(im);
	else if (end > im->st[JH_INFO].have && jh_image_need(im, JH_INFO, (size_t)end + SLACK) &&
		 im->st[JH_INFO].have < end)
		return NULL;
	Dwarf *dw = jh_image_dwarf(im);
	Dwarf_Off next;
	size_t hsize;
	/* The unit's DIE follows its header, whose size the version sets. */
	if (!dw || dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, offsize) ||
	    !dwarf_offdie(dw, off + hsize, cu))
		return NULL;
	return dw;
}

/* The unit's DW_AT_stmt_list, from the attribute's bytes: libdw's
 * dwarf_formudata checks the offset against .debug_line as inflated so far,
 * which is what is to be decided. */
static int stmt_list(Dwarf_Die *cu, uint8_t offsize, uint64_t *off)
{
	Dwarf_Attribute a;
	uint32_t v32;
	if (!dwarf_attr(cu, DW_AT_stmt_list, &a) || !a.valp)
		return -1;
	if (a.form == DW_FORM_data8 || (a.form == DW_FORM_sec_offset && offsize == 8)) {
		memcpy(off, a.valp, 8);
		return 0;
	}
	if (a.form != DW_FORM_data4 && a.form != DW_FORM_sec_offset)
		return -1;
	memcpy(&v32, a.valp, 4);
	*off = v32;
	return 0;
}

Dwarf *jh_lazy_cu(struct jh_lazy *z, uint64_t vaddr, Dwarf_Die *cu)
{
	int64_t off = jh_units_find(&z->units, vaddr);
	uint8_t offsize = 4;
	Dwarf *dw = off < 0 ? NULL : open_unit(z, (uint64_t)off, cu, &offsize);
	uint64_t lines;
	if (!dw || stmt_list(cu, offsize, &lines))
		return dw;
	struct jh_image *im = &z->im;
	uint64_t end = unit_end(im, JH_LINE, lines, NULL);
	/* Its line table, read once the unit is. */
	if (!end || end <= im->st[JH_LINE].published)
		return dw;
	if (jh_image_need(im, JH_LINE, (size_t)end + SLACK) && im->st[JH_LINE].have < end)
		return dw; /* a unit without lines rather than none */
	return open_unit(z, (uint64_t)off, cu, &offsize);
}

int jh_lazy_open(Elf *elf, struct jh_lazy **out)
{
	*out = NULL;
	struct jh_lazy *z = calloc(1, sizeof(*z));
	if (!z)
		return -1;
	int f = jh_image_open(&z->im, elf);
	if (f) {
		free(z);
		return f;
	}
	if (read_aranges(z, z->im.aranges, z->im.aranges_len)) {
		jh_lazy_close(z);
		return -1;
	}
	*out = z;
	return 0;
}

void jh_lazy_close(struct jh_lazy *z)
{
	if (!z)
		return;
	jh_image_close(&z->im);
	jh_units_free(&z->units);
	free(z);
}

#endif
