/* SPDX-License-Identifier: BSD-2-Clause */
/* The exporter's pure decisions: which processes --all's names match
 * (cli_find.c), which of a rescan's processes are new (cli_find_new), a
 * label value escaped for Prometheus' text format (cli_prom_label.c), the
 * cgroup v2 path of a /proc/PID/cgroup text (target_ident.c). */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <string.h>
#include "cli_find.h"
#include "cli_prom.h"
#include "target_ident.h"

START_TEST(names_match)
{
	ck_assert(cli_find_match("redis-server", "redis-server", "/usr/bin/redis-server"));
	ck_assert(cli_find_match("a,redis-server,b", "x", "/usr/bin/redis-server"));
	ck_assert(cli_find_match("varnishd,cache-main", "cache-main", "/usr/sbin/varnishd"));
	/* whole names only: a prefix or a part of a list's name is not one */
	ck_assert(!cli_find_match("redis", "redis-server", "/usr/bin/redis-server"));
	ck_assert(!cli_find_match("redis-server-x", "redis-server", "/usr/bin/redis-server"));
	ck_assert(!cli_find_match("a,b", "", ""));
	/* the executable's basename, not a directory of its path */
	ck_assert(!cli_find_match("bin", "x", "/usr/bin/y"));
	/* a hostile comm with a comma is one name, never two */
	ck_assert(!cli_find_match("a", "a,b", "/x/a,b"));
}
END_TEST

START_TEST(names_checked)
{
	char err[300];
	ck_assert_int_eq(cli_find_check("redis-server", err, sizeof(err)), 0);
	ck_assert_int_eq(cli_find_check("a,b,c", err, sizeof(err)), 0);
	ck_assert_int_eq(cli_find_check("", err, sizeof(err)), -1);
	ck_assert(strstr(err, "expected process names separated by commas"));
	ck_assert_int_eq(cli_find_check("a,", err, sizeof(err)), -1);
	ck_assert_int_eq(cli_find_check(",a", err, sizeof(err)), -1);
	ck_assert_int_eq(cli_find_check("a,,b", err, sizeof(err)), -1);
	ck_assert_int_eq(cli_find_check("a,/usr/bin/b", err, sizeof(err)), -1);
	char many[4 * CLI_FIND_MAX_NAMES + 8] = "";
	for (int i = 0; i <= CLI_FIND_MAX_NAMES; i++)
		strcat(many, i ? ",n" : "n");
	ck_assert_int_eq(cli_find_check(many, err, sizeof(err)), -1);
	ck_assert(strstr(err, "at most 64"));
}
END_TEST

START_TEST(rescan_new)
{
	struct cli_found cand[] = { { 10, 100 }, { 11, 100 }, { 12, 300 }, { 13, 100 } };
	struct cli_found followed[] = { { 10, 100 } };
	/* 12 was skipped as the process of start 200: that one ended, and
	 * pid 12 now names another, tried afresh; 13 is still the same. */
	struct cli_found skipped[4] = { { 12, 200 }, { 13, 100 }, { 99, 1 } };
	int nskipped = 3;
	struct cli_found out[4];
	int n = cli_find_new(cand, 4, followed, 1, skipped, &nskipped, out, 4);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(out[0].pid, 11);
	ck_assert_int_eq(out[1].pid, 12);
	ck_assert(out[1].start == 300);
	/* the skip list keeps only processes still there */
	ck_assert_int_eq(nskipped, 1);
	ck_assert_int_eq(skipped[0].pid, 13);
	/* bounded by max */
	nskipped = 0;
	ck_assert_int_eq(cli_find_new(cand, 4, followed, 0, skipped, &nskipped, out, 2), 2);
	ck_assert_int_eq(out[1].pid, 11);
}
END_TEST

static const char *esc(const char *in, size_t len)
{
	static char out[64];
	cli_prom_escape(in, out, len);
	return out;
}

START_TEST(label_escaped)
{
	ck_assert_str_eq(esc("redis-server", 64), "redis-server");
	ck_assert_str_eq(esc("a\"b\\c\nd", 64), "a\\\"b\\\\c\\nd");
	ck_assert_str_eq(esc("t\tx\x7f", 64), "t?x?");
	/* well-formed UTF-8 kept: é, €, U+10348 */
	ck_assert_str_eq(esc("\xc3\xa9\xe2\x82\xac\xf0\x90\x8d\x88", 64),
			 "\xc3\xa9\xe2\x82\xac\xf0\x90\x8d\x88");
	/* a character cut at 15 bytes (comm), a lone byte, an overlong '/',
	 * a surrogate, past U+10FFFF */
	ck_assert_str_eq(esc("ab\xe2\x82", 64), "ab??");
	ck_assert_str_eq(esc("\xff", 64), "?");
	ck_assert_str_eq(esc("\xc0\xaf", 64), "??");
	ck_assert_str_eq(esc("\xed\xa0\x80", 64), "???");
	ck_assert_str_eq(esc("\xf4\x90\x80\x80", 64), "????");
	/* cut whole: never half an escape or half a character */
	ck_assert_str_eq(esc("ab\"", 4), "ab");
	ck_assert_str_eq(esc("a\xc3\xa9", 3), "a");
	ck_assert_uint_eq(cli_prom_escape("abc", (char[8]){ 0 }, 8), 3);
}
END_TEST

START_TEST(cgroup_v2_line)
{
	char p[64];
	ck_assert_int_eq(target_ident_cgroup_v2("0::/system.slice/redis-server.service\n", p,
						sizeof(p)), 0);
	ck_assert_str_eq(p, "/system.slice/redis-server.service");
	/* a v1 host's lines first; the v2 line last, without a newline */
	ck_assert_int_eq(target_ident_cgroup_v2("12:memory:/x\n1:name=systemd:/y\n0::/z", p,
						sizeof(p)), 0);
	ck_assert_str_eq(p, "/z");
	/* v1 only: none */
	ck_assert_int_eq(target_ident_cgroup_v2("12:memory:/x\n", p, sizeof(p)), -1);
	ck_assert_str_eq(p, "");
	/* outside our cgroup namespace, kept as the kernel says it; cut to the buffer */
	ck_assert_int_eq(target_ident_cgroup_v2("0::/../../a\n", p, sizeof(p)), 0);
	ck_assert_str_eq(p, "/../../a");
	ck_assert_int_eq(target_ident_cgroup_v2("0::/abcdefgh\n", p, 5), 0);
	ck_assert_str_eq(p, "/abc");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("pure");
	tcase_add_test(tc, names_match);
	tcase_add_test(tc, names_checked);
	tcase_add_test(tc, rescan_new);
	tcase_add_test(tc, label_escaped);
	tcase_add_test(tc, cgroup_v2_line);
	suite_add_tcase(s, tc);
	return check_run(s);
}
