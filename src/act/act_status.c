/* SPDX-License-Identifier: BSD-2-Clause */
/* --status: is profiling possible here, and what is on? Every control is
 * read on its own; one that this jemalloc does not have (ENOENT: older
 * version, or built without --enable-prof) is reported as null. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "act.h"
#include "core_read.h"
#include "target_struct.h"

static const struct {
	const char *key, *ctl;
} status_ctls[] = {
	{ "config_prof", "config.prof" },
	{ "config_stats", "config.stats" },
	{ "opt_prof", "opt.prof" },
	{ "prof_active", "prof.active" },
	{ "prof_thread_active_init", "prof.thread_active_init" },
	{ "prof_lg_sample", "prof.lg_sample" },
	{ "prof_gdump", "prof.gdump" },
	{ "prof_interval", "prof.interval" },
	{ "opt_prof_prefix", "opt.prof_prefix" },
};

/* Whether prof.active=true alone reaches threads that already allocated,
 * by version, or by the controls that exist when the version string says
 * nothing (act_version.c): the answer --activate acts on. */
static int activation_fields(struct target *t, struct act_result *r,
			     const struct rctl_value *ver, int merr)
{
	struct act_release rel;
	int e = act_release_from(t, ver, merr, &rel);
	if (e)
		return e;
	int reach = rel.reach;
	if (reach < 0)
		act_field_str(r, "activation_reaches_existing_threads", NULL);
	else
		act_field_bool(r, "activation_reaches_existing_threads", reach);
	act_field_str(r, "release", rel.by ? rel.range : NULL);
	act_field_str(r, "release_known_by", rel.by);
	act_field_str(r, "activation",
		      reach > 0    ? "prof.active alone reaches every thread"
		      : reach == 0 ? "activation alone would not reach existing threads (jemalloc "
				     "5.2); --activate re-arms each thread"
				   : "unknown jemalloc version: activation alone may not reach "
				     "existing threads; --activate re-arms each thread");
	return 0;
}

/* How jemalloc got into the process: linked into the program, preloaded
 * (its object named in LD_PRELOAD, read from /proc/PID/environ, which the
 * process may have changed since it started), or a shared library. */
static const char *loaded_as(const struct target *t)
{
	if (t->je.is_main_executable)
		return "linked into the program";
	char path[64], *env = NULL;
	size_t len = 0;
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)t->pid);
	if (core_read_file(path, 1 << 20, &env, &len))
		return "shared library";
	const char *base = strrchr(t->je.object, '/');
	base = base ? base + 1 : t->je.object;
	int pre = 0;
	for (size_t o = 0; o < len; o += strlen(env + o) + 1)
		if (!strncmp(env + o, "LD_PRELOAD=", 11) && *base && strstr(env + o + 11, base))
			pre = 1;
	free(env);
	return pre ? "LD_PRELOAD" : "shared library";
}

void act_status_before(struct target *t, struct act_result *r)
{
	act_field_str(r, "object", t->je.object);
	act_field_str(r, "symbol_prefix", t->je.prefix);
	act_field_bool(r, "static", t->je.is_main_executable);
	act_field_str(r, "loaded_as", loaded_as(t));
	/* Found only in .symtab: a stripped copy of this binary would hide it. */
	act_field_str(r, "symbol_table", t->je.from_symtab_only ? "symtab" : "dynsym");
}

/* The answer to "can I profile this?", from the fields read: a keyword
 * (profiling) and a sentence that says what to do (verdict), which the
 * text report opens with. */
static void verdict(struct target *t, struct act_result *r)
{
	const struct rctl_value *built = act_field_find(r, "config_prof"),
				*on = act_field_find(r, "opt_prof"),
				*active = act_field_find(r, "prof_active"),
				*reach = act_field_find(r, "activation_reaches_existing_threads"),
				*hooks = act_field_find(r, "sample_possible");
	/* Where profiling is not possible, --sample may still be. */
	const char *sample = hooks && !hooks->is_null && hooks->u ?
				     "; or take a profile now with --sample --for DURATION --dump FILE" :
				     "";
	char var[80], line[400];
	act_conf_var(t, var, sizeof(var));
	const char *kind;
	if (!built || built->is_null || !built->u) {
		kind = "not_built";
		snprintf(line, sizeof(line), "profiling not possible: this jemalloc was built "
			 "without --enable-prof; use a build configured with it (Debian's is)%s",
			 sample);
	} else if (!on || on->is_null || !on->u) {
		kind = "not_enabled";
		snprintf(line, sizeof(line), "profiling not possible: the process was started "
			 "without prof:true, which cannot be turned on at run time; restart it with "
			 "%s=prof:true,prof_active:false%s", var, sample);
	} else if (active && !active->is_null && active->u) {
		kind = "active";
		snprintf(line, sizeof(line), "profiling active: --dump writes a heap profile "
			 "now; --deactivate stops sampling");
	} else {
		kind = "inactive";
		snprintf(line, sizeof(line), "profiling ready, inactive: --activate or --for "
			 "DURATION starts sampling%s",
			 reach && reach->type == RCTL_BOOL && reach->u ? "" :
			 " (and re-arms each thread: see activation)");
	}
	act_field_str(r, "profiling", kind);
	act_field_str(r, "verdict", line);
}

enum ja_exit act_status(struct target *t, struct act_result *r)
{
	/* Read once, for its field and for what activation reaches. */
	struct rctl_value ver;
	int merr = 0, e = rctl_read(t, "version", &ver, &merr);
	if (e)
		return act_transport_error(t, r, "cannot read the status", e);
	if (merr)
		act_field_str(r, "version", NULL);
	else
		act_field_value(r, "version", &ver);
	for (size_t i = 0; i < sizeof(status_ctls) / sizeof(status_ctls[0]); i++) {
		if ((e = act_read_field(t, r, status_ctls[i].key, status_ctls[i].ctl)))
			return act_transport_error(t, r, "cannot read the status", e);
	}
	if ((e = activation_fields(t, r, &ver, merr)))
		return act_transport_error(t, r, "cannot read the status", e);
	/* --sample's hooks (jemalloc 5.2.0-5.3.x): whether it would be
	 * refused for want of them. */
	int hooks = 0;
	if ((e = rctl_probe(t, "experimental.hooks.install", &hooks)))
		return act_transport_error(t, r, "cannot read the status", e);
	act_field_bool(r, "sample_possible", hooks);
	verdict(t, r);
	return JA_EXIT_OK;
}
