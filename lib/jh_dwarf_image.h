/* SPDX-License-Identifier: BSD-2-Clause */
/* An ELF image in memory holding a file's debug sections for libdw, the
 * large compressed ones (abbreviations, lines, units) inflated only as far
 * as asked (jh_dwarf_image.c). Internal to libjeheap; only with libdw. */
#ifndef JH_DWARF_IMAGE_H
#define JH_DWARF_IMAGE_H

#include <elfutils/libdw.h>
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

/* The sections inflated as far as asked, in the image's order. */
enum jh_streamed { JH_ABBREV, JH_LINE, JH_INFO, JH_NSTREAMED };

/* One of them: room for all of it at img + off, have bytes inflated. */
struct jh_stream {
	size_t off, cap, have, published;
	void *shdr; /* its Elf64_Shdr in the image */
	z_stream z;
	int open;   /* still inflating */
};

struct jh_image {
	unsigned char *img;
	size_t len;
	struct jh_stream st[JH_NSTREAMED];
	/* .debug_aranges, inflated whole (not in the image: libdw would
	 * reject its offsets past what is inflated of .debug_info) */
	unsigned char *aranges;
	size_t aranges_len;
	/* Every Dwarf made over the image, the last the current one: names
	 * handed out point into the older ones too. */
	Elf **elfs;
	Dwarf **dws;
	size_t n, cap;
};

/* Build the image of elf's debug sections. 0; -1 when this file is not for
 * it (its .debug_info is not zlib-compressed, no .debug_aranges, not
 * 64-bit, relocatable, a dwz file); -2 when it claims more than a real
 * program's DWARF. elf must stay open while the image lives. */
int jh_image_open(struct jh_image *im, Elf *elf);
/* Inflate stream s up to want bytes (or its end); 0 if that many are
 * there. */
int jh_image_need(struct jh_image *im, int s, size_t want);
/* A Dwarf over what is inflated now (the current one if nothing grew). */
Dwarf *jh_image_dwarf(struct jh_image *im);
/* Inflate everything: after many re-opens, one more is cheaper. */
void jh_image_finish(struct jh_image *im);
void jh_image_close(struct jh_image *im);

#endif
