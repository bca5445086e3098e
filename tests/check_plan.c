/* SPDX-License-Identifier: BSD-2-Clause */
/* The plan: steps and segments for plain actions, --for (with --baseline)
 * and --every, and the combinations refused before any target. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <string.h>
#include "act.h"
#include "options.h"
#include "plan.h"

static struct options o;
static struct plan p;
static char err[512];

/* Parse, then build the plan: 0, or -1 with err set by either. */
static int build(const char *const *args)
{
	char *argv[32];
	int argc = check_argv(args, argv);
	err[0] = 0;
	plan_free(&p);
	options_free(&o);
	if (options_parse(argc, argv, &o, err, sizeof(err)))
		return -1;
	return plan_build(&p, &o, err, sizeof(err));
}

#define BUILD(...) build((const char *const[]){ __VA_ARGS__, NULL })

static void assert_seg(int i, enum plan_seg_kind kind, int first, int last)
{
	ck_assert_int_eq(p.segs[i].kind, kind);
	ck_assert_int_eq(p.segs[i].first, first);
	ck_assert_int_eq(p.segs[i].last, last);
}

START_TEST(plain_actions_one_hold)
{
	ck_assert_int_eq(BUILD("-p", "1", "--status", "--dump", "x.heap", "--stats=full", "--json"),
			 0);
	ck_assert_int_eq(p.nsteps, 3);
	ck_assert_int_eq(p.steps[0].kind, ACT_STATUS);
	ck_assert_int_eq(p.steps[1].kind, ACT_DUMP);
	ck_assert_str_eq(p.steps[1].arg, "x.heap");
	ck_assert_int_eq(p.steps[2].kind, ACT_STATS_FULL);
	ck_assert_str_eq(p.steps[2].arg, "json"); /* its JSON form, for --json */
	ck_assert_int_eq(p.nsegs, 1);
	assert_seg(0, PLAN_HOLD, 0, 3);
	ck_assert_int_eq(BUILD("-p", "1", "--stats=full"), 0);
	ck_assert_ptr_null(p.steps[0].arg);
}
END_TEST

START_TEST(for_with_baseline)
{
	ck_assert_int_eq(BUILD("-p", "1", "--dump", "x.%p.heap", "--status", "--for", "2s",
			       "--baseline", "--symbolize"),
			 0);
	/* The other actions first, then the timed profile around one wait. */
	ck_assert_int_eq(p.nsteps, 5);
	ck_assert_int_eq(p.steps[0].kind, ACT_STATUS);
	ck_assert_int_eq(p.steps[1].kind, ACT_FOR_BEGIN);
	ck_assert_int_eq(p.steps[1].baseline, 1);
	ck_assert_str_eq(p.steps[1].arg, "x.%p.heap.base"); /* named by the plan */
	ck_assert_int_eq(p.steps[1].symbolize, 1);
	ck_assert_int_eq(p.steps[2].kind, ACT_WAIT);
	ck_assert_int_eq(p.steps[2].us, 2000000);
	ck_assert_int_eq(p.steps[3].kind, ACT_DUMP);
	ck_assert_str_eq(p.steps[3].arg, "x.%p.heap");
	ck_assert_int_eq(p.steps[3].symbolize, 1);
	ck_assert_int_eq(p.steps[4].kind, ACT_FOR_END);
	ck_assert_int_eq(p.nsegs, 3);
	assert_seg(0, PLAN_HOLD, 0, 2);
	assert_seg(1, PLAN_WAIT, 2, 3);
	ck_assert_int_eq(p.segs[1].wait_us, 2000000);
	assert_seg(2, PLAN_HOLD, 3, 5);
	/* Without --baseline the start dumps nothing; no --dump: an automatic name. */
	ck_assert_int_eq(BUILD("-p", "1", "--for", "500ms"), 0);
	ck_assert_int_eq(p.nsteps, 4);
	ck_assert_int_eq(p.steps[0].baseline, 0);
	ck_assert_ptr_null(p.steps[0].arg);
	ck_assert_ptr_null(p.steps[2].arg);
	ck_assert_int_eq(p.steps[2].symbolize, 0);
}
END_TEST

START_TEST(every_count)
{
	ck_assert_int_eq(BUILD("-p", "1", "--every", "1s", "--count", "3", "--dump", "a.%n.heap",
			       "--activate"),
			 0);
	ck_assert_int_eq(p.nsteps, 6);
	ck_assert_int_eq(p.steps[0].kind, ACT_ACTIVATE);
	for (int k = 0; k < 3; k++) {
		const struct act *d = &p.steps[1 + 2 * k];
		ck_assert_int_eq(d->kind, ACT_DUMP);
		ck_assert_str_eq(d->arg, "a.%n.heap");
		ck_assert_uint_eq(d->seq, (unsigned)k);
	}
	ck_assert_int_eq(p.nsegs, 5);
	assert_seg(0, PLAN_HOLD, 0, 2);
	assert_seg(1, PLAN_WAIT, 2, 3);
	assert_seg(2, PLAN_HOLD, 3, 4);
	assert_seg(3, PLAN_WAIT, 4, 5);
	assert_seg(4, PLAN_HOLD, 5, 6);
	ck_assert_int_eq(p.segs[3].wait_us, 1000000);
	/* One dump needs no %n. */
	ck_assert_int_eq(BUILD("-p", "1", "--every", "1s", "--count", "1", "--dump", "a.heap"), 0);
	ck_assert_int_eq(p.nsegs, 1);
}
END_TEST

/* --every without --count: a dump, then a wait and a dump that main
 * repeats; each round numbers its dump one more. With a count, no repeat. */
START_TEST(every_until_stopped)
{
	ck_assert_int_eq(BUILD("-p", "1,2", "--every", "1s", "--dump", "d/", "--keep", "3"), 0);
	ck_assert_int_eq(p.repeat, 1);
	ck_assert_int_eq(p.nsegs, 3);
	ck_assert_int_eq(p.repeat_seg, 1);
	assert_seg(1, PLAN_WAIT, 1, 2);
	assert_seg(2, PLAN_HOLD, 2, 3);
	ck_assert_int_eq(p.steps[2].kind, ACT_DUMP);
	ck_assert_ptr_null(p.steps[2].arg);
	ck_assert_ptr_eq(p.steps[2].keep, &o.keep);
	ck_assert_uint_eq(p.steps[0].seq, 0);
	ck_assert_uint_eq(p.steps[2].seq, 1);
	plan_repeat(&p);
	plan_repeat(&p);
	ck_assert_uint_eq(p.steps[0].seq, 0);
	ck_assert_uint_eq(p.steps[2].seq, 3);
	ck_assert_int_eq(BUILD("-p", "1", "--every", "1s", "--dump", "x.%n.heap"), 0);
	ck_assert_int_eq(p.repeat, 1);
	ck_assert_int_eq(BUILD("-p", "1", "--every", "1s", "--count", "2", "--dump", "d/"), 0);
	ck_assert_int_eq(p.repeat, 0);
	ck_assert_int_eq(p.repeat_seg, -1);
	ck_assert_ptr_eq(p.steps[2].keep, &o.keep);
	/* A plain dump and --for's into a directory carry it too. */
	ck_assert_int_eq(BUILD("-p", "1", "--for", "1s", "--dump", "d/"), 0);
	for (int i = 0; i < p.nsteps; i++)
		if (p.steps[i].kind == ACT_DUMP)
			ck_assert_ptr_eq(p.steps[i].keep, &o.keep);
}
END_TEST

START_TEST(refusals)
{
	static const struct {
		const char *args[8];
		const char *msg;
	} cases[] = {
		{ { "--count", "2", "--status" }, "--count goes with --every INTERVAL" },
		{ { "--baseline", "--dump", "x", "--status" }, "--baseline goes with --for" },
		{ { "--for", "1s", "--every", "1s", "--count", "2" }, "--for and --every do not" },
		{ { "--for", "1s", "--dump", "a", "--dump", "b" }, "--for takes one --dump" },
		{ { "--every", "1s", "--count", "2", "--dump", "a%n", "--dump" }, "--every takes" },
		{ { "--for", "1s", "--baseline" }, "--baseline needs --dump FILE" },
		{ { "--every", "1s", "--status" }, "--every without --count runs until stopped" },
		{ { "--every", "1s", "--dump", "a" }, "each dump would replace the last" },
		{ { "--every", "1s", "--count", "2", "--dump", "a" }, "put %n" },
		{ { "--for", "1s", "--baseline", "--dump", "d/" }, "not a directory" },
		{ { "--status", "--symbolize" }, "--symbolize goes with --dump" },
		{ { "--frag", "--force" }, "--force goes with --dump, --frag-out or --recent" },
		{ { "--status", "--recent-out", "r.json" }, "--recent-out goes with --recent N" },
		{ { "--recent", "5", "--every", "1s", "--count", "2" }, "not --every" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[12] = { "-p", "1" };
		int n = 2;
		for (int k = 0; cases[i].args[k]; k++)
			args[n++] = cases[i].args[k];
		args[n] = NULL;
		ck_assert_int_eq(build(args), -1);
		ck_assert_msg(strstr(err, cases[i].msg), "case %zu: '%s'", i, err);
	}
}
END_TEST

/* --frag's step carries its profile and --force (for --frag-out). */
START_TEST(frag_step)
{
	const char *args[] = { "-p", "1", "--frag", "--frag-out", "f.svg", "--force",
			       "--frag-profile", "x.heap", NULL };
	ck_assert_int_eq(build(args), 0);
	ck_assert_int_eq(p.nsteps, 1);
	ck_assert_int_eq(p.steps[0].kind, ACT_FRAG);
	ck_assert_str_eq(p.steps[0].arg, "x.heap");
	ck_assert_int_eq(p.steps[0].force, 1);
	ck_assert_int_eq(p.nsegs, 1);
}
END_TEST

/* --recent: the window of --for (10 s without it) around the record's
 * steps; the heap profile only with --dump; the record before the
 * restores, its own put back first. */
START_TEST(recent_steps)
{
	ck_assert_int_eq(BUILD("-p", "1", "--recent", "5", "--recent-out", "r.json", "--force"), 0);
	static const enum act_kind want[] = { ACT_RECENT_BEGIN, ACT_FOR_BEGIN, ACT_WAIT,
					      ACT_RECENT_DUMP, ACT_RECENT_END, ACT_FOR_END };
	ck_assert_int_eq(p.nsteps, 6);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(p.steps[i].kind, want[i]);
	ck_assert_int_eq(p.steps[0].n, 5);
	ck_assert_int_eq(p.steps[2].us, PLAN_RECENT_WINDOW_US);
	ck_assert_str_eq(p.steps[3].arg, "r.json");
	ck_assert_int_eq(p.steps[3].force, 1);
	ck_assert_int_eq(p.nsegs, 3);
	assert_seg(0, PLAN_HOLD, 0, 2);
	assert_seg(1, PLAN_WAIT, 2, 3);
	assert_seg(2, PLAN_HOLD, 3, 6);
	ck_assert_int_eq(BUILD("-p", "1", "--recent", "5", "--for", "2s", "--dump", "x.heap"), 0);
	ck_assert_int_eq(p.nsteps, 7);
	ck_assert_int_eq(p.steps[2].us, 2000000);
	ck_assert_int_eq(p.steps[3].kind, ACT_DUMP);
	ck_assert_str_eq(p.steps[3].arg, "x.heap");
	ck_assert_int_eq(p.steps[4].kind, ACT_RECENT_DUMP);
	ck_assert_ptr_null(p.steps[4].arg); /* an automatic name */
}
END_TEST

/* The record of recent allocations as jeattach keeps it: jemalloc's three
 * keys, each once; a thread name jemalloc wrote unescaped must not add
 * one (nor a string or a nested object that looks like one). A record
 * whose thread name, as a string, holds what looks like a key. */
#define REC "{\"size\":1,\"alloc_thread_name\":\"a\\\"}{\\\"size\\\":\"}"
#define KEYS "\"sample_interval\":1,\"recent_alloc_max\":2"

START_TEST(recent_keys)
{
	static const struct {
		const char *json;
		int e;
		uint64_t records;
	} cases[] = {
		{ "{" KEYS ",\"recent_alloc\":[]}", 0, 0 },
		{ "{" KEYS ",\"recent_alloc\":[" REC "," REC "]}", 0, 2 },
		{ "{\"recent_alloc\":[" REC "],\"recent_alloc_max\":2,\"sample_interval\":1}", 0, 1 },
		{ "{" KEYS "}", -EINVAL, 0 },
		{ "{" KEYS ",\"recent_alloc\":[],\"jeattach\":{}}", -EINVAL, 0 },
		{ "{" KEYS ",\"recent_alloc\":[],\"recent_alloc\":[]}", -EINVAL, 0 },
		{ "{\"sample_interval\":1,\"recent_alloc_max\":{\"recent_alloc\":[]}}", -EINVAL, 0 },
		{ "[\"sample_interval\",\"recent_alloc_max\",\"recent_alloc\"]", -EINVAL, 0 },
		{ "{" KEYS ",\"recent_alloc\":[" REC, -EINVAL, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t n = 99;
		ck_assert_msg(act_recent_keys(cases[i].json, &n) == cases[i].e, "%s", cases[i].json);
		if (!cases[i].e)
			ck_assert_uint_eq(n, cases[i].records);
	}
}
END_TEST

static void free_all(void)
{
	plan_free(&p);
	options_free(&o);
}

/* The action table (act_rows.c): a row for every kind, and what the
 * command line reads from it agrees with what each step does. */
START_TEST(action_rows)
{
	for (int k = ACT_STATUS; k <= ACT_RECENT_END; k++) {
		const struct act_row *r = act_row((enum act_kind)k);
		ck_assert_ptr_nonnull(r->name);
		/* A file written comes from the output the result carries. */
		if (r->output == ACT_OUT_PROFILE)
			ck_assert_int_eq(r->out, ACT_RES_DUMP);
		if (r->output == ACT_OUT_RECORD)
			ck_assert_int_eq(r->out, ACT_RES_RECENT);
		for (int j = ACT_STATUS; j < k; j++)
			ck_assert_str_ne(act_row((enum act_kind)j)->name, r->name);
	}
	/* --for's beginning writes a profile only with --baseline. */
	ck_assert_int_eq(BUILD("-p", "1", "--for", "1s", "--baseline", "--dump", "f.heap"), 0);
	ck_assert_int_eq(p.steps[0].kind, ACT_FOR_BEGIN);
	ck_assert_int_eq(act_step_output(&p.steps[0]), ACT_OUT_PROFILE);
	ck_assert_str_eq(act_output_option(act_step_output(&p.steps[0])), "--dump");
	ck_assert_ptr_nonnull(act_row(p.steps[p.nsteps - 1].kind)->restores);
	ck_assert_int_eq(BUILD("-p", "1", "--for", "1s"), 0);
	ck_assert_int_eq(act_step_output(&p.steps[0]), ACT_OUT_NONE);
	/* A result carries the output its row names, and only that one. */
	struct act_result r;
	act_result_init(&r, ACT_DUMP);
	ck_assert_int_eq(act_result_out_kind(&r), ACT_RES_DUMP);
	ck_assert_int_eq(r.out.dump.fd, -1);
	act_result_free(&r);
	act_result_init(&r, ACT_STATS_FULL);
	ck_assert_int_eq(act_result_out_kind(&r), ACT_RES_FULL);
	act_result_drop_dump(&r); /* not a dump: nothing to drop, nothing closed */
	ck_assert_ptr_null(r.out.full.text);
	act_result_free(&r);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("build");
	tcase_add_checked_fixture(tc, NULL, free_all);
	tcase_add_test(tc, plain_actions_one_hold);
	tcase_add_test(tc, for_with_baseline);
	tcase_add_test(tc, every_count);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, every_until_stopped);
	tcase_add_test(tc, frag_step);
	tcase_add_test(tc, recent_steps);
	tcase_add_test(tc, recent_keys);
	tcase_add_test(tc, action_rows);
	suite_add_tcase(s, tc);
	return check_run(s);
}
