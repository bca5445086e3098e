/* SPDX-License-Identifier: BSD-2-Clause */
/* core_open: the one place that opens a file a process maps (its program,
 * its libraries), for jeattach's symbol lookup and libjeheap's symbolizer
 * alike, so the rules for reaching a target's files are written once. */
#ifndef CORE_OPEN_H
#define CORE_OPEN_H

#include <stdint.h>
#include <sys/types.h>

/* A file's identity as /proc/PID/maps shows it. */
struct core_file_id {
	uint64_t inode;
	unsigned dev_major, dev_minor;
};

/* Open path, read-only, as seen from root (NULL or "": jeattach's own):
 *  - resolved only inside root: an absolute symbolic link or ".." in a
 *    container's tree stays in it (openat2 RESOLVE_IN_ROOT, Linux 5.6; an
 *    older kernel: every symbolic link under root is refused, -ELOOP), and
 *    no /proc magic link is followed (RESOLVE_NO_MAGICLINKS);
 *  - never waits: O_NONBLOCK, so a FIFO put there opens at once;
 *  - a regular file only (-EINVAL for a FIFO, device, directory...).
 * Returns a descriptor or -errno. */
int core_open_in_root(const char *root, const char *path);

/* Open, read-only, the file mapped at [start, end) of process pid:
 *  1. when pid > 0, /proc/PID/map_files/START-END: the very inode the
 *     process mapped, even if deleted or replaced since (proc(5); needs
 *     CAP_SYS_ADMIN, proc_map_files_get_link);
 *  2. else path inside root, by core_open_in_root's rules, accepted only
 *     if it is the file id names when id is given (-ESTALE otherwise). With
 *     pid > 0 and a root, a path as /proc/PID/maps shows it to jeattach
 *     (from jeattach's root: /CHROOT/lib/x.so for a chrooted target) is
 *     taken inside the target's root (/lib/x.so).
 * Returns a descriptor or -errno. */
int core_open_mapped(pid_t pid, uint64_t start, uint64_t end, const char *root,
		     const char *path, const struct core_file_id *id);
/* Is fd the file id names? */
int core_same_file(int fd, const struct core_file_id *id);

#endif
