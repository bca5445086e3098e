/* SPDX-License-Identifier: BSD-2-Clause */
/* --frag's files: checked before any target is touched (--frag-profile
 * readable, each --frag-out writable and new unless --force), then the
 * report written as FILE.json or FILE.svg as a dump is: a temporary beside
 * it, fsync, then a rename that replaces nothing unless --force
 * (act_publish). */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli_frag.h"

static int ends_with(const char *s, const char *ext)
{
	size_t n = strlen(s), e = strlen(ext);
	return n >= e && !strcmp(s + n - e, ext);
}

/* Write the report to the temporary fd: 0 or -errno. */
static int write_report(int fd, const struct cli_run *run, const struct act_result *r, int svg)
{
	FILE *f = fdopen(fd, "w");
	if (!f) {
		int e = -errno;
		close(fd);
		return e;
	}
	if (svg) {
		cli_frag_svg(f, r->out.frag.report, (int)run->pid, target_get_info(run->t)->comm);
	} else {
		cli_frag_json(f, r);
		fputc('\n', f);
	}
	int e = fflush(f) || ferror(f) ? -errno : 0;
	if (!e && fsync(fileno(f)) < 0)
		e = -errno;
	if (fclose(f) && !e)
		e = -errno;
	return e ? e : 0;
}

static int write_one(const struct cli_run *run, const struct act *a, const struct act_result *r,
		     const char *file)
{
	char tmp[4300];
	int fd = act_temp_beside(file, tmp, sizeof(tmp));
	if (fd < 0)
		return fd;
	int e = write_report(fd, run, r, ends_with(file, ".svg"));
	if (!e)
		e = act_publish(tmp, file, a->force);
	if (e)
		unlink(tmp);
	return e;
}

static enum ja_exit check_profile(const char *path, char *err, size_t len)
{
	struct stat st;
	const char *why = NULL;
	if (stat(path, &st))
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (access(path, R_OK))
		why = strerror(errno);
	if (!why)
		return JA_EXIT_OK;
	snprintf(err, len, "--frag-profile %.300s: %s; give a heap profile written by "
		 "jeattach --dump", path, why);
	return JA_EXIT_USAGE;
}

enum ja_exit cli_frag_check(const struct options *o, char *err, size_t len)
{
	if (o->frag_profile && check_profile(o->frag_profile, err, len))
		return JA_EXIT_USAGE;
	char why[600];
	for (int i = 0; o->frag_profile && i < o->npids; i++)
		if (frag_profile_owned(o->frag_profile, o->pids[i], why, sizeof(why))) {
			snprintf(err, len, "--frag-profile %.300s: %s; give a profile of this process: "
				 "jeattach -p %d --dump FILE", o->frag_profile, why, (int)o->pids[i]);
			return JA_EXIT_USAGE;
		}
	for (int k = 0; k < o->nfrag_out; k++)
		for (int i = 0; i < o->npids; i++) {
			char file[4096], copy[4096];
			struct stat st;
			if (act_expand_pattern(o->frag_out[k], o->pids[i], 0, file, sizeof(file)))
				continue; /* refused by the option's parser already */
			const char *kind = act_output_kind(file);
			if (kind) {
				snprintf(err, len, "--frag-out %.300s: it is %s, and jeattach "
					 "replaces regular files only (--force too); give another "
					 "name", file, kind);
				return JA_EXIT_OUTPUT;
			}
			if (!o->force && !lstat(file, &st)) {
				snprintf(err, len, "--frag-out %.300s: the file exists; give --force to "
					 "replace it, or a new name", file);
				return JA_EXIT_OUTPUT;
			}
			snprintf(copy, sizeof(copy), "%s", file);
			if (access(dirname(copy), W_OK | X_OK)) {
				snprintf(err, len, "cannot write %.300s: %s; choose a writable directory",
					 file, strerror(errno));
				return JA_EXIT_OUTPUT;
			}
		}
	return JA_EXIT_OK;
}

enum ja_exit cli_frag_write(struct cli_run *run, const struct options *o, int i)
{
	const struct act *a = &run->plan->steps[i];
	struct act_result *r = &run->res[i];
	if (a->kind != ACT_FRAG || !r->out.frag.report)
		return JA_EXIT_OK;
	for (int k = 0; k < o->nfrag_out; k++) {
		char file[4096];
		if (act_expand_pattern(o->frag_out[k], run->pid, 0, file, sizeof(file)))
			return act_fail(r, JA_EXIT_USAGE, "bad file pattern %s", o->frag_out[k]);
		int e = write_one(run, a, r, file);
		if (e == -EEXIST || e == -EISDIR)
			return act_publish_error(r, file, e, "the report");
		if (e)
			return act_fail(r, JA_EXIT_OUTPUT,
					"cannot write %s: %s; choose a writable directory", file,
					strerror(-e));
		act_field_str(r, ends_with(file, ".svg") ? "svg_file" : "json_file", file);
	}
	return JA_EXIT_OK;
}
