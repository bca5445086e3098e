/* SPDX-License-Identifier: BSD-2-Clause */
/* --status: is profiling possible here, and what is on? Every control is
 * read on its own; one that this jemalloc does not have (ENOENT: older
 * version, or built without --enable-prof) is reported as null. */
#include "config.h"

#include "act.h"

static const struct {
	const char *key, *ctl;
} status_ctls[] = {
	{ "version", "version" },
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

enum je_exit act_status(struct target *t, struct act_result *r)
{
	act_field_str(r, "object", t->je.object);
	act_field_str(r, "symbol_prefix", t->je.prefix);
	act_field_bool(r, "static", t->je.is_main_executable);
	/* Found only in .symtab: a stripped copy of this binary would hide it. */
	act_field_str(r, "symbol_table", t->je.from_symtab_only ? "symtab" : "dynsym");
	for (size_t i = 0; i < sizeof(status_ctls) / sizeof(status_ctls[0]); i++) {
		int e = act_read_field(t, r, status_ctls[i].key, status_ctls[i].ctl);
		if (e)
			return act_transport_error(t, r, "cannot read the status", e);
	}
	return JE_EXIT_OK;
}
