/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer harness: ELF files as both readers meet them (files named in
 * a profile's maps, or mapped by a target): libjeheap's symbolizer (program
 * headers, .symtab/.dynsym through libelf, MiniDebugInfo, nearest-symbol
 * rules, DWARF lines and scopes through libdw when it is there) and
 * the shared core's core_elf as jeattach uses it (lookups by name, function
 * walks, first PT_LOAD, sections, build id). The input is written to a
 * file, as these readers open files. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jeheap.h"
#include "core_elf.h"

static char path[64];

static int count(const struct core_elf_sym *y, void *arg)
{
	(void)y;
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
	struct core_elf *e;
	if (!core_elf_open_path(path, &e)) {
		struct core_elf_sym y;
		uint64_t v, off;
		const void *data;
		size_t len;
		char id[64];
		int n = 0;
		core_elf_lookup(e, "mallctl", CORE_ELF_BOTH, &y);
		core_elf_lookup(e, "malloc", CORE_ELF_DYNSYM, &y);
		core_elf_first_load(e, &v, &off);
		core_elf_segment(e, 0x6474e550 /* PT_GNU_EH_FRAME */, &v);
		core_elf_foreach_func(e, CORE_ELF_BOTH, count, &n);
		core_elf_section(e, ".gnu_debuglink", &data, &len);
		core_elf_build_id(e, id, sizeof(id));
		core_elf_close(e);
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
