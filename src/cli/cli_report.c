/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_frag.h"
#include "cli_progress.h"
#include "cli_report.h"
#include "cli_top.h"
#include "core_json.h"
#include "core_text.h"
#include "rcall.h"

/* Messages name what the target chose (its paths, its comm, its prefix):
 * no control byte of it reaches the terminal. */
void cli_report_error(const struct cli_run *run)
{
	char safe[sizeof(run->msg) * 4];
	core_text_escape(run->msg, safe, sizeof(safe));
	fprintf(stderr, "jeattach: %d: %s\n", (int)run->pid, safe);
}

/* One step's result. A field named "verdict" (--status's answer) is said
 * on the step's first line; a count of bytes is in human units on a
 * terminal (as --top and --frag show them), in bytes elsewhere. */
static void step_text(FILE *out, const struct cli_run *run, const struct act_result *r,
		      const char *comm)
{
	char buf[4200 * 4], safe[sizeof(buf) * 4];
	const int human = isatty(fileno(out));
	const struct rctl_value *vf = act_field_find(r, "verdict");
	const char *verdict = vf && vf->type == RCTL_STRING && !vf->is_null ? vf->s : NULL;
	if (verdict)
		core_text_escape(verdict, safe, sizeof(safe));
	fprintf(out, "%d (%s) %s%s%s\n", (int)run->pid, comm, r->action, verdict ? ": " : "",
		verdict ? safe : "");
	for (size_t k = 0; k < r->nf; k++) {
		if (verdict && !strcmp(r->f[k].key, "verdict"))
			continue;
		if (human && r->f[k].bytes)
			cli_top_bytes((double)r->f[k].v.u, buf, sizeof(buf));
		else
			rctl_format(&r->f[k].v, 0, buf, sizeof(buf));
		fprintf(out, "  %-24s %s\n", r->f[k].key, buf);
	}
}

void cli_report_steps(FILE *out, struct cli_run *run, int upto)
{
	char comm[sizeof(target_get_info(run->t)->comm) * 4];
	core_text_escape(target_get_info(run->t)->comm, comm, sizeof(comm));
	for (; run->told < upto && run->told < run->nsteps; run->told++) {
		const struct act_result *r = &run->res[run->told];
		if (r->skipped || !r->ran || r->code != JA_EXIT_OK)
			continue; /* skipped: one line for all (skipped_line) */
		step_text(out, run, r, comm);
		const enum act_out_kind ok = act_result_out_kind(r);
		if (ok == ACT_RES_FULL && r->out.full.text) /* jemalloc's own report, escaped */
			core_text_put_lines(out, r->out.full.text);
		if (ok == ACT_RES_FRAG && r->out.frag.report)
			cli_frag_text(out, r, (int)run->pid);
		if (r->warning[0])
			fprintf(stderr, "jeattach: %d: warning: %s\n", (int)run->pid, r->warning);
	}
	fflush(out);
}

static const char *sig_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* After an interruption, one line for what was done and what not: each
 * action (waits aside) that lost steps, "--dump: 2 of 10 done, 8 skipped". */
static void skipped_line(const struct cli_run *run)
{
	char line[1024];
	size_t n = 0;
	if (run->plan->repeat) { /* a series until stopped: the whole count */
		long done = run->rounds_dumped;
		for (int i = 0; i < run->nsteps; i++)
			done += run->res[i].kind == ACT_DUMP && run->res[i].ran &&
				run->res[i].code == JA_EXIT_OK;
		if (run->skipped_by)
			fprintf(stderr, "jeattach: %d: stopped by %s after %ld dump%s\n", (int)run->pid,
				sig_name(run->skipped_by), done, done == 1 ? "" : "s");
		return;
	}
	for (int i = 0; i < run->nsteps; i++) {
		const struct act_result *r = &run->res[i];
		int first = 1, total = 0, done = 0, skipped = 0;
		for (int k = 0; k < i && first; k++) /* each action once, where it first is */
			first = strcmp(run->res[k].action, r->action) != 0;
		if (!first || run->plan->steps[i].kind == ACT_WAIT)
			continue;
		for (int k = i; k < run->nsteps; k++) {
			const struct act_result *x = &run->res[k];
			if (strcmp(x->action, r->action))
				continue;
			total++;
			skipped += x->skipped;
			done += x->ran && x->code == JA_EXIT_OK;
		}
		if (skipped && n < sizeof(line))
			n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s: %d of %d done, %d skipped",
					      n ? "; " : "", r->action, done, total, skipped);
	}
	if (!n)
		return;
	fprintf(stderr, "jeattach: %d: interrupted by %s: %s\n", (int)run->pid,
		sig_name(run->skipped_by), line);
}

void cli_report_text(FILE *out, const struct options *o, struct cli_run *run)
{
	cli_report_steps(out, run, run->nsteps);
	skipped_line(run);
	if (o->verbose) {
		struct rcall_timing tm;
		rcall_timing(run->t, &tm);
		fprintf(stderr,
			"jeattach: %d: held %d time(s), longest %" PRId64 " us, total %" PRId64
			" us; wall %" PRId64 " us\n",
			(int)run->pid, tm.holds, tm.us_max, tm.us_total, run->wall_us);
	}
}

static void json_fields(FILE *out, const struct act_result *r)
{
	char buf[9000];
	for (size_t k = 0; k < r->nf; k++) {
		fputc(',', out);
		core_json_put_string(out, r->f[k].key);
		rctl_format(&r->f[k].v, 1, buf, sizeof(buf));
		fprintf(out, ":%s", buf);
	}
}

void cli_report_json(FILE *out, const struct cli_run *run)
{
	static const struct target_info none;
	const struct target_info *in = run->t ? target_get_info(run->t) : &none;
	/* pid 0: a failure before any target (cli_report_json_run_failed). */
	if (run->pid) {
		fprintf(out, "{\"pid\":%d,\"ns_pid\":%d,\"comm\":", (int)run->pid, (int)in->ns_pid);
		core_json_put_string(out, in->comm);
	} else {
		fputs("{\"pid\":null,\"ns_pid\":null,\"comm\":null", out);
	}
	fprintf(out, ",\"ok\":%s,\"exit_code\":%d,\"error\":", run->code ? "false" : "true",
		(int)run->code);
	if (run->code)
		core_json_put_string(out, run->msg);
	else
		fputs("null", out);
	fputs(",\"jemalloc\":", out);
	if (run->located) {
		const struct sym_jemalloc *je = target_jemalloc(run->t);
		fputs("{\"object\":", out);
		core_json_put_string(out, je->object);
		fputs(",\"symbol_prefix\":", out);
		core_json_put_string(out, je->prefix);
		fprintf(out, ",\"static\":%s,\"deleted\":%s}", je->is_main_executable ? "true" : "false",
			je->object_deleted ? "true" : "false");
	} else {
		fputs("null", out);
	}
	fputs(",\"actions\":[", out);
	int n = 0;
	for (int i = 0; i < run->nsteps; i++) {
		const struct act_result *r = &run->res[i];
		if (!r->ran && !r->skipped)
			continue;
		fprintf(out, "%s{\"action\":\"%s\",\"ok\":%s,\"error\":", n++ ? "," : "", r->action,
			r->code || r->skipped ? "false" : "true");
		if (r->code)
			core_json_put_string(out, r->msg);
		else
			fputs("null", out);
		if (r->skipped)
			fputs(",\"skipped\":true", out);
		if (r->warning[0]) {
			fputs(",\"warnings\":[", out);
			core_json_put_string(out, r->warning);
			fputc(']', out);
		}
		json_fields(out, r);
		const enum act_out_kind ok = act_result_out_kind(r);
		if (ok == ACT_RES_DUMP && act_field_find(r, "removed")) {
			fputs(",\"removed_files\":", out);
			cli_progress_json_paths(out, r->out.dump.removed, r->out.dump.nremoved);
		}
		const struct act_full_out *full = ok == ACT_RES_FULL ? &r->out.full : NULL;
		if (full && full->text && full->json)
			fprintf(out, ",\"stats\":%s", full->text); /* jemalloc's JSON, compacted */
		else if (full && full->text)
			fputs(",\"stats\":", out), core_json_put_string(out, full->text);
		if (ok == ACT_RES_FRAG && r->out.frag.report) {
			fputs(",\"frag\":", out);
			cli_frag_json(out, r);
		}
		fputc('}', out);
	}
	fputs("],\"held\":[", out);
	for (int i = 0; i < run->nheld; i++) {
		const struct rcall_hold_info *h = &run->held[i];
		fprintf(out, "%s{\"tid\":%d,\"comm\":", i ? "," : "", (int)h->tid);
		core_json_put_string(out, h->comm);
		fprintf(out, ",\"state\":\"%s\",\"rank\":%d,\"candidates\":%d}",
			rcall_cost_name(h->cost), h->rank, h->candidates);
	}
	struct rcall_timing tm = { 0 };
	int found = 0, removed = 0, left = 0;
	if (run->t) {
		rcall_timing(run->t, &tm);
		rcall_scratch_leftovers(run->t, &found, &removed, &left);
	}
	fputc(']', out);
	if (found)
		fprintf(out, ",\"scratch_leftovers\":{\"found\":%d,\"removed\":%d,\"left\":%d}",
			found, removed, left);
	fprintf(out,
		",\"crash_safe\":%s,\"holds\":%d,\"hold_us_max\":%" PRId64
		",\"hold_us_total\":%" PRId64 ",\"wall_us\":%" PRId64 "}\n",
		tm.crash_safe_holds == tm.holds && tm.holds ? "true" : "false", tm.holds, tm.us_max,
		tm.us_total, run->wall_us);
}

void cli_report_json_run_failed(FILE *out, enum ja_exit code, const char *msg, int64_t wall_us)
{
	struct cli_run *run = calloc(1, sizeof(*run));
	if (!run)
		return;
	run->code = code;
	snprintf(run->msg, sizeof(run->msg), "%s", msg);
	run->wall_us = wall_us;
	cli_report_json(out, run);
	free(run);
}
