/* SPDX-License-Identifier: BSD-2-Clause */
/* keep.c on made-up listings: the names made and read back, names that
 * look like ours but are not (each must be refused), and which files a
 * bound of files, of bytes, or both removes: always the oldest, never the
 * one just written, never a name not ours. */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <string.h>
#include "check_run.h"
#include "keep.h"

/* 2026-11-27 03:15:00 UTC */
#define WHEN ((time_t)1795749300)

START_TEST(name_made_and_read)
{
	char name[KEEP_NAME_MAX];
	struct keep_name kn;
	ck_assert_int_eq(keep_name_make(WHEN, "redis-server", 1234, 7, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "20261127T031500Z.redis-server.1234.7.heap");
	ck_assert_int_eq(keep_name_parse(name, &kn), 0);
	ck_assert_str_eq(kn.stamp, "20261127T031500Z");
	ck_assert_uint_eq(kn.pid, 1234);
	ck_assert_uint_eq(kn.seq, 7);
	/* A hostile comm: a path, dots, a newline, bytes past ASCII, too long. */
	ck_assert_int_eq(keep_name_make(WHEN, "../x.y\n\xff/abcdefghijkl", 2, 0, name,
					sizeof(name)), 0);
	ck_assert_str_eq(name, "20261127T031500Z.___x_y___abcdef.2.0.heap");
	ck_assert_int_eq(keep_name_parse(name, NULL), 0);
	ck_assert_int_eq(keep_name_make(WHEN, "", 3, 0, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "20261127T031500Z._.3.0.heap");
	ck_assert_int_eq(keep_name_make(WHEN, "a", 2147483647, 4294967295u, name, sizeof(name)), 0);
	ck_assert_int_eq(keep_name_parse(name, &kn), 0);
	ck_assert_uint_eq(kn.seq, 4294967295ul);
	ck_assert_int_eq(keep_name_make(WHEN, "a", 1, 0, name, 20), -1);
}
END_TEST

START_TEST(names_not_ours)
{
	static const char *const bad[] = {
		"",
		"notes.txt",
		"20261127T031500Z.redis.1234.0.heap~",
		"20261127T031500Z.redis.1234.0.heap.bak",
		"x20261127T031500Z.redis.1234.0.heap",
		".20261127T031500Z.redis.1234.0.heap",
		"20261127T031500Z.redis.1234.heap",        /* no seq */
		"20261127T031500Z..1234.0.heap",           /* empty comm */
		"20261127T031500Z.re.dis.1234.0.heap",     /* a dot in comm */
		"20261127T031500Z.re/dis.1234.0.heap",
		"20261127T031500Z.redis.01234.0.heap",     /* a leading zero */
		"20261127T031500Z.redis.0.0.heap",         /* pid 0 */
		"20261127T031500Z.redis.1234.00.heap",
		"20261127T031500Z.redis.2147483648.0.heap",/* past pid's range */
		"20261127T031500Z.redis.1234.4294967296.heap",
		"20261127T031500Z.redis.-1.0.heap",
		"20261127T031500Z.abcdefghijklmnop.1.0.heap", /* a comm of 16 */
		"2026112T031500Z.redis.1234.0.heap",
		"20261127t031500Z.redis.1234.0.heap",
		"20261127T031500.redis.1234.0.heap",
		"20261127T03150aZ.redis.1234.0.heap",
		"20261127T031500Z.redis.1234.0.HEAP",
		"20261127T031500Z.redis.1234.0.heap\n",
		".jeattach-Ab12Cd",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(keep_name_parse(bad[i], NULL) == -1, "taken as ours: '%s'", bad[i]);
}
END_TEST

/* names: a listing; want: "1" where removed. */
static void expect(const struct keep_file *f, size_t n, const char *newest, uint64_t files,
		   uint64_t bytes, const char *want)
{
	unsigned char rm[32];
	struct keep_bounds b = { files, bytes };
	size_t got = keep_choose(f, n, newest, &b, rm), ones = 0;
	char s[33];
	for (size_t i = 0; i < n; i++) {
		s[i] = rm[i] ? '1' : '0';
		ones += rm[i];
	}
	s[n] = 0;
	ck_assert_str_eq(s, want);
	ck_assert_uint_eq(got, ones);
}

/* Two targets, three dumps each a second apart, listed in no order; a
 * foreign file among them. */
static const struct keep_file series[] = {
	{ "20261127T031502Z.b.20.2.heap", 100, 0 }, /* 0 */
	{ "20261127T031500Z.a.10.0.heap", 100, 0 }, /* 1: oldest */
	{ "notes.txt", 5000, 0 },                    /* 2: never */
	{ "20261127T031501Z.b.20.1.heap", 100, 0 }, /* 3 */
	{ "20261127T031502Z.a.10.2.heap", 100, 0 }, /* 4: newest (written last) */
	{ "20261127T031501Z.a.10.1.heap", 100, 0 }, /* 5 */
	{ "20261127T031500Z.b.20.0.heap", 100, 0 }, /* 6 */
};
#define NSERIES (sizeof(series) / sizeof(series[0]))
#define NEWEST "20261127T031502Z.a.10.2.heap"

START_TEST(bound_files)
{
	expect(series, NSERIES, NEWEST, 0, 0, "0000000");  /* no bound */
	expect(series, NSERIES, NEWEST, 6, 0, "0000000");  /* six of ours: room */
	expect(series, NSERIES, NEWEST, 5, 0, "0100000");  /* a.0 is older than b.0 by pid */
	expect(series, NSERIES, NEWEST, 4, 0, "0100001");
	expect(series, NSERIES, NEWEST, 2, 0, "0101011");  /* newest, then b.2 */
	expect(series, NSERIES, NEWEST, 1, 0, "1101011");
}
END_TEST

START_TEST(bound_bytes)
{
	expect(series, NSERIES, NEWEST, 0, 600, "0000000"); /* notes.txt counts for nothing */
	expect(series, NSERIES, NEWEST, 0, 599, "0100000");
	expect(series, NSERIES, NEWEST, 0, 250, "0101011");
	expect(series, NSERIES, NEWEST, 0, 1, "1101011");   /* the newest alone breaks it: kept */
	/* both: whichever bites first */
	expect(series, NSERIES, NEWEST, 3, 250, "0101011");
	expect(series, NSERIES, NEWEST, 2, 10000, "0101011");
}
END_TEST

/* A large newer file breaks the budget: it and everything older go, an
 * older small one does not stay behind it. */
START_TEST(cut_not_skip)
{
	static const struct keep_file f[] = {
		{ "20261127T031500Z.a.1.0.heap", 10, 0 },
		{ "20261127T031501Z.a.1.1.heap", 1000, 0 },
		{ "20261127T031502Z.a.1.2.heap", 10, 0 },
	};
	expect(f, 3, "20261127T031502Z.a.1.2.heap", 0, 500, "110");
}
END_TEST

/* The file just written is kept even when its name sorts oldest (the
 * clock was set back), and the rest are judged after it. */
START_TEST(newest_whatever_its_name)
{
	static const struct keep_file f[] = {
		{ "20261127T031500Z.a.1.0.heap", 10, 0 },
		{ "20261127T031501Z.a.1.1.heap", 10, 0 },
		{ "20200101T000000Z.a.1.2.heap", 10, 0 },
	};
	expect(f, 3, "20200101T000000Z.a.1.2.heap", 1, 0, "110");
	expect(f, 3, "20200101T000000Z.a.1.2.heap", 2, 0, "100");
	/* Within one second, the higher sequence is newer. */
	static const struct keep_file g[] = {
		{ "20261127T031500Z.a.1.10.heap", 10, 0 },
		{ "20261127T031500Z.a.1.9.heap", 10, 0 },
		{ "20261127T031500Z.a.1.11.heap", 10, 0 },
	};
	expect(g, 3, "20261127T031500Z.a.1.11.heap", 2, 0, "010");
	/* Sizes that would overflow a sum. */
	static const struct keep_file h[] = {
		{ "20261127T031500Z.a.1.0.heap", UINT64_MAX, 0 },
		{ "20261127T031501Z.a.1.1.heap", UINT64_MAX, 0 },
	};
	expect(h, 2, "20261127T031501Z.a.1.1.heap", 0, UINT64_MAX, "10");
	expect(h, 0, NULL, 1, 0, "");
	/* Two targets within one second: the later written is the newer,
	 * whatever the pids and sequences say; the name's time comes first. */
	static const struct keep_file m[] = {
		{ "20261127T031500Z.a.9.5.heap", 10, 300 },
		{ "20261127T031500Z.b.1.1.heap", 10, 400 },
		{ "20261127T031459Z.c.5.9.heap", 10, 900 },
		{ "20261127T031500Z.a.9.6.heap", 10, 500 },
	};
	expect(m, 4, "20261127T031500Z.a.9.6.heap", 2, 0, "1010");
	expect(m, 4, "20261127T031500Z.a.9.6.heap", 3, 0, "0010");
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("keep");
	TCase *tc = tcase_create("keep");
	tcase_add_test(tc, name_made_and_read);
	tcase_add_test(tc, names_not_ours);
	tcase_add_test(tc, bound_files);
	tcase_add_test(tc, bound_bytes);
	tcase_add_test(tc, cut_not_skip);
	tcase_add_test(tc, newest_whatever_its_name);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return check_run(suite());
}
