/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "core_open.h"

int core_same_file(int fd, const struct core_file_id *id)
{
	struct stat st;
	return !fstat(fd, &st) && st.st_ino == id->inode && major(st.st_dev) == id->dev_major &&
	       minor(st.st_dev) == id->dev_minor;
}

int core_open_mapped(pid_t pid, uint64_t start, uint64_t end, const char *root,
		     const char *path, const struct core_file_id *id)
{
	char p[8192];
	int fd;
	if (pid > 0) {
		snprintf(p, sizeof(p), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, start,
			 end);
		if ((fd = open(p, O_RDONLY | O_CLOEXEC)) >= 0)
			return fd;
	}
	/* map_files needs CAP_SYS_ADMIN; the path under the root is enough
	 * for a tracer, but the file there may have been replaced: with an
	 * id, accept it only if it is the very inode that is mapped. */
	if ((size_t)snprintf(p, sizeof(p), "%s%s", root ? root : "", path) >= sizeof(p))
		return -ENAMETOOLONG;
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (id && !core_same_file(fd, id)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}
