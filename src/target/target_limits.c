/* SPDX-License-Identifier: BSD-2-Clause */
/* target_limits: see target_limits.h. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_read.h"
#include "target_cgroup.h"
#include "target_limits.h"

int tl_limit_soft(const char *limits, const char *name, uint64_t *soft)
{
	size_t n = strlen(name);
	for (const char *line = limits; line; line = target_cgroup_next_line(line)) {
		/* "Max open files            1024                 1048576              files" */
		if (strncmp(line, name, n) || line[n] != ' ')
			continue;
		const char *p = line + n;
		while (*p == ' ')
			p++;
		if (!strncmp(p, "unlimited", 9)) {
			*soft = TL_UNLIMITED;
			return 0;
		}
		if (!isdigit((unsigned char)*p))
			return -1;
		*soft = strtoull(p, NULL, 10);
		return 0;
	}
	return -1;
}

/* mm/page_counter.c: PAGE_COUNTER_MAX is LONG_MAX / PAGE_SIZE pages; v1
 * prints it in bytes (9223372036854771712 with 4 KiB pages). */
#define V1_NO_LIMIT (1ULL << 62)

int tl_cg_number(const char *text, uint64_t *v)
{
	if (!strncmp(text, "max", 3)) {
		*v = TL_UNLIMITED;
		return 0;
	}
	if (!isdigit((unsigned char)*text))
		return -1;
	*v = strtoull(text, NULL, 10);
	if (*v >= V1_NO_LIMIT)
		*v = TL_UNLIMITED;
	return 0;
}

uint64_t tl_keyed(const char *text, const char *key)
{
	size_t n = strlen(key);
	for (const char *line = text; line; line = target_cgroup_next_line(line))
		if (!strncmp(line, key, n) && (line[n] == ' ' || line[n] == '\t'))
			return strtoull(line + n + 1, NULL, 10);
	return 0;
}

uint64_t tl_headroom(uint64_t limit, uint64_t usage, uint64_t reclaimable)
{
	if (limit == TL_UNLIMITED)
		return TL_UNLIMITED;
	uint64_t used = usage > reclaimable ? usage - reclaimable : 0;
	return limit > used ? limit - used : 0;
}

static int read_number(const struct target_cgroup *cg, const char *file, uint64_t *v)
{
	char path[1300], line[64];
	target_cgroup_file(cg, file, path, sizeof(path));
	target_cgroup_first_line(path, line, sizeof(line));
	return tl_cg_number(line, v);
}

/* The file pages the cgroup could give back before a new charge fails:
 * try_charge reclaims them first (mm/memcontrol.c: try_to_free_mem_cgroup_pages);
 * shmem sits on the anon lists and is not counted. */
static uint64_t reclaimable(const struct target_cgroup *cg, const char *prefix)
{
	char path[1300], key[64], *text;
	target_cgroup_file(cg, "memory.stat", path, sizeof(path));
	if (core_read_file(path, 1 << 20, &text, NULL))
		return 0;
	snprintf(key, sizeof(key), "%sactive_file", prefix);
	uint64_t v = tl_keyed(text, key);
	snprintf(key, sizeof(key), "%sinactive_file", prefix);
	v += tl_keyed(text, key);
	free(text);
	return v;
}

/* Keep the smaller headroom, and the file whose limit gives it. */
static void keep(struct target_limits *l, const struct target_cgroup *cg, const char *file,
		 uint64_t room)
{
	if (room >= l->mem_headroom)
		return;
	l->mem_headroom = room;
	target_cgroup_file(cg, file, l->mem_file, sizeof(l->mem_file));
}

/* cgroup v2: each level's memory.max and memory.high against its
 * memory.current (a charge must fit under every ancestor's limit too:
 * page_counter_try_charge walks them). */
static void memory_v2(struct target_cgroup *cg, struct target_limits *l)
{
	do {
		uint64_t max, high, cur;
		if (read_number(cg, "memory.current", &cur))
			continue; /* the root: no limits there */
		uint64_t back = reclaimable(cg, "");
		if (!read_number(cg, "memory.max", &max))
			keep(l, cg, "memory.max", tl_headroom(max, cur, back));
		if (!read_number(cg, "memory.high", &high))
			keep(l, cg, "memory.high", tl_headroom(high, cur, back));
	} while (!target_cgroup_parent(cg));
}

/* cgroup v1: memory.limit_in_bytes against memory.usage_in_bytes, with
 * the hierarchical file counts (total_*) of memory.stat. */
static void memory_v1(struct target_cgroup *cg, struct target_limits *l)
{
	do {
		uint64_t lim, use;
		if (!read_number(cg, "memory.limit_in_bytes", &lim) &&
		    !read_number(cg, "memory.usage_in_bytes", &use))
			keep(l, cg, "memory.limit_in_bytes",
			     tl_headroom(lim, use, reclaimable(cg, "total_")));
	} while (!target_cgroup_parent(cg));
}

/* Unused descriptor numbers below the soft limit (RLIMIT_NOFILE bounds
 * the numbers: fs/file.c alloc_fd, "if (fd >= end) goto out"). FDSize, the
 * table's size, is enough when it leaves room; else the numbers in use
 * are counted. */
static uint64_t fds_free(pid_t pid, uint64_t nofile)
{
	char path[64], *status;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!core_read_file(path, 1 << 16, &status, NULL)) {
		uint64_t size = tl_keyed(status, "FDSize:");
		free(status);
		if (size && size < nofile && nofile - size >= 64)
			return nofile - size;
	}
	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	DIR *d = opendir(path);
	if (!d)
		return nofile;
	uint64_t used = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		if (isdigit((unsigned char)de->d_name[0]) && strtoull(de->d_name, NULL, 10) < nofile)
			used++;
	closedir(d);
	return nofile > used ? nofile - used : 0;
}

void target_limits_read(pid_t pid, struct target_limits *l)
{
	char path[64], *text;
	memset(l, 0, sizeof(*l));
	l->fsize = l->mem_headroom = TL_UNLIMITED;
	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	if (!core_read_file(path, 1 << 16, &text, NULL)) {
		if (tl_limit_soft(text, "Max open files", &l->nofile))
			l->nofile = 0;
		if (tl_limit_soft(text, "Max file size", &l->fsize))
			l->fsize = TL_UNLIMITED;
		free(text);
	}
	if (l->nofile)
		l->fds_free = fds_free(pid, l->nofile);
	struct target_cgroup cg;
	if (!target_cgroup_find(pid, NULL, &cg))
		memory_v2(&cg, l);
	if (!target_cgroup_find(pid, "memory", &cg))
		memory_v1(&cg, l);
}
