/* SPDX-License-Identifier: BSD-2-Clause */
/* start-end perms offset major:minor inode [path]: fs/proc/task_mmu.c
 * (show_map_vma) pads the inode to a fixed column, then the path, which may
 * contain spaces and ends with " (deleted)" once the file is unlinked. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "core_maps.h"

int core_maps_parse_line(const char *line, struct core_maps_line *m)
{
	char perms[5];
	int pos = 0;
	unsigned long long s, e, off, ino;
	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu%n", &s, &e, perms, &off, &m->dev_major,
		   &m->dev_minor, &ino, &pos) != 7 || e < s || strlen(perms) != 4)
		return -1;
	m->start = s;
	m->end = e;
	m->offset = off;
	m->inode = ino;
	m->r = perms[0] == 'r';
	m->w = perms[1] == 'w';
	m->x = perms[2] == 'x';
	m->p = perms[3] == 'p';
	const char *p = line + pos;
	while (*p == ' ' || *p == '\t')
		p++;
	m->path = p;
	m->path_len = strcspn(p, "\n");
	static const char del[] = " (deleted)";
	const size_t dl = sizeof(del) - 1;
	m->deleted = m->path_len >= dl && !strncmp(p + m->path_len - dl, del, dl);
	if (m->deleted)
		m->path_len -= dl;
	return 0;
}

int core_maps_foreach(const char *text, core_maps_cb cb, void *arg)
{
	/* Each line is parsed from a copy of itself: sscanf measures its
	 * whole input string (strlen), and the rest of a maps text of 80,000
	 * lines, measured once a line, made reading it quadratic. A line
	 * longer than any the kernel writes (PATH_MAX and the fields) is not a
	 * maps line. */
	char buf[4096 + 256];
	for (const char *line = text; *line;) {
		struct core_maps_line m;
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		int r = 0;
		if (len < sizeof(buf)) {
			memcpy(buf, line, len);
			buf[len] = 0;
			if (!core_maps_parse_line(buf, &m)) {
				m.path = line + (m.path - buf); /* into text, as before */
				r = cb(&m, arg);
			}
		}
		if (r)
			return r;
		line += len + (nl ? 1 : 0);
	}
	return 0;
}
