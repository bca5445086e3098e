/* SPDX-License-Identifier: BSD-2-Clause */
/* Stamping a published dump (core_stamp.h). The build ids are read after
 * the hold, from the files the target maps (core_open_mapped: the very
 * inode, never a file the target swapped in at the path), so the target
 * is not stopped any longer for them. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "act_stamp.h"
#include "core_elf.h"
#include "core_open.h"
#include "core_stamp.h"

/* The most objects stamped: a process mapping more files than this is
 * strange enough that the rest go unstamped rather than cost seconds. */
#define STAMP_MAX_OBJECTS 4096

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Is mapping i the first executable mapping of its file? */
static int first_of_file(const struct sym_maps *m, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (m->v[j].x && !strcmp(m->v[j].path, m->v[i].path))
			return 0;
	return 1;
}

static int stamp_object(const struct target *t, const struct sym_map *m, int out)
{
	char root[48], id[68], line[4300];
	const struct core_file_id fid = { m->inode, m->dev_major, m->dev_minor };
	snprintf(root, sizeof(root), "/proc/%d/root", (int)t->io_pid);
	int fd = core_open_mapped(t->io_pid, m->start, m->end, root, m->path, &fid);
	struct core_elf *e;
	if (fd < 0 || core_elf_open(fd, &e))
		return 0;
	core_elf_build_id(e, id, sizeof(id));
	core_elf_close(e);
	if (!*id || strchr(m->path, '\n'))
		return 0;
	int n = snprintf(line, sizeof(line), CORE_STAMP_BUILD "%s %s\n", id, m->path);
	return n > 0 && (size_t)n < sizeof(line) ? write_all(out, line, (size_t)n) : 0;
}

int act_stamp(const struct target *t, int out)
{
	char boot[40], line[80];
	/* The maps section ends with a newline; a profile cut short may not. */
	char last = '\n';
	off_t end = lseek(out, 0, SEEK_END);
	if (end > 0 && pread(out, &last, 1, end - 1) != 1)
		return -errno;
	if (last != '\n' && write_all(out, "\n", 1))
		return -errno;
	core_stamp_boot_id(boot);
	if (*boot) {
		int n = snprintf(line, sizeof(line), CORE_STAMP_BOOT "%s\n", boot);
		int e = write_all(out, line, (size_t)n);
		if (e)
			return e;
	}
	size_t done = 0;
	for (size_t i = 0; i < t->maps.n && done < STAMP_MAX_OBJECTS; i++) {
		const struct sym_map *m = &t->maps.v[i];
		if (!m->x || m->path[0] != '/' || !first_of_file(&t->maps, i))
			continue;
		int e = stamp_object(t, m, out);
		if (e)
			return e;
		done++;
	}
	return 0;
}
