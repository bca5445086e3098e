/* SPDX-License-Identifier: BSD-2-Clause */
/* --frag's analysis on reports written here and on one saved from
 * Debian's redis-server (jemalloc 5.3.0) driven into fragmentation:
 * the arithmetic of frag.h, the ranking, the advice, the refusals
 * (libcore's JSON tree they are read with: check_json.c). */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "frag.h"

/* A report with two bins, two large classes, chosen figures:
 * bin 0: 16 B x 256 per 4096 B slab, 100 live in 2 slabs  -> 412 free regions
 * bin 1: 48 B x 85 per 4096 B slab (16 B tail), 10 live in 1 slab -> 75 free
 * large: 16384 B x 3 live, 20480 B x 0
 * allocated = 100*16 + 10*48 + 3*16384 = 51232
 * free      = 412*16 + 75*48 = 10192; tails = 16; pad = 3 * 4096 = 12288
 * active    = 73728 = 18 pages; dirty 5 pages; base 8192 */
static const char small_report[] =
	"{\"jemalloc\":{\"version\":\"5.3.0-test\",\"opt\":{\"cache_oblivious\":true,"
	"\"background_thread\":false},\"arenas\":{\"page\":4096,\"dirty_decay_ms\":10000,"
	"\"muzzy_decay_ms\":0,\"bin\":[{\"size\":16,\"nregs\":256,\"slab_size\":4096},"
	"{\"size\":48,\"nregs\":85,\"slab_size\":4096}],\"lextent\":[{\"size\":16384},"
	"{\"size\":20480}]},\"stats\":{\"allocated\":51232,\"active\":73728,\"metadata\":9000,"
	"\"resident\":%llu,\"mapped\":200000,\"retained\":4096,\"background_thread\":"
	"{\"num_threads\":0}},\"stats.arenas\":{\"merged\":{\"pactive\":18,\"pdirty\":%llu,"
	"\"pmuzzy\":0,\"base\":8192,\"internal\":808,\"tcache_bytes\":32,\"bins\":["
	"{\"curregs\":100,\"curslabs\":2,\"nonfull_slabs\":1%s},"
	"{\"curregs\":10,\"curslabs\":1,\"nonfull_slabs\":1%s}],"
	"\"lextents\":[{\"curlextents\":3},{\"curlextents\":0}]}}}}";

static struct frag_report *build(unsigned long long pdirty, const char *prof0, const char *prof1)
{
	char text[4096], why[300] = "";
	unsigned long long resident = 73728 + pdirty * 4096 + 8192;
	snprintf(text, sizeof(text), small_report, resident, pdirty, prof0, prof1);
	struct frag_stats st;
	ck_assert_msg(frag_stats_read(text, strlen(text), &st, why, sizeof(why)) == 0, "%s", why);
	struct frag_report *r;
	ck_assert_int_eq(frag_report_build(&st, &r), 0);
	return r;
}

static int has_advice(const struct frag_report *r, enum frag_advice_kind k)
{
	for (size_t i = 0; i < r->nadvice; i++)
		if (r->advice[i].kind == k)
			return 1;
	return 0;
}

START_TEST(arithmetic)
{
	struct frag_report *r = build(5, "", "");
	ck_assert_uint_eq(r->cat[FRAG_ALLOCATED], 51232);
	ck_assert_uint_eq(r->cat[FRAG_BIN_FREE], 10192);
	ck_assert_uint_eq(r->cat[FRAG_SLAB_TAIL], 16);
	ck_assert_uint_eq(r->cat[FRAG_LARGE_PAD], 12288);
	ck_assert_uint_eq(r->cat[FRAG_DIRTY], 5 * 4096);
	ck_assert_uint_eq(r->cat[FRAG_METADATA], 8192);
	ck_assert_int_eq(r->active_gap, 0); /* the figures of frag.h add up to active */
	ck_assert_uint_eq(r->sum, r->st.resident);
	ck_assert_int_eq(r->unexplained, 0);
	ck_assert_uint_eq(r->st.large_extents, 3);
	ck_assert_uint_eq(r->st.tcache_bytes, 32);
	/* ranking: bin 0 wastes 6592 B, bin 1 75*48 + 16 = 3616 B */
	ck_assert_uint_eq(r->nclasses, 2);
	ck_assert_uint_eq(r->classes[0].bin->index, 0);
	ck_assert_uint_eq(r->classes[0].wasted, 412 * 16);
	ck_assert_uint_eq(r->classes[1].wasted, 75 * 48 + 16);
	ck_assert(r->classes[1].req_frag < 0); /* no prof_stats in this report */
	ck_assert_int_eq(r->st.prof_stats, 0);
	/* too small to advise anything (under 1 MiB) */
	ck_assert_uint_eq(r->nadvice, 0);
	frag_report_free(r);
}
END_TEST

START_TEST(advice_dirty)
{
	/* 100 MiB dirty, no background thread: purge and background advice */
	struct frag_report *r = build(25600, "", "");
	ck_assert(has_advice(r, FRAG_ADV_PURGE));
	ck_assert(has_advice(r, FRAG_ADV_BACKGROUND));
	ck_assert(!has_advice(r, FRAG_ADV_SMALL));
	ck_assert(strstr(r->advice[0].text, "--purge") != NULL);
	frag_report_free(r);
}
END_TEST

START_TEST(prof_stats)
{
	/* bin 0: 4 sampled objects asked for 40 B of 64 usable: 37.5% unrequested */
	struct frag_report *r = build(0, ",\"prof_live_requested\":40,\"prof_live_count\":4",
				      ",\"prof_live_requested\":0,\"prof_live_count\":0");
	ck_assert_int_eq(r->st.prof_stats, 1);
	const struct frag_class *c = r->classes[0].bin->index == 0 ? &r->classes[0] : &r->classes[1];
	ck_assert(c->req_frag > 0.374 && c->req_frag < 0.376);
	ck_assert_int_eq(c->req_waste, (int64_t)(0.375 * 1600));
	/* the 4 sampled objects each sit in a 16 KiB extent and its pad page */
	ck_assert_uint_eq(r->promoted_objects, 4);
	ck_assert_uint_eq(r->promoted_bytes, 4 * (16384 + 4096));
	frag_report_free(r);
}
END_TEST

/* Rounding up, from opt.prof_stats: the 16 KiB class's 5 extents hold the
 * 2 promoted sampled small objects, left out: 3 x 16384 x (1 - 30000 /
 * 32768) = 4152; 4 x 20480 x (1 - 40000 / 40960) = 1920; the bin: 100 x
 * 16 x (1 - 20 / 32) = 600. */
START_TEST(unrequested)
{
	static const char text[] =
		"{\"jemalloc\":{\"version\":\"5.3.0-test\",\"arenas\":{\"page\":4096,"
		"\"bin\":[{\"size\":16,\"nregs\":256,\"slab_size\":4096}],\"lextent\":["
		"{\"size\":16384},{\"size\":20480}]},\"stats\":{\"allocated\":165120,"
		"\"active\":0,\"metadata\":0,\"resident\":0,\"mapped\":0,\"retained\":0},"
		"\"stats.arenas\":{\"merged\":{\"pactive\":0,\"pdirty\":0,\"pmuzzy\":0,"
		"\"base\":0,\"bins\":[{\"curregs\":100,\"curslabs\":1,"
		"\"prof_live_requested\":20,\"prof_live_count\":2}],\"lextents\":["
		"{\"curlextents\":5,\"prof_live_requested\":30000,\"prof_live_count\":2},"
		"{\"curlextents\":4,\"prof_live_requested\":40000,\"prof_live_count\":2}]}}}}";
	char why[300] = "";
	struct frag_stats st;
	ck_assert_msg(frag_stats_read(text, strlen(text), &st, why, sizeof(why)) == 0, "%s", why);
	struct frag_report *r;
	ck_assert_int_eq(frag_report_build(&st, &r), 0);
	ck_assert_int_eq(r->unrequested_small, 600);
	ck_assert_int_eq(r->unrequested_large, 4152 + 1920);
	ck_assert_uint_eq(r->promoted_objects, 2);
	frag_report_free(r);
	/* without prof_stats: unknown, not 0 */
	r = build(0, "", "");
	ck_assert_int_eq(r->unrequested_small, -1);
	ck_assert_int_eq(r->unrequested_large, -1);
	frag_report_free(r);
}
END_TEST

START_TEST(class_of)
{
	struct frag_report *r = build(0, "", "");
	ck_assert_int_eq(frag_class_of(&r->st, 1), 0);
	ck_assert_int_eq(frag_class_of(&r->st, 16), 0);
	ck_assert_int_eq(frag_class_of(&r->st, 16.5), 1);
	ck_assert_int_eq(frag_class_of(&r->st, 48), 1);
	ck_assert_int_eq(frag_class_of(&r->st, 49), -1);
	frag_report_free(r);
}
END_TEST

/* The report of a fragmented redis-server (tests/frag/redis-5.3.0.json:
 * --stats=full's JSON with the per-arena and mutex parts removed). Its
 * figures, added up by hand from the file: allocated 63799232, free
 * regions 78430272, 1848 large extents, pdirty 115646, base 10413840. */
START_TEST(saved_redis)
{
	char path[4096], why[300] = "";
	const char *top = getenv("top_srcdir");
	snprintf(path, sizeof(path), "%s/tests/frag/redis-5.3.0.json", top ? top : ".");
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s", path);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	struct frag_stats st;
	ck_assert_msg(frag_stats_read(text, n, &st, why, sizeof(why)) == 0, "%s", why);
	struct frag_report *r;
	ck_assert_int_eq(frag_report_build(&st, &r), 0);
	ck_assert_uint_eq(r->cat[FRAG_ALLOCATED], 63799232);
	ck_assert_uint_eq(r->cat[FRAG_BIN_FREE], 78430272);
	ck_assert_uint_eq(r->cat[FRAG_LARGE_PAD], 1848 * 4096);
	ck_assert_uint_eq(r->cat[FRAG_DIRTY], 115646ULL * 4096);
	ck_assert_int_eq(r->active_gap, 0);
	ck_assert_int_eq(r->unexplained, 6384); /* the base's unused page tails */
	ck_assert_uint_eq(r->classes[0].bin->size, 1536);
	ck_assert(has_advice(r, FRAG_ADV_PURGE));
	ck_assert(!has_advice(r, FRAG_ADV_BACKGROUND)); /* redis runs two */
	ck_assert(has_advice(r, FRAG_ADV_SMALL));
	frag_report_free(r);
}
END_TEST

START_TEST(refusals)
{
	char why[300];
	struct frag_stats st;
	ck_assert_int_eq(frag_stats_read("{\"jemalloc\":", 12, &st, why, sizeof(why)), -1);
	ck_assert(strstr(why, "not valid JSON") != NULL);
	ck_assert_msg(strstr(why, "at byte 12 of 12: truncated") != NULL, "%s", why); /* cut */
	ck_assert_int_eq(frag_stats_read("{\"jemalloc\":}", 13, &st, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "at byte 12 of 13: expected a value") != NULL, "%s", why);
	ck_assert_int_eq(frag_stats_read("{}", 2, &st, why, sizeof(why)), -1);
	ck_assert(strstr(why, "no \"jemalloc\" object") != NULL);
	char text[4096];
	snprintf(text, sizeof(text), small_report, 1ULL, 0ULL, "", "");
	char *p = strstr(text, "\"curslabs\":2");
	memcpy(p, "\"cursla_s\"", 10); /* a figure missing */
	ck_assert_int_eq(frag_stats_read(text, strlen(text), &st, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "bins[0].curslabs") != NULL, "%s", why);
	snprintf(text, sizeof(text), small_report, 1ULL, 0ULL, "", "");
	p = strstr(text, "\"nregs\":256");
	memcpy(p, "\"nregs\":999", 11); /* more regions than the slab holds */
	ck_assert_int_eq(frag_stats_read(text, strlen(text), &st, why, sizeof(why)), -1);
	ck_assert_msg(strstr(why, "bin 0") != NULL, "%s", why);
	/* A decay time no integer holds (fuzz_frag: undefined behaviour under
	 * UBSan before): read as absent. */
	snprintf(text, sizeof(text), small_report, 1ULL, 0ULL, "", "");
	p = strstr(text, "\"dirty_decay_ms\":10000");
	memcpy(p, "\"dirty_decay_ms\":-1e61", 22);
	ck_assert_msg(frag_stats_read(text, strlen(text), &st, why, sizeof(why)) == 0, "%s", why);
	ck_assert_int_eq(st.dirty_decay_ms, 0);
	frag_stats_free(&st);
}
END_TEST

/* jemalloc writes the strings of its report as they are, unescaped: a
 * version or an opt.prof_prefix (a path) in Latin-1 is not UTF-8. Such a
 * report is read, the bytes kept for the output's own escaping (it was
 * refused as "not valid JSON" while libcore's tree was strict). */
START_TEST(unescaped_bytes)
{
	char text[4096], why[300] = "";
	snprintf(text, sizeof(text), small_report, 73728ULL + 8192, 0ULL, "", "");
	char *p = strstr(text, "5.3.0-test");
	ck_assert_ptr_nonnull(p);
	memcpy(p + 6, "caf\xe9", 4);
	struct frag_stats st;
	ck_assert_msg(frag_stats_read(text, strlen(text), &st, why, sizeof(why)) == 0, "%s", why);
	ck_assert_str_eq(st.version, "5.3.0-caf\xe9");
	frag_stats_free(&st);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("frag");
	TCase *tc = tcase_create("frag");
	tcase_add_test(tc, arithmetic);
	tcase_add_test(tc, advice_dirty);
	tcase_add_test(tc, prof_stats);
	tcase_add_test(tc, class_of);
	tcase_add_test(tc, unrequested);
	tcase_add_test(tc, saved_redis);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, unescaped_bytes);
	suite_add_tcase(s, tc);
	return check_run(s);
}
