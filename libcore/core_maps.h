/* SPDX-License-Identifier: BSD-2-Clause */
/* One line of /proc/PID/maps (also the MAPPED_LIBRARIES section of a heap
 * profile). Shared by libjeheap and jeattach's symbol layer: internal,
 * not exported. */
#ifndef CORE_MAPS_H
#define CORE_MAPS_H

#include <stdint.h>

struct core_maps_line {
	uint64_t start, end, offset, inode;
	unsigned dev_major, dev_minor;
	int r, w, x, p;
	const char *path; /* points into the line; "" for anonymous */
	size_t path_len;  /* without a trailing " (deleted)" */
	int deleted;
};

/* 0, or -1 if the line is not a maps line. */
int core_maps_parse_line(const char *line, struct core_maps_line *m);
/* cb for each well-formed line of a whole maps text (others are skipped);
 * a non-zero return from cb stops and is returned. The path points into
 * text. */
typedef int (*core_maps_cb)(const struct core_maps_line *m, void *arg);
int core_maps_foreach(const char *text, core_maps_cb cb, void *arg);

#endif
