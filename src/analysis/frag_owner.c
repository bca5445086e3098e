/* SPDX-License-Identifier: BSD-2-Clause */
/* Is a heap profile this process's? --frag-profile maps a profile's sites
 * onto the size classes of the process --frag reads: a profile of another
 * process (another instance of the same server, an old file) would show
 * sites that are not there, without a word. The profile's MAPPED_LIBRARIES
 * is the process's /proc/self/maps when it was dumped; ASLR gives each
 * process its own addresses for each object (shared libraries even beside
 * a non-PIE executable), and an object mapped in a process does not move.
 * So every executable mapping of a file both list must start at the same
 * address, and at least one file must be in both. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_maps.h"
#include "core_read.h"
#include "frag.h"
#include "jeheap.h"

struct owner {
	const char *now; /* the process's maps */
	size_t same;     /* files at the same address in both */
	int moved;       /* one at another address: */
	char path[256];
	uint64_t then, at;
};

struct find {
	const struct core_maps_line *want;
	uint64_t start;
	int found;
};

static int find_cb(const struct core_maps_line *m, void *arg)
{
	struct find *f = arg;
	if (!m->x || m->path_len != f->want->path_len || m->offset != f->want->offset ||
	    strncmp(m->path, f->want->path, m->path_len))
		return 0;
	f->start = m->start;
	f->found = 1;
	return 1;
}

static int profile_cb(const struct core_maps_line *m, void *arg)
{
	struct owner *o = arg;
	if (!m->x || !m->path_len || m->path[0] != '/')
		return 0; /* anonymous, [vdso]... */
	struct find f = { .want = m };
	core_maps_foreach(o->now, find_cb, &f);
	if (!f.found)
		return 0;
	if (f.start == m->start) {
		o->same++;
		return 0;
	}
	o->moved = 1;
	snprintf(o->path, sizeof(o->path), "%.*s", (int)m->path_len, m->path);
	o->then = m->start;
	o->at = f.start;
	return 1;
}

int frag_profile_owned(const char *path, int pid, char *why, size_t whylen)
{
	char file[64], *now = NULL;
	struct jeheap_error_info ei = { 0 };
	jeheap_profile *p = NULL;
	int e = jeheap_profile_read_file(path, &p, &ei);
	if (e) {
		snprintf(why, whylen, "cannot read it: %s", ei.message[0] ? ei.message : jeheap_strerror(e));
		return -1;
	}
	snprintf(file, sizeof(file), "/proc/%d/maps", pid);
	if (core_read_file(file, CORE_READ_PROC_MAX, &now, NULL)) {
		jeheap_profile_free(p);
		snprintf(why, whylen, "cannot read %s to check that it is this process's", file);
		return -1;
	}
	struct owner o = { .now = now };
	core_maps_foreach(jeheap_profile_mappings(p), profile_cb, &o);
	free(now);
	jeheap_profile_free(p);
	if (o.moved)
		snprintf(why, whylen,
			 "another process's profile (it has %s at %#" PRIx64 ", process %d at %#" PRIx64
			 ")", o.path, o.then, pid, o.at);
	else if (!o.same)
		snprintf(why, whylen, "another process's profile (it maps none of the files process "
			 "%d runs)", pid);
	return o.moved || !o.same ? -1 : 0;
}
