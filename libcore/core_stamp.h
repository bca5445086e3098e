/* SPDX-License-Identifier: BSD-2-Clause */
/* core_stamp: what jeattach records about the files a dumped process had
 * mapped, appended to the profile's MAPPED_LIBRARIES section, and what
 * libjeheap reads back to tell whether a binary on disk is still the one
 * profiled. One line each:
 *   # jeattach boot-id UUID          (/proc/sys/kernel/random/boot_id)
 *   # jeattach dump-time SEC.NSEC    (CLOCK_REALTIME when prof.dump returned)
 *   # jeattach build-id HEX PATH     (NT_GNU_BUILD_ID of the mapped file)
 *   # jeattach source sampler        (the profile is --sample's, not
 *                                     jemalloc's prof.dump)
 * jeprof's ParseLibraries skips lines that are not maps lines, and so does
 * core_maps_foreach: the profile stays readable by both. */
#ifndef CORE_STAMP_H
#define CORE_STAMP_H

#include <stddef.h>
#include <stdint.h>

#define CORE_STAMP_BOOT "# jeattach boot-id "
#define CORE_STAMP_BUILD "# jeattach build-id "
#define CORE_STAMP_TIME "# jeattach dump-time "
#define CORE_STAMP_SOURCE "# jeattach source "

/* This machine's boot id (36 characters and a NUL), or "" if unreadable. */
void core_stamp_boot_id(char out[40]);

/* One stamp line (without its newline): CORE_STAMP_BOOT sets *value to the
 * id; CORE_STAMP_TIME sets *value to the time's text (core_stamp_time
 * reads it); CORE_STAMP_BUILD sets *value to the hex id and *path to the
 * path (value_len, path_len their lengths); CORE_STAMP_SOURCE sets *value
 * to the source's name (1 to 16 lower-case letters). Returns 0, or -1 for another
 * line. Nothing in a line is trusted: hex and digits are checked, lengths
 * are bounded. */
enum core_stamp_kind { CORE_STAMP_IS_BOOT = 1, CORE_STAMP_IS_BUILD = 2, CORE_STAMP_IS_TIME = 3,
		       CORE_STAMP_IS_SOURCE = 4 };
int core_stamp_parse(const char *line, size_t len, int *kind, const char **value,
		     size_t *value_len, const char **path, size_t *path_len);

/* A dump-time stamp's value, "SEC.NSEC" (1 to 12 digits, a dot, 9 digits),
 * as seconds and nanoseconds. 0, or -1 if it is not one. */
int core_stamp_time(const char *value, size_t len, int64_t *sec, uint32_t *nsec);
/* The same time as a stamp line with its newline, in buf. Its length. */
size_t core_stamp_time_line(int64_t sec, uint32_t nsec, char *buf, size_t len);

/* Every stamp line of the block jeattach appended to maps (a profile's
 * MAPPED_LIBRARIES text), in order, through cb (core_stamp_parse's
 * outputs). Only that block is believed: it is last, and starts at its
 * boot-id line, so a stamp line before a later boot-id line, or followed
 * by any other line, was the dumped process's own text. A non-zero return
 * from cb stops the walk and is returned. */
typedef int (*core_stamp_cb)(int kind, const char *value, size_t value_len, const char *path,
			     size_t path_len, void *arg);
int core_stamp_foreach(const char *maps, core_stamp_cb cb, void *arg);

#endif
