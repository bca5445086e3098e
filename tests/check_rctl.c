/* SPDX-License-Identifier: BSD-2-Clause */
/* The mallctl type table, value parsing and formatting, JSON escaping. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "core_json.h"
#include "act.h"
#include "rctl.h"

/* thread.* controls are the pass's own: not for --get/--set. */
START_TEST(thread_controls)
{
	enum rctl_type t;
	enum rctl_access a;
	ck_assert_int_eq(rctl_lookup("thread.prof.name", &t, &a), -ENOENT);
	ck_assert_int_eq(rctl_lookup_thread("thread.prof.name", &t), 0);
	ck_assert_int_eq(t, RCTL_STRING);
	ck_assert_int_eq(rctl_lookup_thread("thread.prof.active", &t), 0);
	ck_assert_int_eq(t, RCTL_BOOL);
	ck_assert_int_eq(rctl_lookup_thread("thread.arena", &t), -ENOENT);
}
END_TEST

/* Which jemalloc needs the re-arm (act_version.c): 5.2.x only. */
START_TEST(activation_by_version)
{
	ck_assert_int_eq(act_activation_reaches_all("5.2.1-0-gea6b3e973b477b8061e0076bb257dbd7f3faa756"), 0);
	ck_assert_int_eq(act_activation_reaches_all("5.2.0-0-gb0b3e49a54ec29e32636f4577d9d5a896d67fd20"), 0);
	ck_assert_int_eq(act_activation_reaches_all("5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"), 1);
	ck_assert_int_eq(act_activation_reaches_all("5.1.0-0-g0"), 1);
	ck_assert_int_eq(act_activation_reaches_all("4.5.0-0-g0"), 1);
	ck_assert_int_eq(act_activation_reaches_all("5.3.1-12-gdeadbeef"), 1);
	ck_assert_int_eq(act_activation_reaches_all("0.0.0-0-g0"), -1); /* untagged build */
	ck_assert_int_eq(act_activation_reaches_all("dev"), -1);
	ck_assert_int_eq(act_activation_reaches_all(NULL), -1);
	ck_assert_int_eq(act_activation_reaches_all(""), -1);
}
END_TEST

/* When the string says nothing: the release by the controls it has, as
 * each tag's src/ctl.c answers (prof.log_start, opt.prof_stats,
 * opt.prof_sys_thread_name). */
START_TEST(activation_by_controls)
{
	const char *range;
	ck_assert_int_eq(act_activation_reaches_by_controls(0, 0, 0, &range), 1); /* 4.5.0..5.1.0 */
	ck_assert_str_eq(range, "4.x-5.1");
	ck_assert_int_eq(act_activation_reaches_by_controls(1, 0, 0, &range), 0); /* 5.2.0, 5.2.1 */
	ck_assert_str_eq(range, "5.2");
	ck_assert_int_eq(act_activation_reaches_by_controls(1, 1, 1, &range), 1); /* 5.3.0..dev */
	ck_assert_str_eq(range, "5.3");
	/* 5.3.0+ without opt.prof: prof.log_start answers ENOENT. */
	ck_assert_int_eq(act_activation_reaches_by_controls(0, 1, 1, &range), 1);
	ck_assert_str_eq(range, "5.3");
}
END_TEST

START_TEST(lookup)
{
	enum rctl_type t;
	enum rctl_access a;
	ck_assert_int_eq(rctl_lookup("prof.active", &t, &a), 0);
	ck_assert_int_eq(t, RCTL_BOOL);
	ck_assert_int_eq(a, RCTL_RW);
	ck_assert_int_eq(rctl_lookup("version", &t, &a), 0);
	ck_assert_int_eq(t, RCTL_STRING);
	ck_assert_int_eq(rctl_lookup("arena.4096.purge", &t, &a), 0);
	ck_assert_int_eq(t, RCTL_VOID);
	ck_assert_int_eq(rctl_lookup("stats.arenas.12.pactive", &t, &a), 0);
	ck_assert_int_eq(t, RCTL_SIZE);
	ck_assert_int_eq(rctl_lookup("arena..purge", &t, &a), -ENOENT);
	ck_assert_int_eq(rctl_lookup("arena.x.purge", &t, &a), -ENOENT);
	/* An index is 1 to 10 digits (jemalloc's are unsigned). */
	ck_assert_int_eq(rctl_lookup("arena.4294967295.purge", &t, &a), 0);
	ck_assert_int_eq(rctl_lookup("arena.12345678901.purge", &t, &a), -ENOENT);
	/* A read with an effect is marked. */
	ck_assert_int_eq(rctl_lookup("arenas.create", &t, &a), 0);
	ck_assert(a & RCTL_EFFECT);
	ck_assert_int_eq(rctl_lookup("prof.active", &t, &a), 0);
	ck_assert(!(a & RCTL_EFFECT));
	ck_assert_int_eq(rctl_lookup("prof.activ", &t, &a), -ENOENT);
	ck_assert_int_eq(rctl_lookup("prof.active.x", &t, &a), -ENOENT);
	ck_assert_int_eq(rctl_lookup("thread.arena", &t, &a), -ENOENT);
	ck_assert_int_eq(rctl_lookup("opt.lg_prof_interval", &t, &a), 0);
	ck_assert_int_eq(t, RCTL_SSIZE);
	ck_assert_int_eq(rctl_lookup("arenas.narenas", &t, &a), 0);
	ck_assert_int_eq(t, RCTL_UNSIGNED);
}
END_TEST

START_TEST(parse_values)
{
	struct rctl_value v;
	ck_assert_int_eq(rctl_parse(RCTL_BOOL, "true", &v), 0);
	ck_assert_uint_eq(v.u, 1);
	ck_assert_int_eq(rctl_parse(RCTL_BOOL, "off", &v), 0);
	ck_assert_uint_eq(v.u, 0);
	ck_assert_int_eq(rctl_parse(RCTL_BOOL, "yes?", &v), -EINVAL);
	ck_assert_int_eq(rctl_parse(RCTL_UNSIGNED, "4294967295", &v), 0);
	ck_assert_int_eq(rctl_parse(RCTL_UNSIGNED, "4294967296", &v), -EINVAL);
	ck_assert_int_eq(rctl_parse(RCTL_SIZE, "-1", &v), -EINVAL);
	ck_assert_int_eq(rctl_parse(RCTL_SIZE, "0x10", &v), 0);
	ck_assert_uint_eq(v.u, 16);
	ck_assert_int_eq(rctl_parse(RCTL_SIZE, "", &v), -EINVAL);
	ck_assert_int_eq(rctl_parse(RCTL_SIZE, "12abc", &v), -EINVAL);
	ck_assert_int_eq(rctl_parse(RCTL_U64, "18446744073709551615", &v), 0);
	ck_assert_int_eq(rctl_parse(RCTL_U64, "18446744073709551616", &v), -EINVAL);
	ck_assert_int_eq(rctl_parse(RCTL_SSIZE, "-1", &v), 0);
	ck_assert_int_eq(v.i, -1);
	ck_assert_int_eq(rctl_parse(RCTL_STRING, "abc", &v), 0);
	ck_assert_str_eq(v.s, "abc");
	ck_assert_int_eq(rctl_parse(RCTL_VOID, "", &v), 0);
	ck_assert_int_eq(rctl_parse(RCTL_VOID, "1", &v), -EINVAL);
}
END_TEST

START_TEST(format_values)
{
	struct rctl_value v;
	char buf[64];
	memset(&v, 0, sizeof(v));
	v.type = RCTL_BOOL;
	v.u = 1;
	rctl_format(&v, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "true");
	v.type = RCTL_SSIZE;
	v.i = -5;
	rctl_format(&v, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "-5");
	v.type = RCTL_STRING;
	snprintf(v.s, sizeof(v.s), "a\"b\\c\n");
	rctl_format(&v, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "\"a\\\"b\\\\c\\u000a\"");
	/* For a terminal a string from the target has its control bytes
	 * escaped (it was verbatim before "never hurt the target"). */
	rctl_format(&v, 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "a\"b\\c\\n");
	v.is_null = 1;
	rctl_format(&v, 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "null");
}
END_TEST

START_TEST(json_escaping)
{
	char buf[32];
	core_json_escape("\xc3\xa9t\xc3", buf, sizeof(buf)); /* valid é, then a broken byte */
	ck_assert_str_eq(buf, "\"\xc3\xa9t\\u00c3\"");
	core_json_escape("0123456789abcdef", buf, 8); /* truncated, still quoted */
	ck_assert_uint_eq(strlen(buf), 7);
	ck_assert_int_eq(buf[0], '"');
	ck_assert_int_eq(buf[6], '"');
	core_json_escape("", buf, sizeof(buf));
	ck_assert_str_eq(buf, "\"\"");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rctl");
	TCase *tc = tcase_create("types");
	tcase_add_test(tc, lookup);
	tcase_add_test(tc, thread_controls);
	tcase_add_test(tc, activation_by_version);
	tcase_add_test(tc, activation_by_controls);
	tcase_add_test(tc, parse_values);
	tcase_add_test(tc, format_values);
	tcase_add_test(tc, json_escaping);
	suite_add_tcase(s, tc);
	return check_run(s);
}
