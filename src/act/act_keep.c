/* SPDX-License-Identifier: BSD-2-Clause */
/* --dump DIR/ --keep N --keep-bytes SIZE: the directory's side of a
 * bounded series, what touches files (which to remove is keep.c's pure
 * decision). Retention deletes, so it is an attack surface: whoever else
 * can write the directory may plant links, FIFOs, directories, hard links
 * and files named like ours, or swap the directory itself for a link
 * while jeattach runs. So:
 *  - the directory is opened as itself (open(2) O_NOFOLLOW|O_DIRECTORY:
 *    ELOOP for a symbolic link at its name) once per dump, and every name
 *    after that is taken relative to that descriptor (openat(2),
 *    fstatat(2), unlinkat(2), renameat2(2)): a swap of the path cannot
 *    send a write or a removal elsewhere; there is no recursion;
 *  - a file is a candidate only if its name is exactly one jeattach makes
 *    (keep_name_parse) and, looked at as itself (AT_SYMLINK_NOFOLLOW), it
 *    is a regular file with one link owned by jeattach's effective user,
 *    as every file jeattach publishes is: a symbolic link, FIFO, socket,
 *    device or directory by our name is never a candidate, nor a hard
 *    link to another file, nor another user's file;
 *  - unlinkat(2) without AT_REMOVEDIR removes only a name, never a
 *    directory (EISDIR), never what a link points at; the candidate is
 *    looked at once more just before, and left if it is no longer the
 *    inode listed;
 *  - it runs only after the new dump was published: a dump that failed
 *    removes nothing, and the one just written is never removed. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "act.h"
#include "keep.h"

int act_keep_open_dir(const char *dir, int *fd)
{
	char path[4096];
	size_t n = strlen(dir);
	/* "DIR/" would make open(2) follow a link at DIR (path_resolution(7):
	 * a trailing slash resolves the last component as a directory): the
	 * slashes go, "/" stays. */
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n >= sizeof(path))
		return -ENAMETOOLONG;
	memcpy(path, dir, n);
	path[n] = 0;
	int d = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0) {
		int e = errno;
		struct stat st;
		/* A link there answers ENOTDIR, not ELOOP, when O_DIRECTORY is
		 * given too (as Linux 6.1 does; open(2) lists both): told apart
		 * here, since "a link" is the cause worth saying. */
		if ((e == ENOTDIR || e == ELOOP) && !lstat(path, &st) && S_ISLNK(st.st_mode))
			return -ELOOP;
		return -e;
	}
	*fd = d;
	return 0;
}

void act_keep_path(const char *dir, const char *name, char *buf, size_t len)
{
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	snprintf(buf, len, "%.*s%s%s", (int)n, dir, n == 1 && dir[0] == '/' ? "" : "/", name);
}

void act_keep_dir_why(const char *dir, int e, char *buf, size_t len)
{
	if (e == -ELOOP)
		snprintf(buf, len, "--dump %s: it is a symbolic link; jeattach writes a series and "
			 "removes its old files only in a directory it opens as itself, never "
			 "through a link (which another user could aim elsewhere); give the real "
			 "directory", dir);
	else if (e == -ENOENT)
		snprintf(buf, len, "--dump %s: no such directory; create it first (mkdir -p)", dir);
	else if (e == -ENOTDIR)
		snprintf(buf, len, "--dump %s: not a directory (it, or a component of its path); "
			 "give a directory", dir);
	else
		snprintf(buf, len, "--dump %s: cannot write profiles there: %s; choose a writable "
			 "directory", dir, strerror(-e));
}

int act_keep_temp(int dirfd, char *tmp, size_t len)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	for (int tries = 0; tries < 100; tries++) {
		unsigned char rnd[8];
		char name[32] = ".jeattach-";
		if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
			return -EIO;
		for (int i = 0; i < 8; i++)
			name[10 + i] = set[rnd[i] % (sizeof(set) - 1)];
		name[18] = 0;
		/* 0666 under the umask: the mode a plain creat() gives (as act_temp_beside). */
		int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
				0666);
		if (fd >= 0) {
			snprintf(tmp, len, "%s", name);
			return fd;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/* A listed candidate: its name, size and inode. */
struct listed {
	char *name;
	uint64_t bytes;
	int64_t mtime_ns;
	dev_t dev;
	ino_t ino;
};

/* Is st a file of the kind jeattach itself leaves in the directory? */
static int ours(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink == 1 && st->st_uid == geteuid();
}

static void add_removed(struct act_result *r, const char *path)
{
	struct act_dump_out *o = &r->out.dump;
	char **v = realloc(o->removed, (o->nremoved + 1) * sizeof(*v));
	if (!v)
		return;
	o->removed = v;
	if ((v[o->nremoved] = strdup(path)))
		o->nremoved++;
}

/* The candidates in dirfd: *out (malloc'd), *n; -errno. */
static int list(int dirfd, struct listed **out, size_t *n)
{
	int dup_fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct listed *v = NULL;
	size_t cap = 0, k = 0;
	if (!d) {
		int e = -errno;
		if (dup_fd >= 0)
			close(dup_fd);
		return e;
	}
	struct dirent *de;
	int e = 0;
	while (!e && (de = readdir(d))) {
		struct stat st;
		if (keep_name_parse(de->d_name, NULL) ||
		    fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !ours(&st))
			continue;
		if (k == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct listed *nv = realloc(v, nc * sizeof(*nv));
			if (!nv) {
				e = -ENOMEM;
				break;
			}
			v = nv;
			cap = nc;
		}
		if (!(v[k].name = strdup(de->d_name))) {
			e = -ENOMEM;
			break;
		}
		v[k].bytes = (uint64_t)st.st_size;
		v[k].mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
		v[k].dev = st.st_dev;
		v[k].ino = st.st_ino;
		k++;
	}
	closedir(d);
	*out = v;
	*n = k;
	return e;
}

void act_keep_prune(int dirfd, const struct act_keep *k, const char *newest,
		    struct act_result *r)
{
	struct listed *v = NULL;
	size_t n = 0;
	char path[4400];
	if (!k->files && !k->bytes)
		return;
	int e = list(dirfd, &v, &n);
	struct keep_file *f = n ? calloc(n, sizeof(*f)) : NULL;
	unsigned char *rm = n ? calloc(n, 1) : NULL;
	if (!e && n && (!f || !rm))
		e = -ENOMEM;
	if (e) {
		snprintf(r->warning, sizeof(r->warning), "--keep: cannot list %.150s: %s; nothing "
			 "was removed", k->dir, strerror(-e));
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		f[i] = (struct keep_file){ v[i].name, v[i].bytes, v[i].mtime_ns };
	struct keep_bounds b = { k->files, k->bytes };
	keep_choose(f, n, newest, &b, rm);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (!rm[i])
			continue;
		act_keep_path(k->dir, v[i].name, path, sizeof(path));
		/* Still the inode listed, still one of ours: else left alone. */
		if (fstatat(dirfd, v[i].name, &st, AT_SYMLINK_NOFOLLOW) || !ours(&st) ||
		    st.st_dev != v[i].dev || st.st_ino != v[i].ino)
			continue;
		if (unlinkat(dirfd, v[i].name, 0) < 0) {
			if (!r->warning[0])
				snprintf(r->warning, sizeof(r->warning), "--keep: cannot remove %.150s: "
					 "%s; it was left", path, strerror(errno));
			continue;
		}
		add_removed(r, path);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	free(f);
	free(rm);
}
