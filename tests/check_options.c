/* SPDX-License-Identifier: BSD-2-Clause */
/* Command-line parsing: every action, every refusal, before any target. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

static struct options o;
static char err[512];

static int parse(const char *const *args)
{
	char *argv[32];
	int argc = check_argv(args, argv);
	err[0] = 0;
	options_free(&o); /* the previous parse's plan */
	return options_parse(argc, argv, &o, err, sizeof(err));
}

#define PARSE(...) parse((const char *const[]){ __VA_ARGS__, NULL })

START_TEST(actions_in_order)
{
	ck_assert_int_eq(PARSE("-p", "42", "--status", "--activate", "--dump", "/tmp/x.heap",
			       "--deactivate", "--get", "prof.active", "--set", "prof.gdump=true"),
			 0);
	ck_assert_int_eq(o.npids, 1);
	ck_assert_int_eq(o.pids[0], 42);
	ck_assert_int_eq(o.nactions, 6);
	ck_assert_int_eq(o.actions[0].kind, ACT_STATUS);
	ck_assert_int_eq(o.actions[1].kind, ACT_ACTIVATE);
	ck_assert_int_eq(o.actions[2].kind, ACT_DUMP);
	ck_assert_str_eq(o.actions[2].arg, "/tmp/x.heap");
	ck_assert_int_eq(o.actions[3].kind, ACT_DEACTIVATE);
	ck_assert_int_eq(o.actions[4].kind, ACT_GET);
	ck_assert_str_eq(o.actions[4].arg, "prof.active");
	ck_assert_int_eq(o.actions[5].kind, ACT_SET);
}
END_TEST

START_TEST(dump_without_file)
{
	ck_assert_int_eq(PARSE("-p", "1", "--dump", "--status"), 0);
	ck_assert_int_eq(o.actions[0].kind, ACT_DUMP);
	ck_assert_ptr_null(o.actions[0].arg);
	ck_assert_int_eq(PARSE("-p", "1", "--dump=a.heap"), 0);
	ck_assert_str_eq(o.actions[0].arg, "a.heap");
	ck_assert_int_eq(PARSE("-p", "1", "--dump"), 0);
	ck_assert_ptr_null(o.actions[0].arg);
}
END_TEST

START_TEST(frag_options)
{
	ck_assert_int_eq(PARSE("-p", "1", "--frag", "--frag-out", "a.svg", "--frag-out", "b.json",
			       "--frag-profile", "x.heap"),
			 0);
	ck_assert_int_eq(o.actions[0].kind, ACT_FRAG);
	ck_assert_int_eq(o.nfrag_out, 2);
	ck_assert_str_eq(o.frag_out[0], "a.svg");
	ck_assert_str_eq(o.frag_profile, "x.heap");
	ck_assert_int_eq(PARSE("-p", "1", "--frag", "--frag-out", "a.txt"), -1);
	ck_assert_ptr_nonnull(strstr(err, ".json (the report) or .svg"));
	ck_assert_int_eq(PARSE("-p", "1", "--frag", "--frag-out", "dir/.svg"), -1);
	ck_assert_int_eq(PARSE("-p", "1", "--frag", "--frag-out", "a.svg", "--frag-out", "b.svg"), -1);
	ck_assert_ptr_nonnull(strstr(err, "already asked for"));
	ck_assert_int_eq(PARSE("-p", "1", "--status", "--frag-out", "a.svg"), -1);
	ck_assert_ptr_nonnull(strstr(err, "--frag-out goes with --frag"));
	ck_assert_int_eq(PARSE("-p", "1", "--status", "--frag-profile", "x.heap"), -1);
	ck_assert_ptr_nonnull(strstr(err, "--frag-profile goes with --frag"));
	ck_assert_int_eq(PARSE("-p", "1,2", "--frag", "--frag-out", "a.svg"), -1);
	ck_assert_ptr_nonnull(strstr(err, "%p"));
	ck_assert_int_eq(PARSE("-p", "1,2", "--frag", "--frag-out", "a.%p.svg"), 0);
	ck_assert_int_eq(PARSE("-p", "1", "--frag", "--frag-out", "a.%q.svg"), -1);
	ck_assert_int_eq(PARSE("-p", "1", "--frag", "--frag", "--frag-out", "a.svg"), -1);
}
END_TEST

START_TEST(pid_lists)
{
	ck_assert_int_eq(PARSE("-p", "1,2,3", "--status"), 0);
	ck_assert_int_eq(o.npids, 3);
	ck_assert_int_eq(o.pids[2], 3);
	ck_assert_int_eq(PARSE("-p", "1,", "--status"), 0);
	ck_assert_int_eq(o.npids, 1);
	ck_assert_int_eq(PARSE("-p", "x", "--status"), -1);
	ck_assert_ptr_nonnull(strstr(err, "bad pid list"));
	ck_assert_int_eq(PARSE("-p", "0", "--status"), -1);
	ck_assert_int_eq(PARSE("-p", "-5", "--status"), -1);
	ck_assert_int_eq(PARSE("-p", "99999999999", "--status"), -1);
	ck_assert_int_eq(PARSE("-p", "1,,2", "--status"), -1);
}
END_TEST

START_TEST(refusals)
{
	ck_assert_int_eq(PARSE("--status"), -1);
	ck_assert_ptr_nonnull(strstr(err, "no target"));
	ck_assert_int_eq(PARSE("-p", "1"), -1);
	ck_assert_ptr_nonnull(strstr(err, "nothing to do"));
	ck_assert_int_eq(PARSE("-p", "1", "--bogus"), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown option"));
	ck_assert_int_eq(PARSE("-p", "1", "--status", "stray"), -1);
	ck_assert_ptr_nonnull(strstr(err, "unexpected argument"));
	ck_assert_int_eq(PARSE("-p", "1", "--get", "no.such.ctl"), -1);
	ck_assert_ptr_nonnull(strstr(err, "unknown control"));
	ck_assert_int_eq(PARSE("-p", "1", "--get", "prof.dump"), -1);
	ck_assert_ptr_nonnull(strstr(err, "only be written"));
	ck_assert_int_eq(PARSE("-p", "1", "--set", "version=1"), -1);
	ck_assert_ptr_nonnull(strstr(err, "read-only"));
	ck_assert_int_eq(PARSE("-p", "1", "--set", "prof.active=maybe"), -1);
	ck_assert_ptr_nonnull(strstr(err, "not a valid bool"));
	/* the refusal lists what would have been taken */
	ck_assert_ptr_nonnull(strstr(err, "accepted: true, false, on, off, 1 or 0"));
	ck_assert_int_eq(PARSE("-p", "1", "--set", "max_background_threads=-1"), -1);
	ck_assert_ptr_nonnull(strstr(err, "accepted: a whole number from 0 to"));
	ck_assert_int_eq(PARSE("-p", "1", "--set", "prof.active"), -1);
	ck_assert_ptr_nonnull(strstr(err, "NAME=VALUE"));
	ck_assert_int_eq(PARSE("-p", "1", "--set", "prof.dump=/x"), -1);
	ck_assert_int_eq(PARSE("-p", "1", "--status", "--timeout", "0"), -1);
	ck_assert_int_eq(PARSE("-p", "1", "--status", "--timeout", "abc"), -1);
	ck_assert_int_eq(PARSE("-p", "1", "--status", "--tid", "x"), -1);
	ck_assert_int_eq(PARSE("-p", "1", "--status", "--prefix", "a/b"), -1);
	ck_assert_int_eq(PARSE("-p", "1,2", "--dump", "x.heap"), -1);
	ck_assert_ptr_nonnull(strstr(err, "overwrite"));
	ck_assert_int_eq(PARSE("-p", "1", "--dump="), -1);
	ck_assert_int_eq(PARSE("-p"), -1);
	ck_assert_ptr_nonnull(strstr(err, "needs a value"));
}
END_TEST

/* --dump DIR/ and its bound: what is taken, and a one-line refusal for
 * each bad bound (0, negative, absurd, not a number) and misuse. */
START_TEST(keep_bounds)
{
	ck_assert_int_eq(PARSE("-p", "1,2", "--dump", "d/", "--keep", "5", "--keep-bytes", "2G"), 0);
	ck_assert_str_eq(o.keep.dir, "d/");
	ck_assert_uint_eq(o.keep.files, 5);
	ck_assert_uint_eq(o.keep.bytes, 2ULL << 30);
	ck_assert_ptr_null(o.actions[0].arg);
	ck_assert_ptr_eq(o.actions[0].keep, &o.keep);
	ck_assert_int_eq(PARSE("-p", "1", "--dump", "/", "--keep", "1000000"), 0);
	static const char *const bad_keep[] = { "0", "-1", "1000001", "1e3", "", "5x", "99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad_keep) / sizeof(bad_keep[0]); i++) {
		ck_assert_int_eq(PARSE("-p", "1", "--dump", "d/", "--keep", bad_keep[i]), -1);
		ck_assert_msg(strstr(err, "--keep '") && strstr(err, "expected a number of files"),
			      "%s: %s", bad_keep[i], err);
	}
	static const char *const bad_bytes[] = { "0", "-5M", "1025T", "5P", "M", "99999999999999T" };
	for (size_t i = 0; i < sizeof(bad_bytes) / sizeof(bad_bytes[0]); i++) {
		ck_assert_int_eq(PARSE("-p", "1", "--dump", "d/", "--keep-bytes", bad_bytes[i]), -1);
		ck_assert_msg(strstr(err, "--keep-bytes '") && strstr(err, "expected a size"), "%s: %s",
			      bad_bytes[i], err);
	}
	ck_assert_int_eq(PARSE("-p", "1", "--dump", "x.heap", "--keep", "3"), -1);
	ck_assert_ptr_nonnull(strstr(err, "--keep goes with --dump DIR/"));
	ck_assert_int_eq(PARSE("-p", "1", "--status", "--keep-bytes", "1M"), -1);
	ck_assert_ptr_nonnull(strstr(err, "--keep-bytes goes with --dump DIR/"));
	ck_assert_int_eq(PARSE("-p", "1", "--dump", "d%p/"), -1);
	ck_assert_ptr_nonnull(strstr(err, "a directory takes no % escapes"));
	ck_assert_int_eq(PARSE("-p", "1", "--dump", "d/", "--force"), -1);
	ck_assert_ptr_nonnull(strstr(err, "drop --force"));
	ck_assert_int_eq(PARSE("-p", "1", "--dump", "d/", "--dump", "e/"), -1);
	ck_assert_ptr_nonnull(strstr(err, "already given"));
}
END_TEST

START_TEST(flags)
{
	ck_assert_int_eq(PARSE("-p", "7", "--status", "--json", "-v", "-q", "--timeout", "2.5",
			       "--prefix", "je_", "--tid", "9"),
			 0);
	ck_assert_int_eq(o.json, 1);
	ck_assert_int_eq(o.verbose, 1);
	ck_assert_int_eq(o.quiet, 1);
	ck_assert(o.timeout_s == 2.5);
	ck_assert_str_eq(o.prefix, "je_");
	ck_assert_int_eq(o.tid, 9);
	ck_assert_int_eq(PARSE("--help"), 0);
	ck_assert_int_eq(o.help, 1);
	ck_assert_int_eq(PARSE("--version"), 0);
	ck_assert_int_eq(o.version, 1);
}
END_TEST

/* Regression (tests/fuzz/fuzz_text.c, under ASan): a parse that stops
 * inside a cluster of short options must not leave getopt pointing into
 * that argv for the next parse. */
/* The 5.2 re-arm's two switches: exclusive, and only with an activation;
 * --name-threads is an action of its own. */
START_TEST(rearm_and_names)
{
	ck_assert_int_eq(PARSE("-p", "1", "--activate", "--discard-samples"), 0);
	ck_assert_int_eq(o.rearm, ACT_REARM_DISCARD);
	ck_assert_int_eq(PARSE("-p", "1", "--for", "1s", "--no-rearm"), 0);
	ck_assert_int_eq(o.rearm, ACT_REARM_OFF);
	ck_assert_int_eq(PARSE("-p", "1", "--activate", "--no-rearm", "--discard-samples"), -1);
	ck_assert(strstr(err, "do not go together"));
	ck_assert_int_eq(PARSE("-p", "1", "--dump", "--discard-samples"), -1);
	ck_assert(strstr(err, "goes with --activate or --for"));
	ck_assert_int_eq(PARSE("-p", "1", "--name-threads"), 0);
	ck_assert_int_eq(o.actions[0].kind, ACT_NAME_THREADS);
	ck_assert_int_eq(o.rearm, ACT_REARM_AUTO);
}
END_TEST

START_TEST(sizes)
{
	ck_assert_uint_eq(options_size("4096"), 4096);
	ck_assert_uint_eq(options_size("1K"), 1024);
	ck_assert_uint_eq(options_size("512m"), 512ULL << 20);
	ck_assert_uint_eq(options_size("8G"), 8ULL << 30);
	ck_assert_uint_eq(options_size("2T"), 2ULL << 40);
	ck_assert_uint_eq(options_size("0"), 0);      /* no size */
	ck_assert_uint_eq(options_size("-1G"), 0);
	ck_assert_uint_eq(options_size("1GB"), 0);
	ck_assert_uint_eq(options_size("G"), 0);
	ck_assert_uint_eq(options_size("99999999999999999999"), 0);
	ck_assert_uint_eq(options_size("99999999999T"), 0); /* past 2^64 */
	ck_assert_int_eq(PARSE("-p", "1", "--dump", "x", "--max-dump", "1M"), 0);
	ck_assert_uint_eq(o.max_dump, 1ULL << 20);
	ck_assert_int_eq(PARSE("-p", "1", "--dump", "x"), 0);
	ck_assert_uint_eq(o.max_dump, OPT_DEFAULT_MAX_DUMP);
	ck_assert_int_eq(PARSE("-p", "1", "--dump", "x", "--max-dump", "lots"), -1);
	ck_assert_ptr_nonnull(strstr(err, "--max-dump 'lots'"));
}
END_TEST

START_TEST(reparse_after_cluster)
{
	char *words = strdup("-vRRRR");
	char *argv1[] = { (char *)"jeattach", words, NULL };
	ck_assert_int_eq(options_parse(2, argv1, &o, err, sizeof(err)), -1);
	options_free(&o);
	memset(words, 'X', strlen(words)); /* what freeing it would do */
	free(words);
	ck_assert_int_eq(PARSE("-p", "7", "--status"), 0);
	ck_assert_int_eq(o.pids[0], 7);
}
END_TEST

/* Every row of the option table is in --help, in --list-options, and
 * known to getopt (long and short), handled by a handler that knows it. */
START_TEST(table_drives_help_list_and_getopt)
{
	char *help = NULL, *list = NULL;
	size_t hlen = 0, llen = 0, n;
	FILE *f = open_memstream(&help, &hlen);
	options_usage(f);
	fclose(f);
	f = open_memstream(&list, &llen);
	options_list(f);
	fclose(f);
	const struct options_row *rows = options_table(&n);
	ck_assert_uint_gt(n, 20);
	int listed = 0;
	for (size_t i = 0; i < n; i++) {
		const struct options_row *r = &rows[i];
		char word[64], line[80], value[] = "x";
		snprintf(word, sizeof(word), "--%s", r->name);
		snprintf(line, sizeof(line), "\n--%s ", r->name);
		if (r->section == OPTIONS_SEC_HIDDEN) {
			ck_assert_msg(!strstr(help, word), "%s is hidden", word);
			ck_assert_msg(!strstr(list, line), "%s is hidden", word);
		} else {
			ck_assert_msg(strstr(help, word), "%s not in --help", word);
			ck_assert_msg(strstr(list, line + 1) == list || strstr(list, line),
				      "%s not in --list-options", word);
			listed++;
		}
		if (r->letter) {
			snprintf(line, sizeof(line), "-%c, --%s", r->letter, r->name);
			ck_assert_msg(strstr(help, line), "'%s' not in --help", line);
		}
		/* getopt knows it and its handler takes it: whatever the
		 * value, the answer is about the value, never "unknown". */
		const char *v = r->arg == OPTIONS_ARG_REQUIRED ? value : NULL;
		PARSE("-p", "1", "--status", word, v);
		ck_assert_msg(!strstr(err, "unknown option") && !strstr(err, "needs a value") &&
				      !strstr(err, "option "),
			      "%s: %s", word, err);
		if (r->letter) {
			snprintf(word, sizeof(word), "-%c", r->letter);
			PARSE("-p", "1", "--status", word, v);
			ck_assert_msg(!strstr(err, "unknown option") && !strstr(err, "option "),
				      "%s: %s", word, err);
		}
	}
	int lines = 0;
	for (const char *p = list; *p; p++)
		lines += *p == '\n';
	ck_assert_int_eq(lines, listed);
	/* --help fits a terminal. */
	for (const char *p = help; *p;) {
		size_t len = strcspn(p, "\n");
		ck_assert_msg(len <= 80, "--help line too long: %.*s", (int)len, p);
		p += len + (p[len] != 0);
	}
	free(help);
	free(list);
}
END_TEST

/* An unknown long option gets a did-you-mean from the table's names; an
 * abbreviation of several, the names it may mean. */
START_TEST(unknown_options_suggest)
{
	ck_assert_int_eq(PARSE("-p", "1", "--stat"), -1);
	ck_assert_str_eq(err, "option '--stat' is ambiguous (did you mean --status or --stats?); "
			      "see jeattach --help");
	ck_assert_int_eq(PARSE("-p", "1", "--activte"), -1);
	ck_assert_str_eq(err, "unknown option '--activte' (did you mean --activate?); see "
			      "jeattach --help");
	ck_assert_int_eq(PARSE("-p", "1", "--jsn", "--status"), -1);
	ck_assert_str_eq(err, "unknown option '--jsn' (did you mean --json?); see jeattach --help");
	ck_assert_int_eq(PARSE("-p", "1", "--frobnicate"), -1);
	ck_assert_str_eq(err, "unknown option '--frobnicate'; see jeattach --help");
	/* a hidden row is never suggested */
	ck_assert_int_eq(PARSE("-p", "1", "--list-option"), 0);
	ck_assert_int_eq(PARSE("-p", "1", "--lst-options"), -1);
	ck_assert_ptr_null(strstr(err, "did you mean"));
}
END_TEST

START_TEST(list_options_and_info)
{
	ck_assert_int_eq(PARSE("--list-options"), 0);
	ck_assert_int_eq(o.list_options, 1);
	ck_assert_int_eq(PARSE("-p", "1", "--status", "--list-options", "--bogus"), 0);
	ck_assert_int_eq(o.list_options, 1);
	ck_assert_int_eq(PARSE("-h", "--bogus"), 0);
	ck_assert_int_eq(o.help, 1);
}
END_TEST

static void free_opts(void)
{
	options_free(&o);
}

int main(void)
{
	Suite *s = suite_create("options");
	TCase *tc = tcase_create("parse");
	tcase_add_checked_fixture(tc, NULL, free_opts);
	tcase_add_test(tc, actions_in_order);
	tcase_add_test(tc, dump_without_file);
	tcase_add_test(tc, pid_lists);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, keep_bounds);
	tcase_add_test(tc, frag_options);
	tcase_add_test(tc, flags);
	tcase_add_test(tc, sizes);
	tcase_add_test(tc, rearm_and_names);
	tcase_add_test(tc, reparse_after_cluster);
	tcase_add_test(tc, table_drives_help_list_and_getopt);
	tcase_add_test(tc, list_options_and_info);
	tcase_add_test(tc, unknown_options_suggest);
	suite_add_tcase(s, tc);
	return check_run(s);
}
