/* SPDX-License-Identifier: BSD-2-Clause */
/* --prometheus FILE: the figures in Prometheus' text exposition format
 * (version 0.0.4: # HELP, # TYPE, name{label="value"} value), for
 * node_exporter's textfile collector, which reads every *.prom file of its
 * directory at each scrape. Written to a temporary file in the same
 * directory, then renamed over FILE: rename(2) is atomic within a file
 * system, so a scrape sees the old file or the new one, never half of one
 * (the collector's documented convention). The temporary name does not end
 * in .prom, so the collector never reads it. No fsync: the file is
 * rewritten every interval, and after a crash a stale one is what the
 * collector's own mtime metric reveals. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli_top.h"

/* A label value: backslash, double quote and line feed escaped, as the
 * format requires; other bytes of a thread's name pass as they are, except
 * control bytes, which become '?'. */
static void label(FILE *f, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\\' || c == '"')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else
			fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
}

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void summary(FILE *f, const struct top_view *v)
{
	for (int i = 0; i < ACT_TOP_NSTATS; i++) {
		char name[64], help[128];
		snprintf(name, sizeof(name), "jemalloc_%s_bytes", act_top_stat_names[i]);
		snprintf(help, sizeof(help), "jemalloc's stats.%s after an epoch refresh.",
			 act_top_stat_names[i]);
		head(f, name, "gauge", help);
		fprintf(f, "%s{pid=\"%d\"} %llu\n", name, (int)v->pid, (unsigned long long)v->st.v[i]);
	}
	const uint64_t *s = v->st.v;
	head(f, "jemalloc_active_per_allocated_ratio", "gauge",
	     "stats.active / stats.allocated: fragmentation inside active pages.");
	if (s[ACT_TOP_ALLOCATED])
		fprintf(f, "jemalloc_active_per_allocated_ratio{pid=\"%d\"} %.6f\n", (int)v->pid,
			(double)s[ACT_TOP_ACTIVE] / (double)s[ACT_TOP_ALLOCATED]);
	head(f, "jemalloc_resident_per_active_ratio", "gauge",
	     "stats.resident / stats.active: pages held beyond those in use.");
	if (s[ACT_TOP_ACTIVE])
		fprintf(f, "jemalloc_resident_per_active_ratio{pid=\"%d\"} %.6f\n", (int)v->pid,
			(double)s[ACT_TOP_RESIDENT] / (double)s[ACT_TOP_ACTIVE]);
	head(f, "jemalloc_arena_active_bytes", "gauge",
	     "An arena's active pages times the page size.");
	for (unsigned i = 0; i < v->st.narenas; i++)
		if (v->arena_ok[i])
			fprintf(f, "jemalloc_arena_active_bytes{pid=\"%d\",arena=\"%u\"} %llu\n",
				(int)v->pid, i, (unsigned long long)v->arena_active[i]);
}

static void threads(FILE *f, const struct top_view *v)
{
	static const char *const names[] = { "jemalloc_thread_allocated_bytes_total",
					     "jemalloc_thread_deallocated_bytes_total" };
	static const char *const helps[] = { "Bytes a thread allocated (thread.allocatedp).",
					     "Bytes a thread freed (thread.deallocatedp)." };
	for (int k = 0; k < 2; k++) {
		head(f, names[k], "counter", helps[k]);
		for (int i = 0; i < v->th->n; i++) {
			const struct top_thread *x = &v->th->v[i];
			if (!x->valid)
				continue;
			fprintf(f, "%s{pid=\"%d\",thread=\"%d\",name=\"", names[k], (int)v->pid,
				(int)x->tid);
			label(f, x->comm);
			fprintf(f, "\"} %llu\n", (unsigned long long)(k ? x->dealloc : x->alloc));
		}
	}
	head(f, "jemalloc_top_hold_seconds", "gauge",
	     "How long jeattach held one thread of the process for these figures.");
	fprintf(f, "jemalloc_top_hold_seconds{pid=\"%d\"} %.6f\n", (int)v->pid,
		(double)v->hold_us / 1e6);
}

int cli_top_prom_write(const char *file, const struct top_view *v)
{
	char copy[4096], tmp[4200];
	snprintf(copy, sizeof(copy), "%s", file);
	snprintf(tmp, sizeof(tmp), "%s/.jeattach-prom.XXXXXX", dirname(copy));
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	fchmod(fd, 0644); /* node_exporter may run as another user */
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = -errno;
		close(fd);
		unlink(tmp);
		return e;
	}
	summary(f, v);
	threads(f, v);
	int e = ferror(f) ? -EIO : 0;
	if (fclose(f) && !e)
		e = -errno;
	/* Checked before the first refresh too (cli_top.c); made meanwhile,
	 * anything but a regular file is left alone. */
	if (!e && act_output_kind(file))
		e = -EEXIST;
	if (!e && rename(tmp, file))
		e = -errno;
	if (e)
		unlink(tmp);
	return e;
}
