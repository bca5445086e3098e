/* SPDX-License-Identifier: BSD-2-Clause */
/* sym_maps: /proc/PID/maps, parsed. */
#ifndef JEATTACH_SYM_MAPS_H
#define JEATTACH_SYM_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sym_map {
	uint64_t start, end, offset;
	uint64_t inode;
	unsigned dev_major, dev_minor;
	int r, w, x, p;
	char *path; /* "" for anonymous mappings; "[stack]", "[vdso]"... kept as is */
	int deleted; /* the kernel appended " (deleted)": stripped from path */
};

struct sym_maps {
	struct sym_map *v;
	size_t n;
};

/* Parse the text of a maps file. 0, -ENOMEM, or -EINVAL with *bad_line set
 * to the 1-based line that did not parse. */
int sym_maps_parse(const char *text, struct sym_maps *out, size_t *bad_line);
int sym_maps_read(pid_t pid, struct sym_maps *out);
void sym_maps_free(struct sym_maps *m);
/* The mapping that contains addr, or NULL. */
const struct sym_map *sym_maps_find(const struct sym_maps *m, uint64_t addr);

#endif
