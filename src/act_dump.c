/* SPDX-License-Identifier: BSD-2-Clause */
/* --dump: jemalloc writes the profile (prof.dump) into a memfd created in
 * the target, never into the target's filesystem; jeattach reads it through
 * /proc/PID/fd/N and publishes it at the operator's path with
 * write-to-temporary + fsync + rename(2), so no reader sees half a profile
 * and it lands where the operator asked, whatever the target's user, mount
 * namespace or working directory. jemalloc opens the name it is given with
 * creat() (prof_dump_open_file in 5.3), and opening /proc/self/fd/N re-opens
 * the memfd itself, O_TRUNC and all. */
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
#include "act_stamp.h"
#include "core_read.h"
#include "errors.h"
#include "rproc.h"

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

/* The name memfd_create gave (memfd_create(2): "/memfd:NAME", and the
 * kernel's " (deleted)" since it has no link). */
#define DUMP_MEMFD_NAME "jeattach-dump"
#define DUMP_MEMFD_LINK "/memfd:" DUMP_MEMFD_NAME " (deleted)"

/* Is the descriptor behind link (a /proc/.../fd/N path) our memfd? */
static int is_our_memfd(const char *link, char *name, size_t len)
{
	ssize_t n = readlink(link, name, len - 1);
	name[n > 0 ? n : 0] = 0;
	return !strcmp(name, DUMP_MEMFD_LINK);
}

/* 0, or what descriptor fd of the target turned out to be (*foreign set:
 * it is the target's, not ours, and must not be closed). */
static enum je_exit open_own_handle(struct target *t, struct act_result *r, const char *doing,
				    long fd, int *foreign)
{
	char path[64], link[64];
	struct stat st;
	/* By the process and the thread: the kernel checks the thread is in it. */
	snprintf(path, sizeof(path), "/proc/%d/task/%d/fd/%ld", (int)t->pid, (int)t->io_pid, fd);
	/* Looked at before it is opened: opening a device or a FUSE file the
	 * target put there could act or wait. O_NONBLOCK all the same. */
	if (is_our_memfd(path, link, sizeof(link)))
		r->dump.fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (link[0] && strcmp(link, DUMP_MEMFD_LINK))
		goto foreign;
	if (r->dump.fd < 0)
		return act_fail(r, JE_EXIT_INTERNAL, "%s: cannot open %s: %s", doing, path,
				strerror(errno));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", r->dump.fd);
	if (!fstat(r->dump.fd, &st) && S_ISREG(st.st_mode) && is_our_memfd(path, link, sizeof(link)))
		return JE_EXIT_OK;
foreign:
	*foreign = 1;
	return act_fail(r, JE_EXIT_UNSAFE,
			"%s: descriptor %ld of the target is not the memfd jeattach just made there "
			"(it is %s): another thread of the process replaced it; nothing was dumped, "
			"and it was left open",
			doing, fd, link[0] ? link : "unreadable");
}

/* What prof.dump's call came to: the transport's word (e), then
 * jemalloc's (merr). */
static enum je_exit dump_outcome(struct target *t, struct act_result *r, const char *doing, int e,
				 int merr, long fd)
{
	if (e == -JE_ERR_LEFT) {
		struct stat st;
		return act_fail(r, JE_EXIT_INTERNAL,
				"%s: interrupted while jemalloc wrote the profile (%lld bytes so far); "
				"jemalloc finishes it in the target, whose thread then restores "
				"itself; the dump's memfd stays open there as descriptor %ld",
				doing, fstat(r->dump.fd, &st) ? -1LL : (long long)st.st_size, fd);
	}
	if (e)
		return act_transport_error(t, r, doing, e);
	if (rproc_seccomp_denied(t))
		/* Even when prof.dump reports success the profile is not whole:
		 * jemalloc 5.3 ignores a failure to open /proc/self/maps and
		 * writes a profile without MAPPED_LIBRARIES. */
		return act_fail(r, JE_EXIT_UNSAFE,
				"%s: the target's seccomp filter forbids system call %d, which "
				"jemalloc needs to write a whole profile; jeattach answered it with "
				"EPERM, jemalloc went on cleanly, and the incomplete profile was "
				"discarded (prof.dump returned %d)",
				doing, rproc_seccomp_denied(t), merr);
	if (merr)
		return act_fail(r, merr == EFAULT ? JE_EXIT_OUTPUT : JE_EXIT_MALLCTL,
				"%s: jemalloc's prof.dump failed (%s)%s", doing, strerror(merr),
				merr == EFAULT ? "; it could not open or write /proc/self/fd in "
						 "the target (is /proc mounted in its mount "
						 "namespace? is open() forbidden by seccomp?)"
					       : "");
	return JE_EXIT_OK;
}

/* What the written profile holds: prof.active as it was written (false:
 * only samples from before, jemalloc samples nothing while it is off:
 * prof_active_get_unlocked in prof_sample_check), and its sample count. */
static enum je_exit dump_facts(struct target *t, struct act_result *r, const char *doing)
{
	struct act_totals tot;
	enum je_exit c = act_read_flag(t, r, doing, "prof.active", &r->dump.prof_active);
	if (c)
		return c;
	act_field_bool(r, "prof_active", r->dump.prof_active);
	if (!act_dump_totals(r->dump.fd, &tot))
		act_field_u64(r, "samples", tot.objs);
	return JE_EXIT_OK;
}

enum je_exit act_dump(struct target *t, struct act_result *r)
{
	const char *doing = "cannot dump a heap profile";
	enum je_exit c = act_need_prof(t, r, doing);
	if (c)
		return c;
	struct rctl_value prefix;
	int merr = 0, e;
	if ((e = rctl_read(t, "opt.prof_prefix", &prefix, &merr)))
		return act_transport_error(t, r, doing, e);
	if (merr)
		prefix.is_null = 1;
	act_field_str(r, "prof_prefix", prefix.is_null ? NULL : prefix.s);
	if (keep_prefix(&r->dump, &prefix))
		return act_fail(r, JE_EXIT_INTERNAL, "%s: out of memory", doing);

	/* 0. Nothing the target's seccomp filter would kill it for. */
	if ((e = rproc_check_seccomp(t, RPROC_USE_DUMP)))
		return act_transport_error(t, r, doing, e);

	/* 1. An anonymous file in the target. */
	long fd;
	if ((e = rproc_memfd(t, DUMP_MEMFD_NAME, &fd)))
		return act_transport_error(t, r, doing, e);
	if (fd < 0)
		return act_fail(r, JE_EXIT_UNSAFE,
				"%s: memfd_create in the target failed (%s); a seccomp filter or an "
				"old kernel (< 3.17) forbids it",
				doing, strerror((int)-fd));

	/* 2. Our own handle on it, before jemalloc writes: the CLI shows the
	 * dump's progress from its size, and it is checked to be the memfd
	 * just made (the target's other threads run on and could put another
	 * file at that descriptor number). */
	int foreign = 0;
	if ((c = open_own_handle(t, r, doing, fd, &foreign))) {
		if (foreign) {
			r->code = c;
			return c;
		}
		goto close_remote;
	}

	/* 3. jemalloc writes the profile into it. */
	/* /proc/self is the process's entry, the leader's: empty once the
	 * main thread has ended. /proc/thread-self (Linux 3.17) is the
	 * borrowed thread's, which lives. */
	char path[64];
	snprintf(path, sizeof(path), "/proc/%s/fd/%ld", t->io_pid == t->pid ? "self" : "thread-self",
		 fd);
	struct rctl_value newv = { .type = RCTL_STRING };
	snprintf(newv.s, sizeof(newv.s), "%s", path);
	pt_usec_t t0 = pt_now_us();
	e = rctl_write(t, "prof.dump", &newv, NULL, &merr);
	r->dump.us = pt_now_us() - t0;
	/* The profile's moment: jemalloc wrote its counts during the call,
	 * and its end is when they were last true (a series of dumps is put
	 * on a time axis by jeheap trend). */
	clock_gettime(CLOCK_REALTIME, &r->dump.done);
	c = dump_outcome(t, r, doing, e, merr, fd);
	if (!c)
		c = dump_facts(t, r, doing);
	long closed;
close_remote:
	/* 4. Nothing left in the target: its descriptor table is as found. */
	e = rproc_close(t, fd, &closed);
	if (!e && closed < 0)
		e = (int)closed;
	if (e && c == JE_EXIT_OK)
		c = act_transport_error(t, r, "cannot close the dump descriptor in the target", e);
	r->code = c;
	return c;
}

/* Copy the profile, at most max bytes (-EFBIG past it: the memfd may
 * grow while it is read, by the target's hand). */
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
			return -JE_ERR_NOT_PROFILE;
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
		e = -JE_ERR_NOT_PROFILE;
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
static enum je_exit too_big(struct act_result *r, uint64_t size, uint64_t max)
{
	return act_fail(r, JE_EXIT_OUTPUT,
			"cannot dump a heap profile: it is %llu bytes or more, past --max-dump "
			"(%llu bytes); nothing was written; if a profile that large is real, give "
			"a larger --max-dump (a thread of the target can also grow jeattach's "
			"memfd to any size)",
			(unsigned long long)size, (unsigned long long)max);
}

/* Why the profile could not be published at file (e: -errno or -JE_ERR_*). */
static enum je_exit finish_error(struct act_result *r, const struct act *a, const char *file,
				 int e, uint64_t bytes)
{
	if (e == -EFBIG)
		return too_big(r, a->max_bytes + 1, a->max_bytes);
	if (e == -JE_ERR_NOT_PROFILE)
		return act_fail(r, JE_EXIT_MALLCTL,
				"cannot dump a heap profile: jemalloc wrote %llu bytes that are "
				"not a heap profile",
				(unsigned long long)bytes);
	return act_publish_error(r, file, e, "the profile");
}

enum je_exit act_dump_finish(struct target *t, const struct act *a, struct act_result *r)
{
	char autoname[4200], tmp[4300], expanded[4096];
	const char *file = NULL, *pattern = a->arg;
	struct stat st;
	if (!fstat(r->dump.fd, &st) && (uint64_t)st.st_size > a->max_bytes)
		return too_big(r, (uint64_t)st.st_size, a->max_bytes);
	if (pattern) {
		if (act_expand_pattern(pattern, t->pid, a->seq, expanded, sizeof(expanded)))
			return act_fail(r, JE_EXIT_USAGE,
					"bad file pattern %s: %%n, %%p, %%t and %%%% are known", pattern);
		file = expanded;
	} else {
		/* The prefix act_dump read during the hold. */
		automatic_name(r->dump.prof_prefix, t->pid, autoname, sizeof(autoname));
		file = autoname;
	}
	int out = act_temp_beside(file, tmp, sizeof(tmp));
	if (out < 0)
		return act_fail(r, JE_EXIT_OUTPUT, "cannot write %s: %s; choose a writable directory",
				file, strerror(-out));
	uint64_t bytes = 0;
	int e = a->symbolize ? write_symbolized(t->io_pid, r->dump.fd, out, a->max_bytes, &bytes)
			     : copy_all(r->dump.fd, out, a->max_bytes, &bytes);
	if (!e && bytes == 0)
		e = -JE_ERR_NOT_PROFILE;
	/* A symbolized profile carries its names: nothing to check later. */
	if (!e && !a->symbolize && !(e = act_stamp(t, out, &r->dump.done)) && !fstat(out, &st))
		bytes = (uint64_t)st.st_size;
	if (!e && fsync(out) < 0)
		e = -errno;
	if (close(out) < 0 && !e)
		e = -errno;
	if (!e)
		e = act_publish(tmp, file, a->force);
	if (e) {
		unlink(tmp);
		return finish_error(r, a, file, e, bytes);
	}
	act_field_str(r, "file", file);
	act_field_u64(r, "bytes", bytes);
	act_field_bool(r, "symbolized", a->symbolize);
	act_field_u64(r, "dump_us", (uint64_t)r->dump.us);
	return JE_EXIT_OK;
}
