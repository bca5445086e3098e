/* SPDX-License-Identifier: BSD-2-Clause */
/* --stats: jemalloc's summary statistics and the ratios an operator reads
 * first. --stats=full: jemalloc's own malloc_stats_print output, whole. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "act.h"
#include "rcall.h"

static const struct {
	const char *key, *ctl;
} stats_ctls[] = {
	{ "allocated", "stats.allocated" }, { "active", "stats.active" },
	{ "metadata", "stats.metadata" },   { "resident", "stats.resident" },
	{ "mapped", "stats.mapped" },       { "retained", "stats.retained" },
	{ "narenas", "arenas.narenas" },
};

/* The stats.* values are a snapshot jemalloc refreshes only when "epoch"
 * is written (jemalloc(3), "epoch"); without config.stats they are absent. */
static enum je_exit refresh(struct target *t, struct act_result *r, const char *doing)
{
	struct rctl_value v, one = { .type = RCTL_U64, .u = 1 };
	int merr = 0;
	int e = rctl_read(t, "config.stats", &v, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr || !v.u)
		return act_fail(r, JE_EXIT_MALLCTL,
				"%s: this jemalloc keeps no statistics (config.stats is false: built "
				"without --enable-stats); nothing to report",
				doing);
	if ((e = rctl_write(t, "epoch", &one, NULL, &merr)))
		return act_transport_error(t, r, doing, e);
	return merr ? act_mallctl_error(t, r, doing, "epoch", merr) : JE_EXIT_OK;
}

enum je_exit act_stats(struct target *t, struct act_result *r)
{
	const char *doing = "cannot read statistics";
	enum je_exit c = refresh(t, r, doing);
	if (c)
		return c;
	uint64_t val[sizeof(stats_ctls) / sizeof(stats_ctls[0])];
	for (size_t i = 0; i < sizeof(stats_ctls) / sizeof(stats_ctls[0]); i++) {
		struct rctl_value v;
		int merr = 0;
		int e = rctl_read(t, stats_ctls[i].ctl, &v, &merr);
		if (e)
			return act_transport_error(t, r, doing, e);
		if (merr)
			return act_mallctl_error(t, r, doing, stats_ctls[i].ctl, merr);
		val[i] = v.u;
		act_field_value(r, stats_ctls[i].key, &v);
	}
	/* active/allocated > 1: fragmentation inside active pages; resident/
	 * active > 1: dirty or metadata pages held beyond what is in use. */
	act_field_double(r, "active_per_allocated", val[0] ? (double)val[1] / (double)val[0] : 0);
	act_field_double(r, "resident_per_active", val[1] ? (double)val[3] / (double)val[1] : 0);
	return JE_EXIT_OK;
}

/* jemalloc's JSON comes indented over many lines; --json promises one line
 * per target. Drop whitespace outside strings. */
static void json_compact(char *s)
{
	char *o = s;
	int in_str = 0, esc = 0;
	for (char *p = s; *p; p++) {
		if (in_str) {
			*o++ = *p;
			if (esc)
				esc = 0;
			else if (*p == '\\')
				esc = 1;
			else if (*p == '"')
				in_str = 0;
		} else if (*p == '"') {
			in_str = 1;
			*o++ = *p;
		} else if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r') {
			*o++ = *p;
		}
	}
	*o = 0;
}

/* Virtual room for the output: MAP_NORESERVE costs nothing until written;
 * hundreds of arenas print a few MB. A PROT_NONE page after it turns an
 * overrun into a fault jeattach catches instead of a write into the
 * neighbouring mapping. */
#define FULL_ROOM (256UL << 20)

static int remote_syscall(struct target *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
			  uint64_t a3, uint64_t a4, uint64_t a5, long *ret)
{
	uint64_t args[6] = { a0, a1, a2, a3, a4, a5 };
	int e = rcall_syscall(t, nr, args, 6, ret);
	return e ? e : (*ret < 0 && *ret > -4096 ? (int)*ret : 0);
}

/* Read the NUL-terminated text at addr (at most max bytes). */
static int read_text(struct target *t, uint64_t addr, size_t max, char **out)
{
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap + 1);
	if (!buf)
		return -ENOMEM;
	while (len < max) {
		size_t chunk = 65536;
		if (len + chunk > cap) {
			char *nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		int e = pt_read(t->pid, addr + len, buf + len, chunk);
		if (e) {
			free(buf);
			return e;
		}
		char *nul = memchr(buf + len, 0, chunk);
		if (nul) {
			*out = buf;
			return 0;
		}
		len += chunk;
	}
	free(buf);
	return -E2BIG;
}

/* malloc_stats_print(write_cb, cbopaque, opts) with write_cb NULL writes to
 * the target's stderr: not acceptable. The target has no callback of ours,
 * and no code may be written into it, so the callback is libc's strcat:
 * write_cb(cbopaque, s) is strcat(buffer, s), appending into a buffer
 * mapped in the target for the occasion. jemalloc 5.3 hands write_cb 64 KiB
 * chunks (its buf_writer, STATS_PRINT_BUFSIZE), so strcat's rescans stay
 * cheap. strcat is an IFUNC in glibc: its resolver is called first. */
enum je_exit act_stats_full(struct target *t, int json, struct act_result *r)
{
	const char *doing = "cannot print jemalloc's statistics";
	if (!t->je.malloc_stats_print)
		return act_fail(r, JE_EXIT_NOJEMALLOC, "%s: no %smalloc_stats_print in %s", doing,
				t->je.prefix, t->je.object);
	if (!t->strcat_fn)
		return act_fail(r, JE_EXIT_UNSAFE,
				"%s: no strcat in the target's libc to collect the output with", doing);
	enum je_exit c = refresh(t, r, doing);
	if (c)
		return c;
	uint64_t fn = t->strcat_fn, a_opts;
	int e;
	if (t->strcat_ifunc && (e = rcall(t, t->strcat_fn, NULL, 0, &fn)))
		return act_transport_error(t, r, doing, e);
	long buf, ret;
	e = remote_syscall(t, SYS_mmap, 0, FULL_ROOM + 4096, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, (uint64_t)-1, 0, &buf);
	if (e)
		return act_fail(r, JE_EXIT_UNSAFE, "%s: mmap in the target failed: %s", doing,
				strerror(-e));
	e = remote_syscall(t, SYS_mprotect, (uint64_t)buf, FULL_ROOM, PROT_READ | PROT_WRITE, 0, 0,
			   0, &ret);
	rcall_scratch_reset(t);
	if (!e)
		e = rcall_push_string(t, json ? "J" : "", &a_opts);
	if (!e) {
		uint64_t args[3] = { fn, (uint64_t)buf, a_opts }, unused;
		e = rcall(t, t->je.malloc_stats_print, args, 3, &unused);
	}
	char *text = NULL;
	if (!e)
		e = read_text(t, (uint64_t)buf, FULL_ROOM, &text);
	int e2 = remote_syscall(t, SYS_munmap, (uint64_t)buf, FULL_ROOM + 4096, 0, 0, 0, 0, &ret);
	if (e || e2) {
		free(text);
		return act_transport_error(t, r, doing, e ? e : e2);
	}
	if (json)
		json_compact(text);
	r->blob = text;
	r->blob_json = json;
	act_field_u64(r, "bytes", strlen(text));
	return JE_EXIT_OK;
}
