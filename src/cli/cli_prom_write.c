/* SPDX-License-Identifier: BSD-2-Clause */
/* --prometheus FILE: the figures in Prometheus' text exposition format
 * (version 0.0.4: # HELP, # TYPE, name{label="value"} value), for
 * node_exporter's textfile collector, which reads every *.prom file of its
 * directory at each scrape. Each family's HELP and TYPE come once, every
 * target's series under them: the format allows a family only once per
 * file, and the collector merges families across files, refusing a file
 * whose family's help or type differs from another's.
 *
 * Every series of a target carries the same five labels, comm, pid, exe,
 * build_id and cgroup, each present (empty where unknown): Prometheus
 * treats a missing label and an empty one alike, but node_exporter's
 * collector requires every series of a family to have the same label
 * names (a file that mixes them fails the scrape,
 * node_textfile_scrape_error 1).
 *
 * Written to a temporary file in the same directory, then renamed over
 * FILE: rename(2) is atomic within a file system, so a scrape sees the old
 * file or the new one, never half of one (the collector's documented
 * convention). The temporary name does not end in .prom, so the collector
 * never reads it. No fsync: the file is rewritten every interval, and after
 * a crash a stale one is what the collector's own mtime metric reveals. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli_prom.h"
#include "errors.h"

static void head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{comm="..",pid="..",exe="..",build_id="..",cgroup=".." and the
 * caller's labels, then "} " */
static void series(FILE *f, const char *name, const struct top_target *x)
{
	fprintf(f, "%s{comm=\"", name);
	cli_prom_label(f, x->v.comm);
	fprintf(f, "\",pid=\"%d\",exe=\"", (int)x->v.pid);
	cli_prom_label(f, x->id.exe);
	fprintf(f, "\",build_id=\"%s\",cgroup=\"", x->id.build_id);
	cli_prom_label(f, x->id.cgroup);
	fputc('"', f);
}

static void summary(FILE *f, const struct cli_prom_file *pf)
{
	for (int i = 0; i < ACT_TOP_NSTATS; i++) {
		char name[64], help[128];
		snprintf(name, sizeof(name), "jemalloc_%s_bytes", act_top_stat_names[i]);
		snprintf(help, sizeof(help), "jemalloc's stats.%s after an epoch refresh.",
			 act_top_stat_names[i]);
		head(f, name, "gauge", help);
		for (int k = 0; k < pf->n; k++) {
			const struct top_target *x = pf->targets[k];
			if (!x->v.good)
				continue;
			series(f, name, x);
			fprintf(f, "} %llu\n", (unsigned long long)x->v.st.v[i]);
		}
	}
	static const char *const rname[] = { "jemalloc_active_per_allocated_ratio",
					     "jemalloc_resident_per_active_ratio" };
	static const char *const rhelp[] = {
		"stats.active / stats.allocated: fragmentation inside active pages.",
		"stats.resident / stats.active: pages held beyond those in use."
	};
	static const int num[] = { ACT_TOP_ACTIVE, ACT_TOP_RESIDENT };
	static const int den[] = { ACT_TOP_ALLOCATED, ACT_TOP_ACTIVE };
	for (int r = 0; r < 2; r++) {
		head(f, rname[r], "gauge", rhelp[r]);
		for (int k = 0; k < pf->n; k++) {
			const uint64_t *s = pf->targets[k]->v.st.v;
			if (!pf->targets[k]->v.good || !s[den[r]])
				continue;
			series(f, rname[r], pf->targets[k]);
			fprintf(f, "} %.6f\n", (double)s[num[r]] / (double)s[den[r]]);
		}
	}
	head(f, "jemalloc_arena_active_bytes", "gauge",
	     "An arena's active pages times the page size.");
	for (int k = 0; k < pf->n; k++) {
		const struct top_view *v = &pf->targets[k]->v;
		for (unsigned i = 0; v->good && i < v->st.narenas; i++)
			if (v->arena_ok[i]) {
				series(f, "jemalloc_arena_active_bytes", pf->targets[k]);
				fprintf(f, ",arena=\"%u\"} %llu\n", i,
					(unsigned long long)v->arena_active[i]);
			}
	}
}

static void threads(FILE *f, const struct cli_prom_file *pf)
{
	static const char *const names[] = { "jemalloc_thread_allocated_bytes_total",
					     "jemalloc_thread_deallocated_bytes_total" };
	static const char *const helps[] = { "Bytes a thread allocated (thread.allocatedp).",
					     "Bytes a thread freed (thread.deallocatedp)." };
	for (int c = 0; c < 2; c++) {
		head(f, names[c], "counter", helps[c]);
		for (int k = 0; k < pf->n; k++) {
			const struct top_target *x = pf->targets[k];
			for (int i = 0; x->v.good && i < x->th.n; i++) {
				const struct top_thread *t = &x->th.v[i];
				if (!t->valid)
					continue;
				series(f, names[c], x);
				fprintf(f, ",thread=\"%d\",name=\"", (int)t->tid);
				cli_prom_label(f, t->comm);
				fprintf(f, "\"} %llu\n",
					(unsigned long long)(c ? t->dealloc : t->alloc));
			}
		}
	}
}

/* jeattach's own series: how many processes it follows, whether each one's
 * last refresh held a thread (a missed one keeps its last figures), and
 * how long the last hold was. */
static void own(FILE *f, const struct cli_prom_file *pf)
{
	head(f, "jeattach_targets", "gauge", "Processes this jeattach follows.");
	fprintf(f, "jeattach_targets %u\n", pf->following);
	head(f, "jeattach_refresh_held", "gauge",
	     "1 if the last refresh held a thread of the process; 0 if it found none in "
	     "time (the figures are the previous ones).");
	for (int k = 0; k < pf->n; k++) {
		series(f, "jeattach_refresh_held", pf->targets[k]);
		fprintf(f, "} %d\n", pf->targets[k]->held);
	}
	head(f, "jemalloc_top_hold_seconds", "gauge",
	     "How long jeattach held one thread of the process for these figures.");
	for (int k = 0; k < pf->n; k++) {
		const struct top_target *x = pf->targets[k];
		if (!x->v.good)
			continue;
		series(f, "jemalloc_top_hold_seconds", x);
		fprintf(f, "} %.6f\n", (double)x->v.hold_us / 1e6);
	}
}

int cli_prom_write(struct cli_prom_file *pf)
{
	char copy[4096], tmp[4200];
	struct stat st;
	snprintf(copy, sizeof(copy), "%s", pf->file);
	snprintf(tmp, sizeof(tmp), "%s/.jeattach-prom.XXXXXX", dirname(copy));
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -errno;
	fchmod(fd, 0644); /* node_exporter may run as another user */
	if (fstat(fd, &st)) {
		int e = -errno;
		close(fd);
		unlink(tmp);
		return e;
	}
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = -errno;
		close(fd);
		unlink(tmp);
		return e;
	}
	summary(f, pf);
	threads(f, pf);
	own(f, pf);
	int e = ferror(f) ? -EIO : 0;
	if (fclose(f) && !e)
		e = -errno;
	/* Checked before the first refresh too (cli_prom_check); made
	 * meanwhile, anything but a regular file is left alone. */
	if (!e && act_output_kind(pf->file))
		e = -EEXIST;
	if (!e && rename(tmp, pf->file))
		e = -errno;
	if (e) {
		unlink(tmp);
		return e;
	}
	pf->dev = st.st_dev;
	pf->ino = st.st_ino;
	pf->published = 1;
	return 0;
}

int cli_prom_publish(struct cli_prom_file *pf, char *msg, size_t len)
{
	int e = cli_prom_write(pf);
	const char *kind = e == -EEXIST ? act_output_kind(pf->file) : NULL;
	if (kind) {
		snprintf(msg, len,
			 "cannot write %s: it is %s (made while jeattach ran), and jeattach "
			 "replaces regular files only; it was left alone; give another name",
			 pf->file, kind);
		return JA_EXIT_OUTPUT;
	}
	if (e) {
		snprintf(msg, len,
			 "cannot write %s: %s; choose a writable directory (node_exporter's "
			 "--collector.textfile.directory)",
			 pf->file, strerror(-e));
		return JA_EXIT_OUTPUT;
	}
	return 0;
}

void cli_prom_remove(struct cli_prom_file *pf)
{
	struct stat st;
	/* Only the very file jeattach renamed there: another put in its
	 * place meanwhile (by hand, by another jeattach) is not ours. */
	if (pf->published && !lstat(pf->file, &st) && S_ISREG(st.st_mode) &&
	    st.st_dev == pf->dev && st.st_ino == pf->ino)
		unlink(pf->file);
	pf->published = 0;
}

int cli_prom_check(const char *file, char *msg, size_t len)
{
	char copy[4096];
	/* It is replaced at every refresh, as a regular file only: a device
	 * node, a FIFO, a socket or a symbolic link at that name is never
	 * replaced (act_output_kind; as root, /dev/null would have been). */
	const char *kind = act_output_kind(file);
	if (kind) {
		snprintf(msg, len,
			 "--prometheus %s: it is %s, and jeattach replaces regular files only; "
			 "give a file name in node_exporter's --collector.textfile.directory",
			 file, kind);
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", file);
	const char *dir = dirname(copy);
	if (!access(dir, W_OK | X_OK))
		return 0;
	snprintf(msg, len,
		 "cannot write %s: %s: %s; choose a writable directory (node_exporter's "
		 "--collector.textfile.directory)",
		 file, dir, strerror(errno));
	return -1;
}
