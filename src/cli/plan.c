/* SPDX-License-Identifier: BSD-2-Clause */
/* The plan: --for and --every turn the actions given into steps with waits,
 * and the steps are cut into segments (one hold each, or one wait). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan.h"

/* The combinations of --for, --every, --count, --baseline and --dump that
 * make sense. file: the (last) --dump's pattern; ndumps: how many --dump. */
static int check_timing(const struct options *o, const char *file, int ndumps, char *err,
			size_t errlen)
{
	const int dir = o->keep.dir != NULL;
	if (o->count && !o->every_us && !o->top && !o->prometheus) {
		snprintf(err, errlen, "--count goes with --every INTERVAL or --top");
		return -1;
	}
	if (o->baseline && !o->for_us) {
		snprintf(err, errlen, "--baseline goes with --for DURATION");
		return -1;
	}
	if (o->for_us && o->every_us) {
		snprintf(err, errlen, "--for and --every do not go together");
		return -1;
	}
	if (o->sample_rate && !o->sample) {
		snprintf(err, errlen, "--sample-rate goes with --sample");
		return -1;
	}
	if (o->sample && o->keep.dir) {
		snprintf(err, errlen, "--sample writes its profiles to --dump FILE (a pattern with %%n "
				      "for --every), not to a directory");
		return -1;
	}
	if (o->sample && o->every_us && !o->count) {
		/* One sampler for the series, taken out at its end: a series
		 * that ends. */
		snprintf(err, errlen, "--sample --every needs --count N (the sampler comes out "
				      "with the last snapshot)");
		return -1;
	}
	if (o->sample && ((!o->for_us && !o->every_us) || !file || o->baseline || o->recent)) {
		snprintf(err, errlen, "--sample takes a window: give --for DURATION, or --every "
				      "INTERVAL --count N, and --dump FILE (and no --baseline or --recent)");
		return -1;
	}
	if (o->recent_out && !o->recent) {
		snprintf(err, errlen, "--recent-out goes with --recent N");
		return -1;
	}
	if (o->recent && o->every_us) {
		snprintf(err, errlen, "--recent records one window: give it with --for DURATION, "
				      "not --every");
		return -1;
	}
	if (!o->for_us && !o->every_us)
		return 0;
	if (ndumps > 1) {
		snprintf(err, errlen, "--%s takes one --dump (where its profiles go)",
			 o->for_us ? "for" : "every");
		return -1;
	}
	if (o->baseline && !file) {
		snprintf(err, errlen, "--baseline needs --dump FILE (the baseline goes to FILE.base)%s",
			 dir ? ", not a directory" : "");
		return -1;
	}
	if (o->every_us && !file && !dir && !o->count) {
		/* jemalloc's automatic names carry a sequence of their own, but
		 * nothing would ever bound them */
		snprintf(err, errlen, "--every without --count runs until stopped: give it "
			 "--dump DIR/ (with --keep or --keep-bytes) or a --dump FILE pattern "
			 "with %%n or %%t, or give --count N");
		return -1;
	}
	if (o->every_us && (o->count > 1 || !o->count) && file && !o->force &&
	    !act_pattern_varies(file, o->every_us)) {
		snprintf(err, errlen,
			 "--dump %s with --every: each dump would replace the last; put %%n "
			 "(the sequence number) in the name, or give --force to keep the latest",
			 file);
		return -1;
	}
	return 0;
}

/* --for: activate (after a baseline dump to FILE.base), wait, dump to
 * FILE, put prof.active back. The baseline's pattern is FILE's with
 * ".base" appended, expanded once when the file is written. With --recent
 * N the window also keeps the record of recent allocations (taken before
 * the restores, put back in the same hold); the heap profile is then
 * written only if --dump was given. Records come only from sampled
 * allocations: the window activates profiling as --for does. */
static int expand_for(struct plan *p, const struct options *o, const char *file, int ndumps)
{
	int64_t window = o->for_us ? o->for_us : PLAN_RECENT_WINDOW_US;
	if (o->baseline) {
		size_t n = strlen(file) + sizeof(".base");
		if (!(p->baseline = malloc(n)))
			return -1;
		snprintf(p->baseline, n, "%s.base", file);
	}
	/* The record first: a jemalloc without one (5.2), or a process whose
	 * record has no bound, is refused before profiling is touched. */
	if (o->recent)
		p->steps[p->nsteps++] = (struct act){ .kind = ACT_RECENT_BEGIN, .n = o->recent };
	p->steps[p->nsteps++] = (struct act){ .kind = ACT_FOR_BEGIN, .arg = p->baseline,
					      .baseline = o->baseline };
	p->steps[p->nsteps++] = (struct act){ .kind = ACT_WAIT, .us = window };
	if (!o->recent || ndumps)
		p->steps[p->nsteps++] = (struct act){ .kind = ACT_DUMP, .arg = file,
						      .keep = o->keep.dir ? &o->keep : NULL };
	if (o->recent) {
		p->steps[p->nsteps++] = (struct act){ .kind = ACT_RECENT_DUMP, .arg = o->recent_out };
		p->steps[p->nsteps++] = (struct act){ .kind = ACT_RECENT_END };
	}
	p->steps[p->nsteps++] = (struct act){ .kind = ACT_FOR_END };
	return 0;
}

/* --sample --for D --dump FILE: the sampler put in, the window, the
 * sampler taken out and its profile written to FILE. prof.active is never
 * touched: the target may have no profiling at all. */
static void expand_sample(struct plan *p, const struct options *o, const char *file)
{
	/* --every: N snapshots INTERVAL apart, the last taken as the sampler
	 * comes out; each holds what was sampled since it went in. */
	long n = o->every_us ? o->count : 1;
	int64_t step = o->every_us ? o->every_us : o->for_us;
	/* The end's hold may wait --timeout for a thread; past that and a
	 * margin, a jeattach that has not come is taken for gone. */
	p->steps[p->nsteps++] = (struct act){ .kind = ACT_SAMPLE_BEGIN,
					      .n = (long)o->sample_rate,
					      .us = step * n,
					      .grace_us = (int64_t)(o->timeout_s * 1e6) + 10000000 };
	for (long k = 0; k < n; k++) {
		p->steps[p->nsteps++] = (struct act){ .kind = ACT_WAIT, .us = step };
		p->steps[p->nsteps++] = (struct act){
			.kind = k < n - 1 ? ACT_SAMPLE_SNAPSHOT : ACT_SAMPLE_END,
			.arg = file,
			.seq = (unsigned)k };
	}
}

/* --every INTERVAL --count N: N dumps, numbered from 0 (%n), INTERVAL
 * apart. Without --count, until stopped: a dump, then a wait and a dump
 * that main runs again and again (plan_repeat), each time numbered one
 * more. */
static void expand_every(struct plan *p, const struct options *o, const char *file)
{
	long n = o->count ? o->count : 2;
	for (long k = 0; k < n; k++) {
		if (k)
			p->steps[p->nsteps++] = (struct act){ .kind = ACT_WAIT, .us = o->every_us };
		p->steps[p->nsteps++] = (struct act){ .kind = ACT_DUMP, .arg = file,
						      .seq = (unsigned)k,
						      .keep = o->keep.dir ? &o->keep : NULL };
	}
	p->repeat = !o->count;
}

/* The steps, from the actions given and --for / --every. */
static int expand(struct plan *p, const struct options *o, char *err, size_t errlen)
{
	const char *file = NULL;
	int ndumps = 0;
	for (int i = 0; i < o->nactions; i++)
		if (o->actions[i].kind == ACT_DUMP) {
			file = o->actions[i].arg;
			ndumps++;
		}
	if (check_timing(o, file, ndumps, err, errlen))
		return -1;
	int timed = o->for_us || o->every_us || o->recent;
	p->steps = calloc((size_t)o->nactions + 8 + (size_t)(o->count ? o->count : 2) * 2,
			  sizeof(*p->steps));
	if (!p->steps)
		goto oom;
	/* Timed: the other actions first; the --dump given says where the
	 * timed profiles go. */
	for (int i = 0; i < o->nactions; i++)
		if (!timed || o->actions[i].kind != ACT_DUMP)
			p->steps[p->nsteps++] = o->actions[i];
	if (o->sample)
		expand_sample(p, o, file);
	else if ((o->for_us || o->recent) && expand_for(p, o, file, ndumps))
		goto oom;
	else if (o->every_us)
		expand_every(p, o, file);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* What each step needs beyond its action: the form of its output. */
static int shape_steps(struct plan *p, const struct options *o, char *err, size_t errlen)
{
	int ndumps = 0, nrecent = 0;
	for (int i = 0; i < p->nsteps; i++) {
		struct act *a = &p->steps[i];
		/* --stats=full in JSON form when the output is JSON. */
		if (a->kind == ACT_STATS_FULL && o->json)
			a->arg = "json";
		if (a->kind == ACT_ACTIVATE || a->kind == ACT_FOR_BEGIN)
			a->rearm = o->rearm;
		if (a->kind == ACT_FRAG) {
			a->arg = o->frag_profile;
			a->force = o->force;
		}
		p->ndumps += a->kind == ACT_DUMP;
		if (act_step_output(a) == ACT_OUT_RECORD) {
			a->force = o->force;
			nrecent++;
		}
		if (act_step_output(a) == ACT_OUT_PROFILE) {
			a->symbolize = o->symbolize;
			a->max_bytes = o->max_dump;
			a->force = o->force;
			ndumps++;
		}
	}
	int frag_files = o->nfrag_out > 0;
	if (o->symbolize && !ndumps) {
		snprintf(err, errlen, "--symbolize goes with --dump");
		return -1;
	}
	if (o->force && !ndumps && !frag_files && !nrecent) {
		snprintf(err, errlen, "--force goes with --dump, --frag-out or --recent");
		return -1;
	}
	return 0;
}

/* Cut at the waits: each wait is a segment of its own, and each run of
 * steps between waits is one hold. */
static int cut_segments(struct plan *p, char *err, size_t errlen)
{
	p->segs = calloc(p->nsteps > 0 ? (size_t)p->nsteps : 1, sizeof(*p->segs));
	if (!p->segs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < p->nsteps;) {
		struct plan_seg *s = &p->segs[p->nsegs++];
		s->first = i;
		if (p->steps[i].kind == ACT_WAIT) {
			s->kind = PLAN_WAIT;
			s->wait_us = p->steps[i].us;
			s->last = ++i;
			continue;
		}
		s->kind = PLAN_HOLD;
		while (i < p->nsteps && p->steps[i].kind != ACT_WAIT)
			i++;
		s->last = i;
	}
	return 0;
}

int plan_build(struct plan *p, const struct options *o, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	if (expand(p, o, err, errlen) || shape_steps(p, o, err, errlen) ||
	    cut_segments(p, err, errlen))
		return -1;
	/* The last wait and the dump after it are the round repeated. */
	p->repeat_seg = p->repeat ? p->nsegs - 2 : -1;
	return 0;
}

void plan_repeat(struct plan *p)
{
	for (int i = p->segs[p->repeat_seg].first; i < p->nsteps; i++)
		if (p->steps[i].kind == ACT_DUMP)
			p->steps[i].seq++;
}

void plan_free(struct plan *p)
{
	free(p->steps);
	free(p->segs);
	free(p->baseline);
	memset(p, 0, sizeof(*p));
}
