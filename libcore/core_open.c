/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
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

/* Refuse what is not a regular file; keep what is. */
static int regular_only(int fd)
{
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

#define OPEN_FLAGS (O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)

/* Without openat2: walk path from rootfd one component at a time,
 * refusing every symbolic link (O_NOFOLLOW) and every "..": the paths
 * asked for come from /proc/PID/maps and profiles, which name files
 * canonically, so what this refuses is a target's trick. */
static int walk_no_links(int rootfd, const char *path)
{
	char copy[4096], *comp[256], *save = NULL;
	int n = 0;
	if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy))
		return -ENAMETOOLONG;
	for (char *c = strtok_r(copy, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		if (n == 256 || !strcmp(c, ".."))
			return -ELOOP;
		comp[n++] = c;
	}
	if (!n)
		return -EINVAL;
	int dir = dup(rootfd);
	for (int i = 0; i < n && dir >= 0; i++) {
		int flags = i == n - 1 ? OPEN_FLAGS : O_PATH | O_DIRECTORY | O_CLOEXEC;
		int fd = openat(dir, comp[i], flags | O_NOFOLLOW);
		int e = errno;
		close(dir);
		if (fd < 0)
			return e == ENOTDIR ? -ELOOP : -e; /* O_NOFOLLOW on a link */
		dir = fd;
	}
	return dir < 0 ? -errno : dir;
}

int core_open_in_root(const char *root, const char *path)
{
	if (!root || !*root) {
		int fd = open(path, OPEN_FLAGS);
		return fd < 0 ? -errno : regular_only(fd);
	}
	int rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return -errno;
	struct open_how how = { .flags = OPEN_FLAGS,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS };
	int fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd < 0 && errno == ENOSYS)
		fd = walk_no_links(rootfd, path);
	else if (fd < 0)
		fd = -errno;
	close(rootfd);
	return fd < 0 ? fd : regular_only(fd);
}

/* /proc/PID/maps names a file as seen from the reader's root (d_path): a
 * chrooted target's library is /CHROOT/lib/x.so to jeattach, /lib/x.so
 * inside the target's root. What /proc/PID/root links to is that CHROOT
 * ("/" for a target in its own mount namespace, whose maps lines are
 * already relative to its root): strip it. */
static const char *inside_root(pid_t pid, const char *path)
{
	char link[64], target[4096];
	snprintf(link, sizeof(link), "/proc/%d/root", (int)pid);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	if (n <= 1) /* "/" or unreadable */
		return path;
	target[n] = 0;
	return !strncmp(path, target, (size_t)n) && path[n] == '/' ? path + n : path;
}

int core_open_mapped(pid_t pid, uint64_t start, uint64_t end, const char *root,
		     const char *path, const struct core_file_id *id)
{
	char p[8192];
	int fd;
	if (pid > 0) {
		snprintf(p, sizeof(p), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, start,
			 end);
		/* The mapped inode itself; the same rules all the same (the
		 * profile, which the target can write, chooses the mapping). */
		if ((fd = open(p, OPEN_FLAGS)) >= 0)
			return regular_only(fd);
	}
	/* map_files needs CAP_SYS_ADMIN; the path under the root is enough
	 * for a tracer, but the target controls what is there now: resolved
	 * inside its root only, never waiting, regular files only, and with
	 * an id, only the very inode that is mapped. */
	if (pid > 0 && root && *root)
		path = inside_root(pid, path);
	if ((fd = core_open_in_root(root, path)) < 0)
		return fd;
	if (id && !core_same_file(fd, id)) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}
