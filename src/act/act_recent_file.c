/* SPDX-License-Identifier: BSD-2-Clause */
/* The record of recent allocations, to its file (after the release).
 *
 * The file is jemalloc's JSON object, its keys as jemalloc wrote them
 * (sample_interval, recent_alloc_max, recent_alloc), with one key added
 * last, "jeattach": what a reader needs to name the stacks' addresses and
 * to date the records, none of which jemalloc writes: the pid, the time
 * (Unix seconds), the clock jemalloc stamped the records with and its
 * reading when the record was taken, the process's maps then, and the
 * stamp block jeattach appends to heap profiles (boot id, each mapped
 * file's build id: core_stamp.h), so that jeheap can tell whether the
 * binaries it reads later are the ones that ran. A reader that knows only
 * jemalloc's keys reads it unchanged. Published as dumps are: written
 * beside its name, fsynced, and renamed without replacing an existing
 * file (act_publish). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "act.h"
#include "act_stamp.h"
#include "core_json.h"
#include "core_read.h"
#include "errors.h"
#include "target_struct.h"

/* A process's maps are a few hundred KB even with thousands of threads. */
#define RECENT_MAPS_MAX (64u << 20)

static void automatic_name(pid_t pid, char *buf, size_t len)
{
	for (unsigned seq = 0;; seq++) {
		snprintf(buf, len, "jeattach-recent.%d.%u.json", (int)pid, seq);
		if (access(buf, F_OK) != 0 || seq > 100000)
			return;
	}
}

/* The stamp lines for maps (act_stamp reads a dump's MAPPED_LIBRARIES
 * section and appends to it: given one in a memfd, what it appends). */
static char *stamp_text(const struct target *t, const char *maps, const struct timespec *when)
{
	static const char head[] = "\nMAPPED_LIBRARIES:\n";
	int fd = memfd_create("jeattach-stamp", MFD_CLOEXEC);
	char *out = NULL;
	size_t hl = sizeof(head) - 1, ml = strlen(maps);
	if (fd < 0)
		return NULL;
	if (!core_write_all(fd, head, hl) && !core_write_all(fd, maps, ml) &&
	    !act_stamp(t, fd, when)) {
		struct stat st;
		size_t from = hl + ml;
		if (!fstat(fd, &st) && (size_t)st.st_size >= from &&
		    (out = calloc(1, (size_t)st.st_size - from + 1)) &&
		    pread(fd, out, (size_t)st.st_size - from, (off_t)from) !=
			    (ssize_t)((size_t)st.st_size - from)) {
			free(out);
			out = NULL;
		}
	}
	close(fd);
	return out;
}

/* jemalloc's object with "jeattach" appended, to out. */
static int write_record(const struct target *t, const struct act_result *r, FILE *out)
{
	char path[64], *maps = NULL, *stamp;
	const struct timespec *now = &r->out.dump.done;
	const struct act_field *clock = NULL;
	for (size_t k = 0; k < r->nf; k++)
		if (!strcmp(r->f[k].key, "clock"))
			clock = &r->f[k];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)t->io_pid);
	if (core_read_file(path, RECENT_MAPS_MAX, &maps, NULL))
		maps = NULL;
	stamp = maps ? stamp_text(t, maps, now) : NULL;
	size_t len = strlen(r->out.recent.json);
	fwrite(r->out.recent.json, 1, len - 1, out); /* all but its closing brace */
	fprintf(out, ",\"jeattach\":{\"pid\":%d,\"time\":%lld.%09ld,\"clock\":\"%s\","
		     "\"clock_now_ns\":%llu,\"maps\":",
		(int)t->pid, (long long)now->tv_sec, now->tv_nsec, clock ? clock->v.s : "monotonic",
		(unsigned long long)r->out.recent.now_ns);
	core_json_put_string(out, maps ? maps : "");
	fputs(",\"stamp\":", out);
	core_json_put_string(out, stamp ? stamp : "");
	fputs("}}\n", out);
	free(maps);
	free(stamp);
	if (fflush(out))
		return -errno; /* ENOSPC, EDQUOT: said as such */
	return ferror(out) ? -EIO : 0;
}

struct record_job {
	struct target *t;
	struct act_result *r;
};

static int write_job(FILE *out, int fd, void *arg)
{
	(void)fd;
	struct record_job *j = arg;
	return write_record(j->t, j->r, out);
}

enum ja_exit act_recent_finish(struct target *t, const struct act *a, struct act_result *r)
{
	char file[4200];
	if (a->arg) {
		if (act_expand_pattern(a->arg, t->pid, 0, file, sizeof(file)))
			return act_fail(r, JA_EXIT_USAGE,
					"bad file pattern %s: %%p, %%t and %%%% are known", a->arg);
	} else {
		automatic_name(t->pid, file, sizeof(file));
	}
	struct record_job job = { t, r };
	return act_write_file(r, file, a->force, "the record", write_job, &job);
}
