/* SPDX-License-Identifier: BSD-2-Clause */
/* An action's result: its name, made empty, its dump descriptor dropped,
 * freed. Used by the dispatcher, the actions that run others (activation's
 * look at the samples) and the CLI. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "act.h"
#include "frag.h"

const char *act_name(enum act_kind kind)
{
	static const char *const names[] = {
		"status", "activate", "deactivate", "dump", "get",   "set",
		"stats",  "stats_full", "reset", "gdump", "thread_active_init", "purge",
		"decay",  "for_begin", "for_end", "wait", "name_threads", "frag",
		"recent_begin", "recent_dump", "recent_end",
	};
	return names[kind];
}

void act_result_init(struct act_result *r, enum act_kind kind)
{
	memset(r, 0, sizeof(*r));
	r->action = act_name(kind);
	r->dump.fd = -1;
}

void act_result_drop_dump(struct act_result *r)
{
	if (r->dump.fd >= 0)
		close(r->dump.fd);
	r->dump.fd = -1;
	free(r->dump.prof_prefix);
	r->dump.prof_prefix = NULL;
}

void act_result_free(struct act_result *r)
{
	act_result_drop_dump(r);
	free(r->blob);
	r->blob = NULL;
	free(r->frag_out.text);
	r->frag_out.text = NULL;
	frag_report_free(r->frag);
	r->frag = NULL;
	free(r->recent);
	r->recent = NULL;
	free(r->f);
	r->f = NULL;
	r->nf = r->capf = 0;
}
