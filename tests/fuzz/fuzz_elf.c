/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer harness: ELF files as both readers meet them (files named in
 * a profile's maps, or mapped by a target): libjeheap's symbolizer (program
 * headers, .symtab/.dynsym through libelf, MiniDebugInfo, nearest-symbol
 * rules, DWARF lines and scopes through libdw when it is there) and
 * jeattach's sym_elf (lookups by name, function walks, first PT_LOAD). The
 * input is written to a file, as these readers open files. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jeheap.h"
#include "sym_elf.h"

static char path[64];

static int count(const char *name, uint64_t v, uint64_t size, int ifunc, void *arg)
{
	(void)name, (void)v, (void)size, (void)ifunc;
	++*(int *)arg;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/jeattach-fuzz-elf.%d", (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	close(fd);

	/* jeattach's side */
	struct sym_elf *e;
	if (!sym_elf_open(open(path, O_RDONLY), &e)) {
		uint64_t v, off;
		int n = 0, ifunc;
		sym_elf_lookup(e, "mallctl", &v, NULL);
		sym_elf_lookup_ifunc(e, "strcat", &v, &ifunc);
		sym_elf_lookup_dynsym(e, "malloc", &v);
		sym_elf_first_load(e, &v, &off);
		sym_elf_segment(e, 0x6474e550 /* PT_GNU_EH_FRAME */, &v);
		sym_elf_foreach_func(e, count, &n);
		sym_elf_close(e);
	}

	/* libjeheap's side: a profile whose one mapping is this file */
	char text[512];
	snprintf(text, sizeof(text),
		 "heap_v2/1\n@ 0x10000010 0x10000100 0x10001000 0x1000ffff\n  t*: 1: 16 [0: 0]\n\n"
		 "MAPPED_LIBRARIES:\n10000000-10010000 r-xp 00000000 00:00 1 %s\n", path);
	jeheap_profile *p;
	jeheap_symbolizer *s;
	if (jeheap_profile_read_memory(text, strlen(text), &p, NULL))
		return 0;
	if (!jeheap_symbolizer_new(p, NULL, &s)) {
		for (uint64_t a = 0x10000000; a < 0x10010000; a += 0x1000 - 7) {
			struct jeheap_frame f[8];
			jeheap_symbolize(s, a);
			jeheap_symbolize_frames(s, a, f, 8); /* DWARF, when built with libdw */
		}
		jeheap_top *t;
		if (!jeheap_top_new(p, s, JEHEAP_INUSE_SPACE, &t))
			jeheap_top_free(t);
		jeheap_symbolizer_free(s);
	}
	jeheap_profile_free(p);
	return 0;
}
