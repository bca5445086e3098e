/* SPDX-License-Identifier: BSD-2-Clause */
/* DWARF whose .debug_info is zlib-compressed (SHF_COMPRESSED: how Debian's
 * -dbg and -dbgsym packages ship it), opened without inflating all of it.
 *
 * libdw inflates every debug section when it opens a file
 * (dwarf_begin_elf -> check_section -> elf_compress): for libc6-dbg that is
 * 10 MB, most of a small profile's whole analysis, to name the few libc
 * addresses a heap profile has. Here the small sections are inflated whole
 * (abbreviations, lines, strings, ranges: 3.7 MB for libc), location lists
 * not at all (nothing here reads them), and .debug_info only up to the end
 * of the compilation unit that .debug_aranges names for the address asked:
 * the stream is inflated further when a later unit is needed. libdw reads
 * an image of these sections made in memory (elf_memory); each time the
 * prefix grows a new image header and Dwarf are made over the same buffer
 * (the older ones stay open: names already handed out point into them).
 * A unit is found by its offset (dwarf_offdie), never through libdw's own
 * aranges, which would reject offsets past the prefix. */
#include "config.h"

#ifdef HAVE_LIBDW
#include <elf.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "core_grow.h"
#include "jh_dwarf_lazy.h"

/* The sections copied into the image; .debug_info is last (it grows in
 * place at the end of the buffer). Location lists and macros are left out:
 * frames, lines and inlined calls do not need them. */
static const char *const wanted[] = {
	".debug_abbrev", ".debug_line", ".debug_str", ".debug_line_str", ".debug_rnglists",
	".debug_ranges", ".debug_addr", ".debug_str_offsets", ".debug_info",
};
#define NWANTED (sizeof(wanted) / sizeof(wanted[0]))
#define INFO (NWANTED - 1)

/* What a file may make us inflate: .debug_info up to 4 GiB (its room is
 * reserved, not touched, until units are asked for), the sections read
 * whole up to 512 MiB together (libc's are 3.7 MB, a browser's a few
 * hundred). A file that claims more is refused rather than believed: a
 * 1 MB zlib stream can claim a gigabyte. */
#define MAX_INFO ((uint64_t)4 << 30)
#define MAX_EAGER ((uint64_t)512 << 20)
/* After this many re-opens the rest of .debug_info is inflated at once. */
#define MAX_REOPENS 6
/* Inflated past the unit asked for, so neighbouring units come free. */
#define SLACK ((size_t)256 << 10)

struct arange {
	uint64_t lo, hi, cu;
};

struct jh_lazy {
	unsigned char *img;
	size_t img_len; /* up to the end of .debug_info's room */
	size_t info_off, info_cap, info_have, info_published;
	Elf64_Shdr *info_shdr; /* in img */
	z_stream z;
	int z_open;
	struct arange *ar;
	size_t nar;
	Elf **elfs;
	Dwarf **dws;
	size_t n, cap;
};

struct src {
	const unsigned char *data; /* raw, as stored */
	size_t len;
	int compressed;
	uint64_t size; /* inflated size */
};

/* A section's raw bytes and, if SHF_COMPRESSED with zlib, its size. -1 for
 * another compression (zstd): not handled here. */
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
	if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size > MAX_INFO)
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

/* .debug_aranges (DWARF 2-5, 64-bit addresses): each set's ranges with
 * its unit's offset, sorted by start. -1: none usable. */
static int read_aranges(struct jh_lazy *z, const unsigned char *p, size_t len)
{
	size_t cap = 0;
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
			if (CORE_GROW(&z->ar, &cap, z->nar + 1))
				return -1;
			z->ar[z->nar++] = (struct arange){ lo, lo + n, cu };
		}
		at = end;
	}
	return z->nar ? 0 : -1;
}

static int cmp_arange(const void *a, const void *b)
{
	const struct arange *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The unit offset for vaddr, or -1. */
static int64_t unit_of(const struct jh_lazy *z, uint64_t vaddr)
{
	size_t lo = 0, hi = z->nar;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (z->ar[mid].lo <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Sets may overlap a little: look back over a few. */
	for (size_t i = lo, k = 0; i > 0 && k < 16; i--, k++)
		if (vaddr >= z->ar[i - 1].lo && vaddr < z->ar[i - 1].hi)
			return (int64_t)z->ar[i - 1].cu;
	return -1;
}

/* Inflate .debug_info up to want bytes (or its end). */
static int inflate_to(struct jh_lazy *z, size_t want)
{
	if (want > z->info_cap)
		want = z->info_cap;
	while (z->info_have < want && z->z_open) {
		z->z.next_out = z->img + z->info_off + z->info_have;
		z->z.avail_out = (uInt)(want - z->info_have);
		int r = inflate(&z->z, Z_SYNC_FLUSH);
		z->info_have = (size_t)(z->z.next_out - (z->img + z->info_off));
		if (r == Z_STREAM_END) {
			inflateEnd(&z->z);
			z->z_open = 0;
		} else if (r != Z_OK) {
			return -1;
		}
	}
	return z->info_have >= want ? 0 : -1;
}

/* A Dwarf over the image with .debug_info cut at what is inflated now. */
static Dwarf *publish(struct jh_lazy *z)
{
	if (z->n && z->info_published == z->info_have)
		return z->dws[z->n - 1];
	size_t cap = z->cap;
	if (CORE_GROW(&z->elfs, &cap, z->n + 1))
		return NULL;
	Dwarf **dws = realloc(z->dws, cap * sizeof(*dws));
	if (!dws)
		return NULL; /* elfs grew, dws did not: z->cap still says both */
	z->dws = dws;
	z->cap = cap;
	z->info_shdr->sh_size = z->info_have;
	Elf *e = elf_memory((char *)z->img, z->img_len);
	Dwarf *dw = e ? dwarf_begin_elf(e, DWARF_C_READ, NULL) : NULL;
	if (!dw) {
		if (e)
			elf_end(e);
		return NULL;
	}
	z->elfs[z->n] = e;
	z->dws[z->n++] = dw;
	z->info_published = z->info_have;
	return dw;
}

Dwarf *jh_lazy_cu(struct jh_lazy *z, uint64_t vaddr, Dwarf_Die *cu)
{
	int64_t off = unit_of(z, vaddr);
	if (off < 0 || (uint64_t)off + 12 > z->info_cap)
		return NULL;
	if (inflate_to(z, (size_t)off + 12))
		return NULL;
	/* The unit's length: 4 bytes, or 0xffffffff and 8 (64-bit DWARF). */
	const unsigned char *h = z->img + z->info_off + off;
	uint32_t l32;
	uint64_t end;
	memcpy(&l32, h, 4);
	if (l32 == 0xffffffffu) {
		uint64_t l64;
		memcpy(&l64, h + 4, 8);
		end = (uint64_t)off + 12 + l64;
	} else {
		end = (uint64_t)off + 4 + l32;
	}
	if (end > z->info_cap)
		return NULL;
	if (end > z->info_published) {
		size_t want = z->n >= MAX_REOPENS ? z->info_cap : (size_t)end + SLACK;
		if (inflate_to(z, want) && z->info_have < end)
			return NULL;
	}
	/* The unit's DIE follows its header, whose size the version sets. */
	Dwarf *dw = publish(z);
	Dwarf_Off next;
	size_t hsize;
	if (!dw || dwarf_nextcu(dw, (Dwarf_Off)off, &next, &hsize, NULL, NULL, NULL))
		return NULL;
	return dwarf_offdie(dw, (Dwarf_Off)off + hsize, cu) ? dw : NULL;
}

void jh_lazy_close(struct jh_lazy *z)
{
	if (!z)
		return;
	for (size_t i = 0; i < z->n; i++) {
		dwarf_end(z->dws[i]);
		elf_end(z->elfs[i]);
	}
	if (z->z_open)
		inflateEnd(&z->z);
	free(z->dws);
	free(z->elfs);
	free(z->ar);
	free(z->img);
	free(z);
}

/* The wanted sections of elf, and its .debug_aranges. -1 unless .debug_info
 * is zlib-compressed and aranges are there: then libdw's own opening is as
 * good (uncompressed sections are mapped, not copied). */
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
	uint64_t eager = ar->size;
	for (size_t i = 0; i < INFO; i++)
		eager += s[i].size;
	return eager > MAX_EAGER ? -2 : 0;
}

/* Lay out the image: ELF header, section headers, their names, the
 * sections, .debug_info's room last. */
static int build_image(struct jh_lazy *z, Elf *elf, const struct src *s)
{
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh) || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_type == ET_REL)
		return -1; /* relocatable objects need libdw's relocation */
	size_t nsec = 2, names = 11; /* "" and ".shstrtab" */
	for (size_t i = 0; i < NWANTED; i++)
		if (s[i].data) {
			nsec++;
			names += strlen(wanted[i]) + 1;
		}
	size_t off = sizeof(Elf64_Ehdr) + nsec * sizeof(Elf64_Shdr) + names;
	size_t total = off;
	for (size_t i = 0; i < NWANTED; i++)
		if (s[i].data)
			total = ((total + 7) & ~(size_t)7) + s[i].size;
	if (!(z->img = calloc(1, total)))
		return -1;
	z->img_len = total;
	Elf64_Ehdr *h = (Elf64_Ehdr *)z->img;
	memcpy(h->e_ident, eh.e_ident, EI_NIDENT);
	h->e_type = eh.e_type;
	h->e_machine = eh.e_machine;
	h->e_version = EV_CURRENT;
	h->e_shoff = sizeof(Elf64_Ehdr);
	h->e_ehsize = sizeof(Elf64_Ehdr);
	h->e_shentsize = sizeof(Elf64_Shdr);
	h->e_shnum = (Elf64_Half)nsec;
	h->e_shstrndx = 1;
	Elf64_Shdr *sh = (Elf64_Shdr *)(z->img + sizeof(Elf64_Ehdr));
	char *str = (char *)(sh + nsec);
	size_t sl = 1, k = 2;
	memcpy(str + sl, ".shstrtab", 10);
	sh[1] = (Elf64_Shdr){ .sh_name = (Elf64_Word)sl, .sh_type = SHT_STRTAB,
			      .sh_offset = (Elf64_Off)((unsigned char *)str - z->img),
			      .sh_size = names, .sh_addralign = 1 };
	sl += 10;
	size_t at = off;
	for (size_t i = 0; i < NWANTED; i++) {
		if (!s[i].data)
			continue;
		at = (at + 7) & ~(size_t)7;
		size_t nl = strlen(wanted[i]) + 1;
		memcpy(str + sl, wanted[i], nl);
		sh[k] = (Elf64_Shdr){ .sh_name = (Elf64_Word)sl, .sh_type = SHT_PROGBITS,
				      .sh_offset = at, .sh_size = s[i].size, .sh_addralign = 1 };
		sl += nl;
		if (i == INFO) {
			z->info_shdr = &sh[k];
			z->info_off = at;
			z->info_cap = s[i].size;
		} else if (inflate_all(&s[i], z->img + at)) {
			return -1;
		}
		at += s[i].size;
		k++;
	}
	return 0;
}

int jh_lazy_open(Elf *elf, struct jh_lazy **out)
{
	struct src s[NWANTED], ar;
	*out = NULL;
	int f = find_sections(elf, s, &ar);
	if (f)
		return f;
	struct jh_lazy *z = calloc(1, sizeof(*z));
	if (!z)
		return -1;
	unsigned char *arbuf = malloc(ar.size ? ar.size : 1);
	int ok = arbuf && !inflate_all(&ar, arbuf) && !read_aranges(z, arbuf, ar.size) &&
		 !build_image(z, elf, s);
	free(arbuf);
	if (ok && inflateInit(&z->z) == Z_OK) {
		z->z_open = 1;
		z->z.next_in = (Bytef *)s[INFO].data;
		z->z.avail_in = (uInt)s[INFO].len;
		qsort(z->ar, z->nar, sizeof(*z->ar), cmp_arange);
		*out = z;
		return 0;
	}
	jh_lazy_close(z);
	return -1;
}

#endif
