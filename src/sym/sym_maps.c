/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core_grow.h"
#include "core_read.h"
#include "core_maps.h"
#include "sym_maps.h"

static int parse_line(const char *line, struct sym_map *m)
{
	struct core_maps_line l;
	if (core_maps_parse_line(line, &l))
		return -EINVAL;
	m->start = l.start;
	m->end = l.end;
	m->offset = l.offset;
	m->inode = l.inode;
	m->dev_major = l.dev_major;
	m->dev_minor = l.dev_minor;
	m->r = l.r;
	m->w = l.w;
	m->x = l.x;
	m->p = l.p;
	m->deleted = l.deleted;
	m->path = strndup(l.path, l.path_len);
	return m->path ? 0 : -ENOMEM;
}

int sym_maps_parse(const char *text, struct sym_maps *out, size_t *bad_line)
{
	out->v = NULL;
	out->n = 0;
	size_t cap = 0, lineno = 0;
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t l = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		if (l == 0) {
			p += nl ? 1 : 0;
			if (!nl)
				break;
			continue;
		}
		char *line = strndup(p, l);
		if (!line)
			goto nomem;
		if (CORE_GROW(&out->v, &cap, out->n + 1)) {
			free(line);
			goto nomem;
		}
		int e = parse_line(line, &out->v[out->n]);
		free(line);
		if (e) {
			if (bad_line)
				*bad_line = lineno;
			sym_maps_free(out);
			return e;
		}
		out->n++;
		p += l + (nl ? 1 : 0);
	}
	return 0;
nomem:
	sym_maps_free(out);
	return -ENOMEM;
}

int sym_maps_read(pid_t pid, struct sym_maps *out)
{
	char path[64], *text;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	int e = core_read_file(path, CORE_READ_PROC_MAX, &text, NULL);
	if (e)
		return e;
	e = sym_maps_parse(text, out, NULL);
	free(text);
	return e;
}

void sym_maps_free(struct sym_maps *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

const struct sym_map *sym_maps_find(const struct sym_maps *m, uint64_t addr)
{
	size_t lo = 0, hi = m->n;
	while (lo < hi) { /* the kernel lists mappings in address order */
		size_t mid = lo + (hi - lo) / 2;
		if (addr < m->v[mid].start)
			hi = mid;
		else if (addr >= m->v[mid].end)
			lo = mid + 1;
		else
			return &m->v[mid];
	}
	return NULL;
}
