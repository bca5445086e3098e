/* SPDX-License-Identifier: BSD-2-Clause */
/* A profile's MAPPED_LIBRARIES section, which names its addresses.
 * jemalloc copies it from /proc/<getpid()>/task/<getpid()>/maps (5.3
 * prof_sys.c prof_dump_open_maps_impl, then /proc/<pid>/maps) and leaves
 * the section out, in silence, when neither opens (no free descriptor, a
 * seccomp filter, no /proc); in a pid namespace whose /proc is another's,
 * getpid() names another process: the section is then that process's maps
 * (or, unreadable, missing). A profile without its own maps is not whole:
 * jeattach, which reads the target's maps from outside right after the
 * release, puts them in (the JSON says "maps": "jeattach"). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "act.h"
#include "core_read.h"

#define SECTION "\nMAPPED_LIBRARIES:\n"

/* Does the maps text [p, end) have a mapping holding addr? */
static int covers(const char *p, const char *end, uint64_t addr)
{
	while (p < end) {
		uint64_t lo, hi;
		if (sscanf(p, "%" SCNx64 "-%" SCNx64, &lo, &hi) == 2 && lo <= addr && addr < hi)
			return 1;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

/* Where the section starts (its leading newline), -1 if absent; *own: it
 * holds addr. */
static off_t find_section(const char *m, size_t len, uint64_t addr, int *own)
{
	const char *s = memmem(m, len, SECTION, sizeof(SECTION) - 1);
	*own = 0;
	if (!s)
		return -1;
	/* The last one: a thread name could hold the same text. */
	for (const char *n; (n = memmem(s + 1, len - (size_t)(s + 1 - m), SECTION,
					sizeof(SECTION) - 1));)
		s = n;
	*own = covers(s + sizeof(SECTION) - 1, m + len, addr);
	return s - m;
}

int act_dump_complete_maps(int fd, const char *maps, uint64_t addr, const char **how)
{
	struct stat st;
	*how = "jemalloc";
	if (fstat(fd, &st) || st.st_size < 8)
		return 0;
	size_t len = (size_t)st.st_size;
	char *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	int own = 0;
	off_t at = memcmp(m, "heap_v2/", 8) ? -2 : find_section(m, len, addr, &own);
	munmap(m, len);
	if (at == -2 || own || !addr)
		return 0; /* another format, or whole */
	if (!maps || !covers(maps, maps + strlen(maps), addr))
		return -ENOENT; /* no better maps than jemalloc's */
	if (at >= 0 && ftruncate(fd, at) < 0)
		return -errno;
	if (lseek(fd, 0, SEEK_END) < 0)
		return -errno;
	int e = core_write_all(fd, SECTION, sizeof(SECTION) - 1);
	if (!e)
		e = core_write_all(fd, maps, strlen(maps));
	*how = "jeattach";
	lseek(fd, 0, SEEK_SET);
	return e;
}
