/* SPDX-License-Identifier: BSD-2-Clause */
/* The in-memory image libdw reads a compressed debug file through.
 *
 * libdw inflates every debug section when it opens a file
 * (dwarf_begin_elf -> check_section -> elf_compress): for libc6-dbg that is
 * 10 MB, most of a small profile's whole analysis, to name the few libc
 * addresses a heap profile has. Here the small sections (strings, ranges,
 * addresses) are inflated whole, location lists and macros not at all
 * (frames, lines and inlined calls do not need them), and the three large
 * ones (.debug_abbrev, .debug_line, .debug_info) only as far as the units
 * asked for need: each keeps its zlib stream open and room for all of it,
 * at the end of one buffer. Each time something grew, a new ELF header
 * view (elf_memory) and Dwarf are made over the same buffer, with the
 * sections' sizes as far as inflated; the older ones stay open, since
 * names already handed out point into them. */
#include "config.h"

#ifdef HAVE_LIBDW
#include <elf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "jh_dwarf_image.h"

/* The sections of the image: whole ones, then the streamed ones in enum
 * jh_streamed's order. */
static const char *const wanted[] = {
	".debug_str", ".debug_line_str", ".debug_rnglists", ".debug_ranges", ".debug_addr",
	".debug_str_offsets", ".debug_abbrev", ".debug_line", ".debug_info",
};
#define NWANTED (sizeof(wanted) / sizeof(wanted[0]))
#define FIRST_STREAMED (NWANTED - JH_NSTREAMED)
#define INFO (FIRST_STREAMED + JH_INFO)

/* What a file may make us inflate: a streamed section up to 4 GiB (its room
 * is reserved, not touched, until units are asked for), the whole ones up
 * to 512 MiB together (libc's are 0.5 MB). A file that claims more is
 * refused rather than believed: a 1 MB zlib stream can claim a gigabyte. */
#define MAX_STREAMED ((uint64_t)4 << 30)
#define MAX_WHOLE ((uint64_t)512 << 20)

struct src {
	const unsigned char *data; /* raw, as stored */
	size_t len;
	int compressed;
	uint64_t size; /* inflated size */
};

/* A section's raw bytes and, if SHF_COMPRESSED with zlib, its size. -1 for
 * another compression (zstd) or an absurd size. */
static int section_src(Elf_Scn *scn, const GElf_Shdr *sh, struct src *s)
{
	Elf_Data *d = elf_rawdata(scn, NULL);
	if (!d || !d->d_buf)
		return -1;
	s->data = d->d_buf;
	s->len = d->d_size;
	s->compressed = (sh->sh_flags & SHF_COMPRESSED) != 0;
	s->size = s->len;
	if (!s->compressed)
		return 0;
	Elf64_Chdr ch;
	if (s->len < sizeof(ch))
		return -1;
	memcpy(&ch, s->data, sizeof(ch));
	if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > MAX_STREAMED)
		return -1;
	s->data += sizeof(ch);
	s->len -= sizeof(ch);
	s->size = ch.ch_size;
	return 0;
}

static int inflate_all(const struct src *s, unsigned char *out)
{
	if (!s->compressed) {
		memcpy(out, s->data, s->len);
		return 0;
	}
	uLongf n = (uLongf)s->size;
	return uncompress(out, &n, s->data, (uLong)s->len) == Z_OK && n == s->size ? 0 : -1;
}

/* The wanted sections of elf, and its .debug_aranges (see jh_image_open). */
static int find_sections(Elf *elf, struct src *s, struct src *ar)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	if (elf_getshdrstrndx(elf, &shstrndx))
		return -1;
	memset(s, 0, NWANTED * sizeof(*s));
	memset(ar, 0, sizeof(*ar));
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (!strcmp(name, ".debug_aranges") && section_src(scn, &sh, ar))
			return -1;
		/* dwz's shared file (.gnu_debugaltlink) is found by libdw
		 * beside the real file, not beside an image: leave it to libdw. */
		if (!strcmp(name, ".gnu_debugaltlink"))
			return -1;
		for (size_t i = 0; i < NWANTED; i++)
			if (!strcmp(name, wanted[i]) && section_src(scn, &sh, &s[i]))
				return -1;
	}
	if (!s[INFO].data || !s[INFO].compressed || !ar->data)
		return -1;
	uint64_t whole = ar->size;
	for (size_t i = 0; i < FIRST_STREAMED; i++)
		whole += s[i].size;
	return whole > MAX_WHOLE ? -2 : 0;
}

static void *put_header(struct jh_image *im, Elf *elf, size_t nsec)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type == ET_REL)
		return NULL; /* relocatable objects need libdw's relocation */
	/* Built aside and copied: the image is a byte buffer, with no
	 * alignment promised to an Elf64_Ehdr. */
	Elf64_Ehdr h;
	memset(&h, 0, sizeof(h));
	memcpy(h.e_ident, eh.e_ident, EI_NIDENT);
	h.e_type = eh.e_type;
	h.e_machine = eh.e_machine;
	h.e_version = EV_CURRENT;
	h.e_shoff = sizeof(Elf64_Ehdr);
	h.e_ehsize = sizeof(Elf64_Ehdr);
	h.e_shentsize = sizeof(Elf64_Shdr);
	h.e_shnum = (Elf64_Half)nsec;
	h.e_shstrndx = 1;
	memcpy(im->img, &h, sizeof(h));
	return im->img + sizeof(h);
}

/* Place section i at *at: a whole one inflated now, a streamed one given
 * its room and stream. */
static int put_section(struct jh_image *im, const struct src *s, size_t i, Elf64_Shdr *sh,
		       size_t *at)
{
	*at = (*at + 7) & ~(size_t)7;
	sh->sh_offset = *at;
	sh->sh_size = s->size;
	if (i < FIRST_STREAMED || !s->compressed) {
		if (inflate_all(s, im->img + *at))
			return -1;
	}
	if (i >= FIRST_STREAMED) {
		struct jh_stream *st = &im->st[i - FIRST_STREAMED];
		st->off = *at;
		st->cap = s->size;
		st->shdr = sh;
		if (s->compressed) {
			if (inflateInit(&st->z) != Z_OK)
				return -1;
			st->open = 1;
			st->z.next_in = (Bytef *)s->data;
			st->z.avail_in = (uInt)s->len;
		} else {
			st->have = s->size;
		}
	}
	*at += s->size;
	return 0;
}

/* Lay out the image: ELF header, section headers, their names, the
 * sections, the streamed ones' rooms last. */
static int build(struct jh_image *im, Elf *elf, const struct src *s)
{
	size_t nsec = 2, names = 11; /* "" and ".shstrtab" */
	for (size_t i = 0; i < NWANTED; i++)
		if (s[i].data) {
			nsec++;
			names += strlen(wanted[i]) + 1;
		}
	size_t total = sizeof(Elf64_Ehdr) + nsec * sizeof(Elf64_Shdr) + names;
	for (size_t i = 0; i < NWANTED; i++)
		if (s[i].data)
			total = ((total + 7) & ~(size_t)7) + s[i].size;
	if (!(im->img = calloc(1, total)))
		return -1;
	im->len = total;
	Elf64_Shdr *sh = put_header(im, elf, nsec);
	if (!sh)
		return -1;
	char *str = (char *)(sh + nsec);
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_STRTAB,
			      .sh_offset = (Elf64_Off)((unsigned char *)str - im->img),
			      .sh_size = names, .sh_addralign = 1 };
	memcpy(str + 1, ".shstrtab", 10);
	size_t sl = 11, k = 2, at = sizeof(Elf64_Ehdr) + nsec * sizeof(Elf64_Shdr) + names;
	for (size_t i = 0; i < NWANTED; i++) {
		if (!s[i].data)
			continue;
		size_t nl = strlen(wanted[i]) + 1;
		memcpy(str + sl, wanted[i], nl);
		sh[k] = (Elf64_Shdr){ .sh_name = (Elf64_Word)sl, .sh_type = SHT_PROGBITS,
				      .sh_addralign = 1 };
		sl += nl;
		if (put_section(im, &s[i], i, &sh[k++], &at))
			return -1;
	}
	return 0;
}

int jh_image_open(struct jh_image *im, Elf *elf)
{
	struct src s[NWANTED], ar;
	memset(im, 0, sizeof(*im));
	int f = find_sections(elf, s, &ar);
	if (f)
		return f;
	im->aranges = malloc(ar.size ? ar.size : 1);
	im->aranges_len = ar.size;
	if (!im->aranges || inflate_all(&ar, im->aranges) || build(im, elf, s)) {
		jh_image_close(im);
		return -1;
	}
	return 0;
}

int jh_image_need(struct jh_image *im, int s, size_t want)
{
	struct jh_stream *st = &im->st[s];
	if (want > st->cap)
		want = st->cap;
	while (st->have < want && st->open) {
		st->z.next_out = im->img + st->off + st->have;
		st->z.avail_out = (uInt)(want - st->have);
		int r = inflate(&st->z, Z_SYNC_FLUSH);
		st->have = (size_t)(st->z.next_out - (im->img + st->off));
		if (r == Z_STREAM_END) {
			inflateEnd(&st->z);
			st->open = 0;
		} else if (r != Z_OK) {
			return -1;
		}
	}
	return st->have >= want ? 0 : -1;
}

void jh_image_finish(struct jh_image *im)
{
	for (int s = 0; s < JH_NSTREAMED; s++)
		jh_image_need(im, s, im->st[s].cap);
}

Dwarf *jh_image_dwarf(struct jh_image *im)
{
	int grew = !im->n;
	for (int s = 0; s < JH_NSTREAMED; s++)
		grew |= im->st[s].have != im->st[s].published;
	if (!grew)
		return im->dws[im->n - 1];
	size_t cap = im->cap;
	if (CORE_GROW(&im->elfs, &cap, im->n + 1))
		return NULL;
	Dwarf **dws = realloc(im->dws, cap * sizeof(*dws));
	if (!dws)
		return NULL; /* elfs grew, dws did not: im->cap still says both */
	im->dws = dws;
	im->cap = cap;
	for (int s = 0; s < JH_NSTREAMED; s++)
		if (im->st[s].shdr)
			((Elf64_Shdr *)im->st[s].shdr)->sh_size = im->st[s].have;
	Elf *e = elf_memory((char *)im->img, im->len);
	Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
	if (!dw) {
		if (e)
			elf_end(e);
		return NULL;
	}
	im->elfs[im->n] = e;
	im->dws[im->n++] = dw;
	for (int s = 0; s < JH_NSTREAMED; s++)
		im->st[s].published = im->st[s].have;
	return dw;
}

void jh_image_close(struct jh_image *im)
{
	for (size_t i = 0; i < im->n; i++) {
		dwarf_end(im->dws[i]);
		elf_end(im->elfs[i]);
	}
	for (int s = 0; s < JH_NSTREAMED; s++)
		if (im->st[s].open)
			inflateEnd(&im->st[s].z);
	free(im->dws);
	free(im->elfs);
	free(im->aranges);
	free(im->img);
	memset(im, 0, sizeof(*im));
}

#endif
