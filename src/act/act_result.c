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

static void free_text(char **p)
{
	free(*p);
	*p = NULL;
}

void act_result_init(struct act_result *r, enum act_kind kind)
{
	memset(r, 0, sizeof(*r));
	r->action = act_name(kind);
	r->kind = kind;
	if (act_result_out_kind(r) == ACT_RES_DUMP)
		r->out.dump.fd = -1;
}

enum act_out_kind act_result_out_kind(const struct act_result *r)
{
	return act_row(r->kind)->out;
}

void act_result_drop_dump(struct act_result *r)
{
	if (act_result_out_kind(r) != ACT_RES_DUMP)
		return;
	if (r->out.dump.fd >= 0)
		close(r->out.dump.fd);
	r->out.dump.fd = -1;
	free_text(&r->out.dump.prof_prefix);
	/* Its children were looked at after the release (act_dump_children). */
	r->out.dump.pipe_ino = 0;
}

void act_result_free(struct act_result *r)
{
	switch (act_result_out_kind(r)) {
	case ACT_RES_DUMP:
		act_result_drop_dump(r);
		for (size_t i = 0; i < r->out.dump.nremoved; i++)
			free(r->out.dump.removed[i]);
		free(r->out.dump.removed);
		r->out.dump.removed = NULL;
		r->out.dump.nremoved = 0;
		break;
	case ACT_RES_FULL:
		free_text(&r->out.full.text);
		break;
	case ACT_RES_FRAG:
		free_text(&r->out.frag.text);
		frag_report_free(r->out.frag.report);
		r->out.frag.report = NULL;
		break;
	case ACT_RES_RECENT:
		free_text(&r->out.recent.json);
		break;
	case ACT_RES_SAMPLE:
		free(r->out.sample.v);
		r->out.sample.v = NULL;
		r->out.sample.n = 0;
		break;
	case ACT_RES_FIELDS:
		break;
	}
	free(r->f);
	r->f = NULL;
	r->nf = r->capf = 0;
}
