/* SPDX-License-Identifier: BSD-2-Clause */
/* dpkg keeps, per installed package, /var/lib/dpkg/info/PKG.list (or
 * PKG:ARCH.list for a Multi-Arch: same package), every path it installed,
 * one a line (dpkg(1), FILES; what dpkg-query -S searches). They are read
 * here directly, all of them once for every path asked: jeheap runs no
 * other program to word a note.
 *
 * A process maps a file by the path the dynamic linker found, which on
 * Debian 12's merged /usr (/lib, /bin and /sbin links into /usr) may not
 * be the path the package lists: /usr/lib/x86_64-linux-gnu/libc.so.6 is
 * installed as /lib/x86_64-linux-gnu/libc.so.6. Each path is matched under
 * both spellings, and its target where it is itself a link. */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap_dpkg.h"

/* The merged-/usr twin of path into buf ("" if none): /usr/lib/x <-> /lib/x. */
static void usr_twin(const char *path, char *buf, size_t size)
{
	static const char *const top[] = { "/lib/", "/lib32/", "/lib64/", "/libx32/", "/bin/",
					   "/sbin/" };
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
		size_t l = strlen(top[i]);
		if (!strncmp(path, "/usr", 4) && !strncmp(path + 4, top[i], l))
			snprintf(buf, size, "%s", path + 4);
		else if (!strncmp(path, top[i], l))
			snprintf(buf, size, "/usr%s", path);
	}
}

/* Up to four spellings of one path: itself, its twin, its resolved target
 * (under root) and that one's twin. */
struct spellings {
	char s[4][PATH_MAX];
};

static void spell(const char *root, const char *path, struct spellings *sp)
{
	char full[PATH_MAX * 2], real[PATH_MAX];
	snprintf(sp->s[0], PATH_MAX, "%s", path);
	usr_twin(path, sp->s[1], PATH_MAX);
	sp->s[2][0] = sp->s[3][0] = 0;
	snprintf(full, sizeof(full), "%s%s", root ? root : "", path);
	if (!realpath(full, real))
		return;
	size_t rl = root ? strlen(root) : 0;
	const char *inside = rl && !strncmp(real, root, rl) ? real + rl : real;
	if (strcmp(inside, path)) {
		snprintf(sp->s[2], PATH_MAX, "%s", inside);
		usr_twin(inside, sp->s[3], PATH_MAX);
	}
}

/* "libc6:amd64.list" -> "libc6". */
static char *package_of(const char *entry)
{
	size_t l = strcspn(entry, ":");
	size_t dot = strlen(entry) - 5; /* ".list" */
	return strndup(entry, l < dot ? l : dot);
}

static int is_list(const char *name)
{
	size_t l = strlen(name);
	return l > 5 && !strcmp(name + l - 5, ".list");
}

int dpkg_owners(const char *root, const char *const *paths, size_t n, char **owner)
{
	char dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s/var/lib/dpkg/info", root ? root : "");
	for (size_t i = 0; i < n; i++)
		owner[i] = NULL;
	struct spellings *sp = calloc(n ? n : 1, sizeof(*sp));
	DIR *d = sp ? opendir(dir) : NULL;
	if (!d) {
		free(sp);
		return -1;
	}
	/* realpath's answers start with the root's own real path. */
	char rroot[PATH_MAX];
	const char *croot = root && realpath(root, rroot) ? rroot : root;
	for (size_t i = 0; i < n; i++)
		spell(croot, paths[i], &sp[i]);
	size_t left = n;
	char *line = NULL;
	size_t cap = 0;
	struct dirent *e;
	while (left && (e = readdir(d))) {
		if (!is_list(e->d_name))
			continue;
		char path[PATH_MAX * 2];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "re");
		if (!f)
			continue;
		ssize_t len;
		while (left && (len = getline(&line, &cap, f)) > 0) {
			if (line[len - 1] == '\n')
				line[len - 1] = 0;
			for (size_t i = 0; i < n; i++) {
				if (owner[i])
					continue;
				for (int k = 0; k < 4; k++)
					if (sp[i].s[k][0] && !strcmp(line, sp[i].s[k])) {
						owner[i] = package_of(e->d_name);
						left -= owner[i] != NULL;
						break;
					}
			}
		}
		fclose(f);
	}
	free(line);
	closedir(d);
	free(sp);
	return 0;
}
