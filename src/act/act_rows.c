/* SPDX-License-Identifier: BSD-2-Clause */
/* What each action is, one row each: its name, what the target must have
 * prepared for it, what its result carries, what file it writes and what a
 * series' end step puts back. The command line and the actions themselves
 * (which make results of other kinds: activation's look at the samples)
 * read these rows instead of testing kinds, as strace's sysent and
 * jemalloc's ctl node table describe their calls in one place. What runs
 * an action is the dispatcher's (act_dispatch.c), one level up: the
 * actions it calls use these rows. */
#include "config.h"

#include "act.h"
#include "rproc.h"

static const struct act_row rows[] = {
	[ACT_STATUS] = { .name = "status" },
	[ACT_ACTIVATE] = { .name = "activate" },
	[ACT_DEACTIVATE] = { .name = "deactivate" },
	[ACT_DUMP] = { .name = "dump",
		       .out = ACT_RES_DUMP,
		       .output = ACT_OUT_PROFILE,
		       .long_call = "dump" },
	[ACT_GET] = { .name = "get" },
	[ACT_SET] = { .name = "set" },
	[ACT_STATS] = { .name = "stats" },
	[ACT_STATS_FULL] = { .name = "stats_full",
			     .needs = RPROC_STATS_PRINT,
			     .out = ACT_RES_FULL,
			     .long_call = "full report" },
	[ACT_RESET] = { .name = "reset" },
	[ACT_GDUMP] = { .name = "gdump" },
	[ACT_THREAD_ACTIVE_INIT] = { .name = "thread_active_init" },
	[ACT_PURGE] = { .name = "purge" },
	[ACT_DECAY] = { .name = "decay" },
	/* Its output is a profile only with --baseline: act_step_output. */
	[ACT_FOR_BEGIN] = { .name = "for_begin", .out = ACT_RES_DUMP },
	[ACT_FOR_END] = { .name = "for_end", .restores = "prof.active" },
	[ACT_WAIT] = { .name = "wait" },
	[ACT_NAME_THREADS] = { .name = "name_threads" },
	[ACT_FRAG] = { .name = "frag",
		       .needs = RPROC_STATS_PRINT,
		       .out = ACT_RES_FRAG,
		       .long_call = "fragmentation report" },
	[ACT_RECENT_BEGIN] = { .name = "recent_begin" },
	[ACT_RECENT_DUMP] = { .name = "recent_dump",
			      .needs = RPROC_STATS_PRINT,
			      .out = ACT_RES_RECENT,
			      .output = ACT_OUT_RECORD,
			      .long_call = "record of recent allocations" },
	[ACT_RECENT_END] = { .name = "recent_end", .restores = "experimental.prof_recent.alloc_max" },
	[ACT_SAMPLE_BEGIN] = { .name = "sample_begin" },
	[ACT_SAMPLE_END] = { .name = "sample_end",
			     .out = ACT_RES_SAMPLE,
			     .output = ACT_OUT_PROFILE,
			     .restores = "the sampler's hooks" },
	[ACT_SAMPLE_SNAPSHOT] = { .name = "sample_snapshot",
				  .out = ACT_RES_SAMPLE,
				  .output = ACT_OUT_PROFILE,
				  .holdless = 1 },
};

const struct act_row *act_row(enum act_kind kind)
{
	return &rows[kind];
}

const char *act_name(enum act_kind kind)
{
	return rows[kind].name;
}

enum act_output act_step_output(const struct act *a)
{
	if (a->kind == ACT_FOR_BEGIN && a->baseline)
		return ACT_OUT_PROFILE;
	return rows[a->kind].output;
}

const char *act_step_long(const struct act *a)
{
	if (a->kind == ACT_FOR_BEGIN && a->baseline)
		return "baseline dump";
	return rows[a->kind].long_call;
}

const char *act_output_option(enum act_output o)
{
	return o == ACT_OUT_RECORD ? "--recent-out" : o == ACT_OUT_PROFILE ? "--dump" : NULL;
}
