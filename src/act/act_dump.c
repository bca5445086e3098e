/* SPDX-License-Identifier: BSD-2-Clause */
/* --dump: jemalloc writes the profile (prof.dump) into a pipe jeattach made
 * in the target and drains while it writes (act_dump_pipe.c: why a pipe,
 * and why it cannot hurt the target even if jeattach dies), never into the
 * target's filesystem nor its memory; jeattach keeps it in a memfd of its
 * own and publishes it at the operator's path with write-to-temporary +
 * fsync + rename(2), so no reader sees half a profile and it lands where
 * the operator asked, whatever the target's user, mount namespace or
 * working directory. Before anything is made, the target's own limits are
 * read (target_limits.c): a dump it has no room for is refused with the
 * cause and the fix. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "act.h"
#include "act_dump_pipe.h"
#include "act_stamp.h"
#include "core_read.h"
#include "keep.h"
#include "errors.h"
#include "rcall.h"
#include "rproc.h"
#include "target_limits.h"
#include "target_struct.h"

/* First bytes of every heap profile format jemalloc has written. */
static int looks_like_profile(const char *buf, size_t n)
{
	return (n >= 8 && !memcmp(buf, "heap_v2/", 8)) || (n >= 13 && !memcmp(buf, "heap profile:", 13));
}

/* jemalloc's automatic name, <prefix>.<pid>.<seq>.m<seq>.heap, in jeattach's
 * working directory; the sequence is the first one not already there (the
 * target's own counter is private to it). */
static void automatic_name(const char *prefix, pid_t pid, char *buf, size_t len)
{
	char copy[4096];
	snprintf(copy, sizeof(copy), "%s", prefix && *prefix ? prefix : "jeprof");
	const char *base = basename(copy);
	/* A plain file name in jeattach's directory, always: prof_prefix:/
	 * would otherwise make "/.PID.0.m0.heap", in /. */
	if (!*base || !strcmp(base, "/") || !strcmp(base, ".") || !strcmp(base, ".."))
		base = "jeprof";
	for (unsigned seq = 0;; seq++) {
		snprintf(buf, len, "%s.%d.%u.m%u.heap", base, (int)pid, seq, seq);
		if (access(buf, F_OK) != 0 || seq > 100000)
			return;
	}
}

/* opt.prof_prefix, for act_dump_finish's automatic name. */
static int keep_prefix(struct act_dump_out *out, const struct rctl_value *prefix)
{
	free(out->prof_prefix);
	out->prof_prefix = prefix->is_null ? NULL : strdup(prefix->s);
	return !prefix->is_null && !out->prof_prefix ? -ENOMEM : 0;
}

/* Descriptors a dump needs free at once in the target: pipe2's two ends;
 * then, while jemalloc writes, the read end, the write end it was handed
 * and its open of /proc/self/maps (prof_sys.c prof_dump_maps), which, when
 * it fails, jemalloc skips in silence: a profile without MAPPED_LIBRARIES. */
#define DUMP_FDS 3
/* Memory a dump may charge to the target's cgroup: the pipe's pages in
 * flight (at most DUMP_PIPE_SIZE, 256 KiB, act_dump_pipe.c), the scratch
 * mapping (RCALL_SCRATCH_SIZE, 24 KiB, and its page tables), jemalloc's own
 * metadata while it walks its samples, and what the target's other threads
 * allocate meanwhile; 4 MiB leaves the last some room. Below it the target
 * is at its limit already: a dump would be the charge that tips it. */
#define DUMP_MEM_NEED (4ULL << 20)

/* The target's limits, before anything is made in it. */
static enum ja_exit check_limits(struct target *t, struct act_result *r, const char *doing)
{
	struct target_limits l;
	/* Through the held thread: /proc/PID/fd of a leader that ended with
	 * pthread_exit is empty, its FDSize 0 (a live thread shows the
	 * process's table); and a v1 cgroup can differ by thread. */
	target_limits_read(rcall_held_tid(t) ? rcall_held_tid(t) : t->io_pid, &l);
	if (l.nofile && l.fds_free < DUMP_FDS)
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: the process has %llu free descriptor(s) under its RLIMIT_NOFILE "
				"of %llu, and a dump needs %d at once (a pipe's two ends, then "
				"jemalloc's open of /proc/self/maps); raise its limit first: "
				"prlimit --pid %d --nofile=%llu:",
				doing, (unsigned long long)l.fds_free, (unsigned long long)l.nofile,
				DUMP_FDS, (int)t->pid, (unsigned long long)l.nofile + 16);
	if (l.mem_headroom < DUMP_MEM_NEED)
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: the process's memory cgroup can take only %llu more bytes "
				"(%s), and a dump may charge it %llu MiB (a pipe's buffer, "
				"jeattach's scratch, jemalloc's work); raise that limit or let the "
				"process free memory first",
				doing, (unsigned long long)l.mem_headroom, l.mem_file,
				(unsigned long long)(DUMP_MEM_NEED >> 20));
	return JA_EXIT_OK;
}

/* What prof.dump's call came to: the transport's word (e), then
 * jemalloc's (merr), then the pipe's. */
static enum ja_exit dump_outcome(struct target *t, struct act_result *r, const char *doing, int e,
				 int merr, int denied, const struct dump_pipe *p)
{
	if (e == -JA_ERR_LEFT)
		return act_fail(r, JA_EXIT_INTERNAL,
				"%s: interrupted while jemalloc wrote the profile (%llu bytes so far); "
				"the target keeps the pipe's read end (descriptor %ld), so jemalloc "
				"meets a full pipe, not a closed one: its dump fails, and its thread "
				"restores itself; that descriptor stays open there",
				doing, (unsigned long long)p->received, p->tr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (denied)
		/* Even when prof.dump reports success the profile is not whole:
		 * jemalloc 5.3 ignores a failure to open /proc/self/maps and
		 * writes a profile without MAPPED_LIBRARIES. */
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: the target's seccomp filter forbids system call %d, which "
				"jemalloc needs to write a whole profile; jeattach answered it with "
				"EPERM, jemalloc went on cleanly, and the incomplete profile was "
				"discarded (prof.dump returned %d)",
				doing, denied, merr);
	if (p->received > p->written)
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: the pipe brought %llu bytes but jemalloc wrote %llu: another "
				"thread of the process wrote into it; nothing was written",
				doing, (unsigned long long)p->received,
				(unsigned long long)p->written);
	if (p->oversize)
		return act_fail(r, JA_EXIT_MALLCTL,
				"%s: jemalloc wrote a piece larger than the pipe (%zu bytes), which "
				"jeattach failed with EFBIG rather than let it be cut short; "
				"nothing was written",
				doing, p->cap);
	if (merr)
		return act_fail(r, JA_EXIT_MALLCTL, "%s: jemalloc's prof.dump failed (%s)%s", doing,
				strerror(merr),
				p->taken ? "" : "; jemalloc never opened its file");
	if (p->store_err)
		return act_fail(r, JA_EXIT_INTERNAL, "%s: cannot keep the profile in jeattach: %s",
				doing, strerror(p->store_err));
	return JA_EXIT_OK;
}

/* What the written profile holds: prof.active as it was written (false:
 * only samples from before, jemalloc samples nothing while it is off:
 * prof_active_get_unlocked in prof_sample_check), and its sample count. */
static enum ja_exit dump_facts(struct target *t, struct act_result *r, const char *doing)
{
	struct act_totals tot;
	enum ja_exit c = act_read_flag(t, r, doing, "prof.active", &r->out.dump.prof_active);
	if (c)
		return c;
	act_field_bool(r, "prof_active", r->out.dump.prof_active);
	if (!act_dump_totals(r->out.dump.fd, &tot))
		act_field_u64(r, "samples", tot.objs);
	return JA_EXIT_OK;
}

/* prof.dump with the pipe's hook watching its system calls. jemalloc is
 * given the empty name: see act_dump_pipe.c. */
static int dump_call(struct target *t, struct act_result *r, struct dump_pipe *p, int *merr)
{
	struct rctl_value newv = { .type = RCTL_STRING };
	rcall_scratch_reset(t);
	rcall_set_drain(t, dump_pipe_hook, p);
	core_usec_t t0 = core_now_us();
	int e = rctl_write(t, "prof.dump", &newv, NULL, merr);
	r->out.dump.us = core_now_us() - t0;
	rcall_set_drain(t, NULL, NULL);
	/* The profile's moment: jemalloc wrote its counts during the call,
	 * and its end is when they were last true (a series of dumps is put
	 * on a time axis by jeheap trend). */
	clock_gettime(CLOCK_REALTIME, &r->out.dump.done);
	return e;
}

enum ja_exit act_dump(struct target *t, struct act_result *r)
{
	const char *doing = "cannot dump a heap profile";
	enum ja_exit c = act_need_prof(t, r, doing);
	if (c)
		return c;
	struct rctl_value prefix;
	int merr = 0, e;
	if ((e = rctl_read(t, "opt.prof_prefix", &prefix, &merr)))
		return act_transport_error(t, r, doing, e);
	if (merr)
		prefix.is_null = 1;
	act_field_str(r, "prof_prefix", prefix.is_null ? NULL : prefix.s);
	if (keep_prefix(&r->out.dump, &prefix))
		return act_fail(r, JA_EXIT_INTERNAL, "%s: out of memory", doing);

	/* 0. Nothing the target's seccomp filter would kill it for, and room
	 * for the dump under its own limits. */
	if ((e = rproc_check_seccomp(t, RPROC_USE_DUMP)))
		return act_transport_error(t, r, doing, e);
	if ((c = check_limits(t, r, doing)))
		return c;

	/* 1. The pipe, our end of it, our store. */
	struct dump_pipe p;
	if ((c = dump_pipe_make(t, r, doing, r->out.dump.max ? r->out.dump.max : ACT_DEFAULT_MAX_DUMP,
				&p)))
		return c;

	/* 2. jemalloc writes the profile into it; jeattach drains it. */
	e = dump_call(t, r, &p, &merr);
	/* Read before the closes below, which are calls of their own. */
	int denied = rproc_seccomp_denied(t);
	if (e == -JA_ERR_LEFT) {
		close(p.rd); /* the target's read end keeps the pipe open */
		return dump_outcome(t, r, doing, e, merr, denied, &p);
	}

	/* 3. Nothing left in the target: its descriptor table is as found. */
	int e2 = dump_pipe_end(&p);
	r->out.dump.received = p.received;
	c = dump_outcome(t, r, doing, e, merr, denied, &p);
	if (!c)
		c = dump_facts(t, r, doing);
	if (e2 && c == JA_EXIT_OK)
		c = act_transport_error(t, r, "cannot close the dump's pipe in the target", e2);
	r->code = c;
	return c;
}

/* Copy the profile, at most max bytes (-EFBIG past it). */
static int copy_all(int in, int out, uint64_t max, uint64_t *bytes)
{
	static char buf[1 << 18];
	*bytes = 0;
	int first = 1;
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if (first && !looks_like_profile(buf, (size_t)n))
			return -JA_ERR_NOT_PROFILE;
		first = 0;
		if ((uint64_t)n > max - *bytes)
			return -EFBIG;
		int e = core_write_all(out, buf, (size_t)n);
		if (e)
			return e;
		*bytes += (uint64_t)n;
	}
}

/* The whole profile, for --symbolize, at most max bytes. */
static int read_all(int fd, uint64_t max, char **text, size_t *len)
{
	int e = core_read_fd(fd, max < SIZE_MAX ? (size_t)max : SIZE_MAX, text, len);
	if (!e && !looks_like_profile(*text, *len)) {
		free(*text);
		e = -JA_ERR_NOT_PROFILE;
	}
	return e;
}

static int write_symbolized(pid_t pid, int in, int out, uint64_t max, uint64_t *bytes)
{
	char *text = NULL;
	size_t len = 0;
	int e = read_all(in, max, &text, &len);
	if (e)
		return e;
	int fd = dup(out);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		e = -errno;
		if (fd >= 0)
			close(fd);
		free(text);
		return e;
	}
	e = act_write_symbolized(pid, text, len, f);
	*bytes = (uint64_t)ftell(f);
	if (fclose(f) && !e)
		e = -errno;
	free(text);
	return e;
}

/* A profile larger than --max-dump: the target chose its size. */
static enum ja_exit too_big(struct act_result *r, uint64_t size, uint64_t max)
{
	return act_fail(r, JA_EXIT_OUTPUT,
			"cannot dump a heap profile: it is %llu bytes or more, past --max-dump "
			"(%llu bytes); nothing was written; if a profile that large is real, give "
			"a larger --max-dump (a thread of the target can also write into "
			"jeattach's pipe without end)",
			(unsigned long long)size, (unsigned long long)max);
}

/* Why the profile could not be published at file (e: -errno or -JA_ERR_*). */
static enum ja_exit finish_error(struct act_result *r, const struct act *a, const char *file,
				 int e, uint64_t bytes)
{
	if (e == -EFBIG)
		return too_big(r, a->max_bytes + 1, a->max_bytes);
	if (e == -JA_ERR_NOT_PROFILE)
		return act_fail(r, JA_EXIT_MALLCTL,
				"cannot dump a heap profile: jemalloc wrote %llu bytes that are "
				"not a heap profile",
				(unsigned long long)bytes);
	return act_publish_error(r, file, e, "the profile");
}

/* Make the profile's MAPPED_LIBRARIES the process's own if jemalloc's is
 * missing or another's (act_dump_maps.c); the maps are read only then,
 * after the release (a process's maps are megabytes at worst, not worth
 * a longer hold), through io_pid: an ended leader's /proc/PID/maps is
 * empty. */
static int complete_maps(struct target *t, int fd, const char **by)
{
	int e = act_dump_complete_maps(fd, NULL, t->je.mallctl, by);
	if (e != -ENOENT)
		return e;
	char path[64], *maps;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)t->io_pid);
	if (core_read_file(path, CORE_READ_PROC_MAX, &maps, NULL))
		return -ENOENT;
	e = act_dump_complete_maps(fd, maps, t->je.mallctl, by);
	free(maps);
	return e;
}

/* Where the profile goes: *dir a directory descriptor to take name and
 * tmp against (AT_FDCWD but for --dump DIR/), name the file to publish,
 * shown the path reported, out the temporary's descriptor. */
struct dump_place {
	int dir, out;
	char name[4096], shown[4400], tmp[4300];
};

static enum ja_exit place_of(struct target *t, const struct act *a, struct act_result *r,
			     struct dump_place *pl)
{
	const char *pattern = a->arg;
	pl->dir = AT_FDCWD;
	pl->out = -1;
	if (a->keep) {
		/* Opened again for each dump: a directory swapped for a link
		 * since the last one is refused, never followed. */
		int e = act_keep_open_dir(a->keep->dir, &pl->dir);
		if (e) {
			pl->dir = AT_FDCWD;
			act_keep_dir_why(a->keep->dir, e, pl->shown, sizeof(pl->shown));
			return act_fail(r, JA_EXIT_OUTPUT, "%s; nothing was written", pl->shown);
		}
		if (keep_name_make(time(NULL), target_get_info(t)->comm, t->pid, a->seq, pl->name,
				   sizeof(pl->name)))
			return act_fail(r, JA_EXIT_INTERNAL, "cannot name the profile: the clock "
					"cannot be read as UTC");
		act_keep_path(a->keep->dir, pl->name, pl->shown, sizeof(pl->shown));
		pl->out = act_keep_temp(pl->dir, pl->tmp, sizeof(pl->tmp));
	} else {
		if (pattern) {
			if (act_expand_pattern(pattern, t->pid, a->seq, pl->name, sizeof(pl->name)))
				return act_fail(r, JA_EXIT_USAGE, "bad file pattern %s: %%n, %%p, %%t "
						"and %%%% are known", pattern);
		} else {
			/* The prefix act_dump read during the hold. */
			automatic_name(r->out.dump.prof_prefix, t->pid, pl->name, sizeof(pl->name));
		}
		snprintf(pl->shown, sizeof(pl->shown), "%s", pl->name);
		pl->out = act_temp_beside(pl->name, pl->tmp, sizeof(pl->tmp));
	}
	if (pl->out < 0)
		return act_fail(r, JA_EXIT_OUTPUT, "cannot write %s: %s; choose a writable directory",
				pl->shown, strerror(-pl->out));
	return JA_EXIT_OK;
}

enum ja_exit act_dump_finish(struct target *t, const struct act *a, struct act_result *r)
{
	struct dump_place pl;
	struct stat st;
	if (!fstat(r->out.dump.fd, &st) && (uint64_t)st.st_size > a->max_bytes)
		return too_big(r, r->out.dump.received > (uint64_t)st.st_size ? r->out.dump.received
									 : (uint64_t)st.st_size,
			       a->max_bytes);
	const char *maps_by;
	if (complete_maps(t, r->out.dump.fd, &maps_by))
		return act_fail(r, JA_EXIT_MALLCTL,
				"cannot dump a heap profile: jemalloc wrote it without the "
				"process's own MAPPED_LIBRARIES section (it could not open its "
				"maps: no free descriptor, no /proc of its own, or a seccomp "
				"filter) and jeattach could not read them either; nothing was "
				"written; its addresses would name nothing");
	enum ja_exit c = place_of(t, a, r, &pl);
	if (c) {
		if (pl.dir != AT_FDCWD)
			close(pl.dir);
		return c;
	}
	uint64_t bytes = 0;
	int out = pl.out;
	int e = a->symbolize ? write_symbolized(t->io_pid, r->out.dump.fd, out, a->max_bytes, &bytes)
			     : copy_all(r->out.dump.fd, out, a->max_bytes, &bytes);
	if (!e && bytes == 0)
		e = -JA_ERR_NOT_PROFILE;
	/* A symbolized profile carries its names: nothing to check later. */
	if (!e && !a->symbolize && !(e = act_stamp(t, out, &r->out.dump.done)) && !fstat(out, &st))
		bytes = (uint64_t)st.st_size;
	if (!e && fsync(out) < 0)
		e = -errno;
	if (close(out) < 0 && !e)
		e = -errno;
	if (!e)
		e = act_publish_at(pl.dir, pl.tmp, pl.name, a->force);
	if (e) {
		unlinkat(pl.dir, pl.tmp, 0);
		if (pl.dir != AT_FDCWD)
			close(pl.dir);
		return finish_error(r, a, pl.shown, e, bytes);
	}
	act_field_str(r, "file", pl.shown);
	act_field_u64(r, "bytes", bytes);
	act_field_bool(r, "symbolized", a->symbolize);
	act_field_str(r, "maps", maps_by);
	act_field_u64(r, "dump_us", (uint64_t)r->out.dump.us);
	/* Only now, the new one written: a failed dump removes nothing. */
	if (a->keep) {
		if (a->keep->files || a->keep->bytes) {
			act_keep_prune(pl.dir, a->keep, pl.name, r);
			act_field_u64(r, "removed", (uint64_t)r->out.dump.nremoved);
		}
		close(pl.dir);
	}
	return JA_EXIT_OK;
}
