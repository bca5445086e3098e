/* SPDX-License-Identifier: BSD-2-Clause */
/* Publishing a finished dump at the operator's name: a rename of the
 * fsync'ed temporary, which replaces nothing unless --force said so.
 * jeattach checks before the hold that the name is free (main.c), but
 * another program can create it meanwhile; the check that counts is the
 * one the kernel makes, atomically, at the rename. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "act.h"
#include "errors.h"

/* renameat2(2) RENAME_NOREPLACE (Linux 3.15; glibc 2.28 declares it in
 * stdio.h): EEXIST if newpath exists. Filesystems that do not implement
 * the flag answer EINVAL (renameat2(2): "RENAME_NOREPLACE ... was
 * specified but not supported by the filesystem": NFS before 6.x, some
 * FUSE). There link(2) does the same job, since it never replaces its
 * newpath (EEXIST), and unlink(2) then drops the temporary's name. */
static int publish_noreplace(int dir, const char *tmp, const char *file)
{
#ifdef RENAME_NOREPLACE
	if (!renameat2(dir, tmp, dir, file, RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
#endif
	if (linkat(dir, tmp, dir, file, 0) < 0) {
		int e = errno;
		/* No hard links either (vfat, some FUSE): only the check made
		 * before the hold stands between the dump and an existing
		 * file; jeattach(1) says so. */
		if (e != EPERM && e != EOPNOTSUPP)
			return -e;
		struct stat st;
		if (!fstatat(dir, file, &st, AT_SYMLINK_NOFOLLOW))
			return -EEXIST;
		return renameat(dir, tmp, dir, file) < 0 ? -errno : 0;
	}
	unlinkat(dir, tmp, 0);
	return 0;
}

/* --force replaces a regular file, nothing else. rename(2) would replace
 * any non-directory: a device node (as root, --dump /dev/null --force
 * would have left the host without its /dev/null), a FIFO or socket some
 * program listens on, or a symbolic link. A link is judged as itself
 * (lstat), not followed: rename replaces the link, not what it points at,
 * so "following" could only ever mean writing somewhere the operator did
 * not name, and in a directory others can write a link is how a root
 * jeattach would be aimed at /etc/shadow. So a link is refused too. */
const char *act_output_kind(const char *file)
{
	struct stat st;
	if (lstat(file, &st))
		return NULL;
	switch (st.st_mode & S_IFMT) {
	case S_IFREG:
		return NULL;
	case S_IFDIR:
		return "a directory";
	case S_IFLNK:
		return "a symbolic link";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	default:
		return "not a regular file";
	}
}

int act_publish(const char *tmp, const char *file, int force)
{
	return act_publish_at(AT_FDCWD, tmp, file, force);
}

int act_publish_at(int dir, const char *tmp, const char *file, int force)
{
	if (!force)
		return publish_noreplace(dir, tmp, file);
	/* Checked before the hold (main.c), again now: something else may
	 * have been put there meanwhile. Between this lstat and the rename
	 * another program could still swap the name (there is no "replace
	 * only a regular file" flag; RENAME_EXCHANGE and a swap back would
	 * take a device's name away from its users for that moment instead):
	 * only one that can write this directory, which could replace the
	 * file itself anyway. */
	int e = publish_noreplace(dir, tmp, file);
	if (e != -EEXIST)
		return e;
	struct stat st;
	if (fstatat(dir, file, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return -EEXIST; /* as act_output_kind judges it: the name itself */
	return renameat(dir, tmp, dir, file) < 0 ? -errno : 0;
}

enum ja_exit act_publish_error(struct act_result *r, const char *file, int e, const char *what)
{
	struct stat st;
	if (e == -EISDIR || ((e == -EEXIST || e == -ENOTEMPTY) && !stat(file, &st) &&
			     S_ISDIR(st.st_mode)))
		return act_fail(r, JA_EXIT_OUTPUT, "cannot write %s: is a directory: give a file "
				"name", file);
	const char *kind = e == -EEXIST ? act_output_kind(file) : NULL;
	if (kind)
		return act_fail(r, JA_EXIT_OUTPUT, "cannot write %s: it is %s (made while "
				"jeattach worked), and --force replaces regular files only; it "
				"was left alone and %s was discarded; give another name",
				file, kind, what);
	if (e == -EEXIST)
		return act_fail(r, JA_EXIT_OUTPUT, "cannot write %s: it exists (made while "
				"jeattach worked) and was left alone; %s was discarded; give "
				"--force to replace it, or another name", file, what);
	return act_fail(r, JA_EXIT_OUTPUT, "cannot write %s: %s; free space or choose "
			"another directory", file, ja_err_text(-e));
}

int act_temp_beside(const char *file, char *tmp, size_t len)
{
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s", file);
	if ((size_t)snprintf(tmp, len, "%s/.jeattach-XXXXXX", dirname(dir)) >= len)
		return -ENAMETOOLONG;
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	/* mkstemp makes it 0600: a published file gets the mode a plain
	 * creat() would have given it, under jeattach's umask. */
	mode_t um = umask(0);
	umask(um);
	fchmod(fd, 0666 & ~um);
	return fd;
}

enum ja_exit act_write_file(struct act_result *r, const char *file, int force, const char *what,
			    act_writer_fn fn, void *arg)
{
	char tmp[4300];
	int fd = act_temp_beside(file, tmp, sizeof(tmp));
	FILE *out = fd < 0 ? NULL : fdopen(fd, "w");
	if (!out) {
		int e = fd < 0 ? -fd : errno;
		if (fd >= 0)
			close(fd), unlink(tmp);
		return act_fail(r, JA_EXIT_OUTPUT, "cannot write %s: %s; choose a writable directory",
				file, strerror(e));
	}
	int e = fn(out, fd, arg);
	if (!e && (fflush(out) || fsync(fd) < 0))
		e = -errno;
	struct stat st;
	uint64_t bytes = !fstat(fd, &st) ? (uint64_t)st.st_size : 0;
	if (fclose(out) && !e)
		e = -errno;
	if (!e)
		e = act_publish(tmp, file, force);
	if (e) {
		unlink(tmp);
		return act_publish_error(r, file, e, what);
	}
	act_field_str(r, "file", file);
	act_field_u64(r, "bytes", bytes);
	return JA_EXIT_OK;
}
