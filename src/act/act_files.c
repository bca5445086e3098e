/* SPDX-License-Identifier: BSD-2-Clause */
/* Files jemalloc writes on its own: prof.gdump's profile at each new peak,
 * and the automatic dumps named from prof.prefix. They land where the
 * process runs, named from its prefix, with no word from jemalloc: the
 * place is said (the prefix resolved against /proc/PID/cwd), and a gdump
 * is refused while the prefix is jemalloc's default, which no one chose:
 * a service's working directory is often / or its data directory, and a
 * profile at every peak can fill it. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "act.h"

/* jemalloc's opt.prof_prefix when MALLOC_CONF gives none (PROF_PREFIX_DEFAULT). */
#define DEFAULT_PREFIX "jeprof"

/* The pid jemalloc puts in the names: its getpid(), the one inside its
 * own pid namespace. */
static int own_pid(const struct target *t)
{
	const struct target_info *in = target_get_info(t);
	return in->ns_pid ? (int)in->ns_pid : (int)target_pid(t);
}

/* path as the process names it, absolute: a relative one from its
 * working directory. */
static void resolve(const struct target *t, const char *path, char *out, size_t len)
{
	char link[64], cwd[PATH_MAX];
	snprintf(link, sizeof(link), "/proc/%d/cwd", (int)target_pid(t));
	ssize_t n = path[0] == '/' ? 0 : readlink(link, cwd, sizeof(cwd) - 1);
	if (path[0] == '/' || n <= 0) {
		snprintf(out, len, "%s%s", path[0] == '/' ? "" : "(its working directory)/", path);
		return;
	}
	cwd[n] = 0;
	snprintf(out, len, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "", path);
}

void act_files_prefix_set(struct target *t, struct act_session *s, const char *prefix,
			  struct act_result *r)
{
	char where[PATH_MAX + 64], path[PATH_MAX + 32];
	snprintf(s->prof_prefix, sizeof(s->prof_prefix), "%s", prefix);
	snprintf(path, sizeof(path), "%s.%d.*.heap", prefix, own_pid(t));
	resolve(t, path, where, sizeof(where));
	act_field_str(r, "files", where);
}

void act_files_dump(struct target *t, const char *file, struct act_result *r)
{
	char where[PATH_MAX + 64];
	resolve(t, file, where, sizeof(where));
	act_field_str(r, "file", where);
}

enum ja_exit act_files_gdump(struct target *t, const struct act_session *s, struct act_result *r,
			     const char *doing)
{
	char var[80], where[PATH_MAX + 64], path[PATH_MAX + 32];
	struct rctl_value v;
	const char *prefix = s->prof_prefix;
	int merr = 0;
	if (!prefix[0]) {
		int e = rctl_read(t, "opt.prof_prefix", &v, &merr);
		if (e)
			return act_transport_error(t, r, doing, e);
		if (merr)
			return act_mallctl_error(t, r, doing, "opt.prof_prefix", merr);
		prefix = v.is_null ? DEFAULT_PREFIX : v.s;
	}
	snprintf(path, sizeof(path), "%s.%d.*.u*.heap", prefix, own_pid(t));
	resolve(t, path, where, sizeof(where));
	act_conf_var(t, var, sizeof(var));
	if (!strcmp(prefix, DEFAULT_PREFIX))
		return act_fail(r, JA_EXIT_USAGE,
				"%s: jemalloc would write a profile at each new peak as %s, a "
				"place no one chose; give a prefix first, in the same command: "
				"--set prof.prefix=DIR/NAME --gdump=on (jemalloc 5.3), or start the "
				"process with prof_prefix:DIR/NAME in %s",
				doing, where, var);
	act_field_str(r, "files", where);
	return JA_EXIT_OK;
}
