/* SPDX-License-Identifier: BSD-2-Clause */
/* core_stamp: what jeattach records about the files a dumped process had
 * mapped, appended to the profile's MAPPED_LIBRARIES section, and what
 * libjeheap reads back to tell whether a binary on disk is still the one
 * profiled. One line each:
 *   # jeattach boot-id UUID          (/proc/sys/kernel/random/boot_id)
 *   # jeattach build-id HEX PATH     (NT_GNU_BUILD_ID of the mapped file)
 * jeprof's ParseLibraries skips lines that are not maps lines, and so does
 * core_maps_foreach: the profile stays readable by both. */
#ifndef CORE_STAMP_H
#define CORE_STAMP_H

#include <stddef.h>

#define CORE_STAMP_BOOT "# jeattach boot-id "
#define CORE_STAMP_BUILD "# jeattach build-id "

/* This machine's boot id (36 characters and a NUL), or "" if unreadable. */
void core_stamp_boot_id(char out[40]);

/* One stamp line (without its newline): CORE_STAMP_BOOT sets *value to the
 * id; CORE_STAMP_BUILD sets *value to the hex id and *path to the path
 * (value_len, path_len their lengths). Returns 0, or -1 for another line.
 * Nothing in a line is trusted: hex is checked, lengths are bounded. */
enum core_stamp_kind { CORE_STAMP_IS_BOOT = 1, CORE_STAMP_IS_BUILD = 2 };
int core_stamp_parse(const char *line, size_t len, int *kind, const char **value,
		     size_t *value_len, const char **path, size_t *path_len);

#endif
