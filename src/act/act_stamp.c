/* SPDX-License-Identifier: BSD-2-Clause */
/* Stamping a published dump (core_stamp.h). The files are the ones the
 * dump's own maps section names; their build ids are read after the hold,
 * from the files the target maps (core_open_mapped: the very inode, never
 * a file the target swapped in at the path), so the target is not stopped
 * any longer for them. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "act_stamp.h"
#include "core_elf.h"
#include "core_grow.h"
#include "core_maps.h"
#include "core_open.h"
#include "core_read.h"
#include "core_stamp.h"
#include "target_struct.h"

/* The most objects stamped: a process mapping more files than this is
 * strange enough that the rest go unstamped rather than cost seconds. */
#define STAMP_MAX_OBJECTS 4096

/* The executable file mappings of the dump's own maps section; their
 * paths point into text. */
struct mapped_list {
	struct core_maps_line *v;
	size_t n, cap;
	char *text; /* the section, NUL-terminated */
};

static int collect(const struct core_maps_line *l, void *arg)
{
	struct mapped_list *ml = arg;
	/* A deleted file too: map_files still reaches it, and its build id
	 * tells a reader that the file now at the path is another. */
	if (!l->x || !l->path_len || l->path[0] != '/')
		return 0;
	if (CORE_GROW(&ml->v, &ml->cap, ml->n + 1))
		return -1;
	ml->v[ml->n++] = *l;
	return 0;
}

static int same_path(const struct core_maps_line *a, const struct core_maps_line *b)
{
	return a->path_len == b->path_len && !memcmp(a->path, b->path, a->path_len);
}

static int by_path(const void *a, const void *b)
{
	const struct core_maps_line *x = a, *y = b;
	int c = memcmp(x->path, y->path, x->path_len < y->path_len ? x->path_len : y->path_len);
	return c ? c : (x->path_len > y->path_len) - (x->path_len < y->path_len);
}

/* The dump's MAPPED_LIBRARIES section: the maps as the target itself read
 * them, at dump time (paths as the target sees them, inside a chroot too;
 * libraries it loaded after the attach included). -1 when there is none:
 * jemalloc writes none when it cannot read /proc/self/maps, and stamps
 * among the samples would break the profile. */
static int read_section(int fd, struct mapped_list *ml)
{
	static const char mark[] = "\nMAPPED_LIBRARIES:\n";
	struct stat st;
	if (fstat(fd, &st) || st.st_size <= 0)
		return -1;
	size_t len = (size_t)st.st_size;
	char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	const char *last = NULL;
	for (const char *at = m; (at = memmem(at, len - (size_t)(at - m), mark, sizeof(mark) - 1));
	     at++)
		last = at;
	int e = -1;
	if (last) {
		const char *from = last + sizeof(mark) - 1;
		ml->text = strndup(from, len - (size_t)(from - m));
		e = ml->text && !core_maps_foreach(ml->text, collect, ml) ? 0 : -1;
	}
	munmap(m, len);
	if (!e && ml->n)
		qsort(ml->v, ml->n, sizeof(*ml->v), by_path);
	return e;
}

static int stamp_object(const struct target *t, const struct core_maps_line *l, int out)
{
	char root[48], id[68], line[4300], path[4097];
	if (l->path_len >= sizeof(path) || memchr(l->path, 0, l->path_len))
		return 0;
	memcpy(path, l->path, l->path_len);
	path[l->path_len] = 0;
	const struct core_file_id fid = { l->inode, l->dev_major, l->dev_minor };
	snprintf(root, sizeof(root), "/proc/%d/root", (int)t->io_pid);
	int fd = core_open_mapped(t->io_pid, l->start, l->end, root, path, &fid);
	struct core_elf *e;
	if (fd < 0 || core_elf_open(fd, &e))
		return 0;
	core_elf_build_id(e, id, sizeof(id));
	core_elf_close(e);
	if (!*id)
		return 0;
	int n = snprintf(line, sizeof(line), CORE_STAMP_BUILD "%s %s\n", id, path);
	return n > 0 && (size_t)n < sizeof(line) ? core_write_all(out, line, (size_t)n) : 0;
}

int act_stamp(const struct target *t, int out, const struct timespec *when)
{
	struct mapped_list ml = { 0 };
	char boot[40], line[80];
	int e = 0;
	if (read_section(out, &ml))
		goto done;
	if (lseek(out, 0, SEEK_END) < 0) {
		e = -errno;
		goto done;
	}
	/* The section ends with a newline; a profile cut short may not. */
	size_t tl = strlen(ml.text);
	if (tl && ml.text[tl - 1] != '\n')
		e = core_write_all(out, "\n", 1);
	core_stamp_boot_id(boot);
	if (!e && *boot) {
		int n = snprintf(line, sizeof(line), CORE_STAMP_BOOT "%s\n", boot);
		e = core_write_all(out, line, (size_t)n);
	}
	/* After the boot id: a reader believes the block from there on. */
	size_t tn = core_stamp_time_line(when->tv_sec, (uint32_t)when->tv_nsec, line, sizeof(line));
	if (!e && tn)
		e = core_write_all(out, line, tn);
	for (size_t i = 0, done = 0; !e && i < ml.n && done < STAMP_MAX_OBJECTS; i++) {
		if (i && same_path(&ml.v[i], &ml.v[i - 1]))
			continue;
		e = stamp_object(t, &ml.v[i], out);
		done++;
	}
done:
	free(ml.v);
	free(ml.text);
	return e;
}
