/* SPDX-License-Identifier: BSD-2-Clause */
/* --stats: jemalloc's summary statistics and the ratios an operator reads
 * first. --stats=full: jemalloc's own malloc_stats_print output, whole. */
#include "config.h"

#include <string.h>
#include <errno.h>
#include <stdlib.h>
#include "act.h"
#include "core_json.h"
#include "rproc.h"
#include "target_struct.h"

static const struct {
	const char *key, *ctl;
} stats_ctls[] = {
	{ "allocated", "stats.allocated" }, { "active", "stats.active" },
	{ "metadata", "stats.metadata" },   { "resident", "stats.resident" },
	{ "mapped", "stats.mapped" },       { "retained", "stats.retained" },
	{ "narenas", "arenas.narenas" },
};

/* Without config.stats the stats.* controls are absent. */
enum ja_exit act_need_stats(struct target *t, struct act_result *r, const char *doing)
{
	int on;
	enum ja_exit c = act_read_flag(t, r, doing, "config.stats", &on);
	if (c || !on)
		return c ? c : act_fail(r, JA_EXIT_MALLCTL,
				"%s: this jemalloc keeps no statistics (config.stats is false: built "
				"without --enable-stats); nothing to report",
				doing);
	return JA_EXIT_OK;
}

/* The stats.* values are a snapshot jemalloc refreshes only when "epoch"
 * is written (jemalloc(3), "epoch"; ctl_refresh under ctl_mtx). */
enum ja_exit act_epoch(struct target *t, struct act_result *r, const char *doing)
{
	struct rctl_value one = { .type = RCTL_U64, .u = 1 };
	int merr = 0, e;
	if ((e = rctl_write(t, "epoch", &one, NULL, &merr)))
		return act_transport_error(t, r, doing, e);
	return merr ? act_mallctl_error(t, r, doing, "epoch", merr) : JA_EXIT_OK;
}

static enum ja_exit refresh(struct target *t, struct act_result *r, const char *doing)
{
	enum ja_exit c = act_need_stats(t, r, doing);
	return c ? c : act_epoch(t, r, doing);
}

enum ja_exit act_stats(struct target *t, struct act_result *r)
{
	const char *doing = "cannot read statistics";
	enum ja_exit c = refresh(t, r, doing);
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
		if (strcmp(stats_ctls[i].key, "narenas"))
			act_field_bytes(r, stats_ctls[i].key, v.u);
		else
			act_field_value(r, stats_ctls[i].key, &v);
	}
	/* active/allocated > 1: fragmentation inside active pages; resident/
	 * active > 1: dirty or metadata pages held beyond what is in use. */
	act_field_double(r, "active_per_allocated", val[0] ? (double)val[1] / (double)val[0] : 0);
	act_field_double(r, "resident_per_active", val[1] ? (double)val[3] / (double)val[1] : 0);
	return JA_EXIT_OK;
}

enum ja_exit act_stats_full(struct target *t, int json, struct act_result *r)
{
	const char *doing = "cannot print jemalloc's statistics";
	if (!t->je.malloc_stats_print)
		return act_fail(r, JA_EXIT_NOJEMALLOC, "%s: no %smalloc_stats_print in %s", doing,
				t->je.prefix, t->je.object);
	if (!rproc_has_stats_print(t))
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: no strcat in the target's libc to collect the output with", doing);
	int e = rproc_check_seccomp(t, RPROC_USE_STATS_PRINT);
	if (e)
		return act_transport_error(t, r, doing, e);
	enum ja_exit c = refresh(t, r, doing);
	if (c)
		return c;
	char *text;
	int remote_errno;
	e = rproc_stats_print(t, json ? "J" : "", 0, &text, &remote_errno);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (remote_errno)
		return act_fail(r, JA_EXIT_UNSAFE, "%s: mmap in the target failed: %s", doing,
				strerror(remote_errno));
	if (json) {
		/* The target wrote it: embedded in jeattach's JSON only once
		 * parsed and re-encoded (compact: --json is one line), so it
		 * cannot close jeattach's object early and forge a record. */
		char *canon;
		size_t n = strlen(text);
		e = core_json_reencode(text, &canon, NULL);
		free(text);
		if (e == -EINVAL)
			return act_fail(r, JA_EXIT_MALLCTL,
					"%s: the target's JSON report (%zu bytes) is not valid JSON; "
					"not embedded (--stats=full without --json prints it as text)",
					doing, n);
		if (e)
			return act_transport_error(t, r, doing, e);
		text = canon;
	}
	r->out.full.text = text;
	r->out.full.json = json;
	act_field_u64(r, "bytes", strlen(text));
	return JA_EXIT_OK;
}
