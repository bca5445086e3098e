/* SPDX-License-Identifier: BSD-2-Clause */
/* libcore, the shared core of jeattach and libjeheap: growth, bounded
 * reads, maps lines, the search, the opener's identity check, the ELF
 * reader (on this very test program), jeattach's stamp block. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "core_elf.h"
#include "core_grow.h"
#include "core_json.h"
#include "core_stamp.h"
#include "core_list.h"
#include "core_suggest.h"
#include "core_maps.h"
#include "core_open.h"
#include "core_read.h"
#include "core_search.h"
#include "core_text.h"

START_TEST(grow)
{
	int *v = NULL;
	size_t cap = 0;
	ck_assert_int_eq(CORE_GROW(&v, &cap, 1), 0);
	ck_assert_uint_ge(cap, 1);
	ck_assert_int_eq(CORE_GROW(&v, &cap, 1000), 0);
	ck_assert_uint_ge(cap, 1000);
	for (int i = 0; i < 1000; i++)
		v[i] = i;
	size_t before = cap;
	ck_assert_int_eq(CORE_GROW(&v, &cap, 10), 0); /* never shrinks */
	ck_assert_uint_eq(cap, before);
	ck_assert_int_eq(v[999], 999);
	/* An absurd size fails cleanly, leaving the array as it was. */
	ck_assert_int_eq(core_grow((void **)&v, &cap, SIZE_MAX / 2, sizeof(int)), -ENOMEM);
	ck_assert_uint_eq(cap, before);
	ck_assert_int_eq(v[999], 999);
	free(v);
}
END_TEST

START_TEST(grow_zeroed)
{
	long *v = NULL;
	size_t cap = 0;
	ck_assert_int_eq(core_grow_zeroed((void **)&v, &cap, 3, sizeof(long)), 0);
	for (size_t i = 0; i < cap; i++)
		ck_assert_int_eq(v[i], 0);
	v[0] = 7;
	size_t had = cap;
	ck_assert_int_eq(core_grow_zeroed((void **)&v, &cap, had + 1, sizeof(long)), 0);
	ck_assert_int_eq(v[0], 7);
	for (size_t i = had; i < cap; i++)
		ck_assert_int_eq(v[i], 0);
	free(v);
}
END_TEST

START_TEST(read_bounded)
{
	char path[] = "/tmp/check_core.XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	char block[1000];
	memset(block, 'x', sizeof(block));
	for (int i = 0; i < 100; i++)
		ck_assert_int_eq(write(fd, block, sizeof(block)), sizeof(block));
	close(fd);
	char *text;
	size_t len;
	ck_assert_int_eq(core_read_file(path, 100000, &text, &len), 0);
	ck_assert_uint_eq(len, 100000);
	ck_assert_int_eq(text[len], 0);
	free(text);
	/* One byte over the ceiling: refused, nothing returned. */
	text = NULL;
	ck_assert_int_eq(core_read_file(path, 99999, &text, &len), -EFBIG);
	ck_assert_ptr_null(text);
	unlink(path);
	ck_assert_int_eq(core_read_file(path, 10, &text, NULL), -ENOENT);
	/* /proc files report size 0; the text is there all the same. */
	ck_assert_int_eq(core_read_file("/proc/self/status", CORE_READ_PROC_MAX, &text, &len), 0);
	ck_assert_ptr_nonnull(strstr(text, "Tgid:"));
	free(text);
}
END_TEST

static int count_lines(const struct core_maps_line *m, void *arg)
{
	(void)m;
	++*(int *)arg;
	return 0;
}

START_TEST(maps_lines)
{
	struct core_maps_line m;
	ck_assert_int_eq(core_maps_parse_line("7f00-7f80 r-xp 00001000 fd:01 1234   /usr/lib/a b.so "
					      "(deleted)\n",
					      &m),
			 0);
	ck_assert_uint_eq(m.start, 0x7f00);
	ck_assert_uint_eq(m.end, 0x7f80);
	ck_assert_uint_eq(m.offset, 0x1000);
	ck_assert_uint_eq(m.dev_major, 0xfd);
	ck_assert_uint_eq(m.inode, 1234);
	ck_assert(m.x && m.p && !m.w);
	ck_assert(m.deleted);
	ck_assert_int_eq((int)m.path_len, (int)strlen("/usr/lib/a b.so"));
	ck_assert_int_eq(core_maps_parse_line("80-7f r-xp 0 0:0 0", &m), -1); /* end < start */
	ck_assert_int_eq(core_maps_parse_line("garbage", &m), -1);
	int n = 0;
	core_maps_foreach("1-2 r--p 0 0:0 0\nnot a line\n3-4 r--p 0 0:0 0 [stack]", count_lines, &n);
	ck_assert_int_eq(n, 2);
}
END_TEST

START_TEST(search)
{
	struct {
		uint64_t key;
		int payload;
	} v[] = { { 10, 0 }, { 20, 1 }, { 20, 2 }, { 30, 3 } };
	ck_assert_uint_eq(core_count_at_or_below(v, 4, sizeof(v[0]), 5), 0);
	ck_assert_uint_eq(core_count_at_or_below(v, 4, sizeof(v[0]), 10), 1);
	ck_assert_uint_eq(core_count_at_or_below(v, 4, sizeof(v[0]), 25), 3);
	ck_assert_uint_eq(core_count_at_or_below(v, 4, sizeof(v[0]), 99), 4);
	ck_assert_uint_eq(core_count_at_or_below(v, 0, sizeof(v[0]), 99), 0);
}
END_TEST

/* This program's own mapping of its executable, from /proc/self/maps. */
static int find_self(const struct core_maps_line *m, void *arg)
{
	struct core_maps_line *out = arg;
	if (m->x && m->path_len && !strncmp(m->path, out->path, m->path_len)) {
		*out = *m;
		return 1;
	}
	return 0;
}

START_TEST(open_mapped)
{
	char exe[4096], *maps;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = 0;
	ck_assert_int_eq(core_read_file("/proc/self/maps", CORE_READ_PROC_MAX, &maps, NULL), 0);
	struct core_maps_line m = { .path = exe };
	ck_assert_int_eq(core_maps_foreach(maps, find_self, &m), 1);
	free(maps);
	struct core_file_id id = { m.inode, m.dev_major, m.dev_minor };
	/* By path (pid 0: no map_files), the right file. */
	int fd = core_open_mapped(0, m.start, m.end, NULL, exe, &id);
	ck_assert_int_ge(fd, 0);
	ck_assert(core_same_file(fd, &id));
	close(fd);
	/* Through map_files (root here), then by path under a root. */
	fd = core_open_mapped(getpid(), m.start, m.end, "/proc/self/root", exe, &id);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* Another file at that path than the one mapped: refused. */
	struct core_file_id other = { m.inode + 1, m.dev_major, m.dev_minor };
	ck_assert_int_eq(core_open_mapped(0, m.start, m.end, NULL, exe, &other), -ESTALE);
	ck_assert_int_eq(core_open_mapped(0, 0, 0, NULL, "/nonexistent/x", NULL), -ENOENT);
}
END_TEST

/* Paths under a root stay under it; nothing waits; only regular files. */
START_TEST(open_in_root)
{
	char root[] = "/tmp/check_core_root.XXXXXX", outside[] = "/tmp/check_core_out.XXXXXX";
	char p[256];
	ck_assert_ptr_nonnull(mkdtemp(root));
	int ofd = mkstemp(outside);
	ck_assert_int_ge(ofd, 0);
	ck_assert_int_eq(write(ofd, "outside", 7), 7);
	close(ofd);
	snprintf(p, sizeof(p), "%s/lib", root);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/lib/real", root);
	int fd = open(p, O_WRONLY | O_CREAT, 0644);
	ck_assert_int_eq(write(fd, "inside", 6), 6);
	close(fd);
	snprintf(p, sizeof(p), "%s/lib/abs", root); /* an absolute link out */
	ck_assert_int_eq(symlink(outside, p), 0);
	snprintf(p, sizeof(p), "%s/lib/up", root); /* a relative one, up and out */
	ck_assert_int_eq(symlink("../../../../../../../../../../..", p), 0);
	snprintf(p, sizeof(p), "%s/lib/fifo", root);
	ck_assert_int_eq(mkfifo(p, 0644), 0);

	char buf[16] = "";
	fd = core_open_in_root(root, "/lib/real");
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 6);
	close(fd);
	/* The outside file's path, taken inside root: not there (openat2); or,
	 * where openat2 is missing (kernels before 5.6, and valgrind, which
	 * does not know it: CI's valgrind stage runs this walk), every link
	 * refused. Either way the outside file is not reached. */
	int r = core_open_in_root(root, "/lib/abs");
	ck_assert_msg(r == -ENOENT || r == -ELOOP, "absolute link: %d", r);
	snprintf(p, sizeof(p), "/lib/up%s", outside); /* ../.. stops at root */
	r = core_open_in_root(root, p);
	ck_assert_msg(r == -ENOENT || r == -ELOOP, "relative link up: %d", r);
	/* A FIFO opens without waiting, and is refused; so is a directory. */
	ck_assert_int_eq(core_open_in_root(root, "/lib/fifo"), -EINVAL);
	ck_assert_int_eq(core_open_in_root(root, "/lib"), -EINVAL);
	snprintf(p, sizeof(p), "%s/lib/fifo", root);
	ck_assert_int_eq(core_open_in_root(NULL, p), -EINVAL);
	/* No root: jeattach's own, where the outside file is. */
	fd = core_open_in_root(NULL, outside);
	ck_assert_int_ge(fd, 0);
	close(fd);
	const char *names[] = { "lib/real", "lib/abs", "lib/up", "lib/fifo", "lib" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", root, names[i]);
		i == 4 ? rmdir(p) : unlink(p);
	}
	rmdir(root);
	unlink(outside);
}
END_TEST

START_TEST(text_escape)
{
	char buf[64];
	core_text_escape("ev\033[31mil\n\x7f", buf, sizeof(buf));
	ck_assert_str_eq(buf, "ev\\x1b[31mil\\n\\x7f");
	core_text_escape("\033\033\033", buf, 6); /* whole escapes only */
	ck_assert_str_eq(buf, "\\x1b");
	/* C1 controls, in UTF-8 and raw; valid UTF-8 (with continuation bytes
	 * in 80..9F) untouched. */
	core_text_escape("a\xc2\x9b[2Jb\x9d" "c\xc4\x80\xc2\xa9", buf, sizeof(buf));
	ck_assert_str_eq(buf, "a\\x9b[2Jb\\x9d" "c\xc4\x80\xc2\xa9");
	ck_assert_uint_eq(core_utf8_len((const unsigned char *)"\xed\xa0\x80"), 0); /* surrogate */
	ck_assert_uint_eq(core_utf8_len((const unsigned char *)"\xe0\x80\x80"), 0); /* overlong */
	ck_assert_uint_eq(core_utf8_len((const unsigned char *)"\xf4\x90\x80\x80"), 0);
	ck_assert_uint_eq(core_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80"), 4);
	/* F5..FF begin no character, whatever follows */
	static const char *const no_lead[] = { "\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80",
					       "\xfc\x84\x80\x80\x80\x80", "\xfe\xbf\xbf",
					       "\xff\x80\x80" };
	for (size_t i = 0; i < sizeof(no_lead) / sizeof(no_lead[0]); i++)
		ck_assert_uint_eq(core_utf8_len((const unsigned char *)no_lead[i]), 0);
	char js[64];
	core_json_escape("a\xff\x80\x80", js, sizeof(js)); /* JSON output stays UTF-8 */
	ck_assert_str_eq(js, "\"a\\u00ff\\u0080\\u0080\"");
	core_text_escape("a\xfe\xbf\xbf", buf, sizeof(buf));
	ck_assert_str_eq(buf, "a\\xfe\\xbf\\xbf");
}
END_TEST

/* The did-you-mean both programs give: typos by edit distance (a swap is
 * one), abbreviations of several names, nothing for what is far off. */
START_TEST(suggest)
{
	static const char *const names[] = { "status", "stats", "activate", "deactivate", "json",
					     "top", "trend", "dot" };
	const size_t n = sizeof(names) / sizeof(names[0]);
	const char *near[CORE_SUGGEST_MAX];
	char buf[128];
	int abbrev;
	ck_assert_uint_eq(core_suggest("jsn", 3, names, n, near, CORE_SUGGEST_MAX, &abbrev), 1);
	ck_assert_str_eq(near[0], "json");
	ck_assert_int_eq(abbrev, 0);
	ck_assert_uint_eq(core_suggest("tpo", 3, names, n, near, CORE_SUGGEST_MAX, &abbrev), 1);
	ck_assert_str_eq(near[0], "top");
	ck_assert_uint_eq(core_suggest("ACTIVTE", 7, names, n, near, CORE_SUGGEST_MAX, &abbrev), 1);
	ck_assert_str_eq(near[0], "activate");
	ck_assert_uint_eq(core_suggest("stat", 4, names, n, near, CORE_SUGGEST_MAX, &abbrev), 2);
	ck_assert_int_eq(abbrev, 1);
	ck_assert_uint_eq(core_suggest("graphviz", 8, names, n, near, CORE_SUGGEST_MAX, &abbrev), 0);
	ck_assert_uint_eq(core_suggest("xy", 2, names, n, near, CORE_SUGGEST_MAX, &abbrev), 0);
	ck_assert_uint_eq(core_suggest("", 0, names, n, near, CORE_SUGGEST_MAX, &abbrev), 0);
	ck_assert_uint_eq(core_suggest("t", 1, names, n, near, 2, &abbrev), 2); /* at most max */
	ck_assert_uint_eq(core_suggest_text("tpo", 3, names, n, "", buf, sizeof(buf)), 1);
	ck_assert_str_eq(buf, "did you mean top?");
	ck_assert_uint_eq(core_suggest_text("t", 1, names, n, "--", buf, sizeof(buf)), 2);
	ck_assert_str_eq(buf, "did you mean --top or --trend?");
	core_suggest_text("st", 2, names, 5, "--", buf, sizeof(buf));
	ck_assert_str_eq(buf, "did you mean --status or --stats?");
	core_suggest_option("--stat=1", names, n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "option '--stat=1' is ambiguous (did you mean --status or --stats?)");
	core_suggest_option("--jsn", names, n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "unknown option '--jsn' (did you mean --json?)");
	core_suggest_option("-j", names, n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "unknown option '-j'");
	core_suggest_option("--frobnicate", names, n, buf, sizeof(buf));
	ck_assert_str_eq(buf, "unknown option '--frobnicate'");
	core_suggest_option("--jso", names, n, buf, sizeof(buf)); /* one: no ambiguity */
	ck_assert_str_eq(buf, "unknown option '--jso' (did you mean --json?)");
	char longword[200];
	memset(longword, 'a', sizeof(longword) - 1);
	longword[sizeof(longword) - 1] = 0;
	core_suggest_option(longword, names, n, buf, sizeof(buf)); /* cut, not overrun */
	ck_assert_uint_eq(strlen(buf), sizeof(buf) - 1);
}
END_TEST

START_TEST(list)
{
	const char *words[] = { "top", "flame", "dot" };
	const char *lists[] = { "top", "top and flame", "top, flame and dot" };
	char buf[32], small[8] = "";
	for (size_t k = 1; k <= 3; k++) {
		buf[0] = 0;
		for (size_t i = 0; i < k; i++)
			core_list_add(buf, sizeof(buf), i, k, " and ", words[i]);
		ck_assert_str_eq(buf, lists[k - 1]);
	}
	for (size_t i = 0; i < 3; i++) /* cut, not overrun */
		core_list_add(small, sizeof(small), i, 3, " or ", words[i]);
	ck_assert_str_eq(small, "top, fl");
	core_list_add(NULL, 0, 0, 1, " or ", "top"); /* no room: nothing written */
	/* Cut short: the first shown of total, and how many more. */
	buf[0] = 0;
	for (size_t i = 0; i < 2; i++)
		core_list_add_some(buf, sizeof(buf), i, 2, 5, words[i]);
	ck_assert_str_eq(buf, "top, flame and 3 more");
	buf[0] = 0;
	for (size_t i = 0; i < 3; i++)
		core_list_add_some(buf, sizeof(buf), i, 3, 3, words[i]);
	ck_assert_str_eq(buf, lists[2]);
}
END_TEST

void core_check_marker(void);
void core_check_marker(void)
{
}

START_TEST(elf_reader)
{
	struct core_elf *e;
	ck_assert_int_eq(core_elf_open_path("/proc/self/exe", &e), 0);
	ck_assert_int_eq(core_elf_class(e), ELFCLASS64);
	struct core_elf_sym y;
	ck_assert_int_eq(core_elf_lookup(e, "core_check_marker", CORE_ELF_BOTH, &y), 0);
	ck_assert_uint_ne(y.value, 0);
	ck_assert(!y.ifunc);
	ck_assert_int_eq(core_elf_lookup(e, "no_such_function_here", CORE_ELF_BOTH, &y), -ENOENT);
	uint64_t vaddr, off;
	ck_assert_int_eq(core_elf_first_load(e, &vaddr, &off), 0);
	ck_assert_int_eq(core_elf_segment(e, 0x12345678, &vaddr), -ENOENT);
	const void *data;
	size_t len;
	ck_assert_int_eq(core_elf_section(e, ".text", &data, &len), 0);
	ck_assert_uint_gt(len, 0);
	ck_assert(core_elf_has_section(e, ".text"));
	ck_assert(!core_elf_has_section(e, ".no_such_section"));
	core_elf_close(e);
	/* Not ELF: refused, descriptor taken either way. */
	ck_assert_int_eq(core_elf_open_path("/proc/self/status", &e), -ENOEXEC);
	char *junk = malloc(64);
	memset(junk, 0x7f, 64);
	ck_assert_int_eq(core_elf_open_memory(junk, 64, &e), -ENOEXEC);
	core_elf_close(NULL);
}
END_TEST

static int count_kinds(int kind, const char *v, size_t vl, const char *path, size_t pl, void *arg)
{
	(void)v;
	(void)vl;
	(void)path;
	(void)pl;
	((int *)arg)[kind]++;
	return 0;
}

START_TEST(stamp_time)
{
	int64_t sec;
	uint32_t nsec;
	char line[80];
	size_t n = core_stamp_time_line(1700000000, 5, line, sizeof(line));
	ck_assert_str_eq(line, "# jeattach dump-time 1700000000.000000005\n");
	ck_assert_uint_eq(n, strlen(line));
	const char *v = line + strlen(CORE_STAMP_TIME);
	ck_assert_int_eq(core_stamp_time(v, n - strlen(CORE_STAMP_TIME) - 1, &sec, &nsec), 0);
	ck_assert_int_eq(sec, 1700000000);
	ck_assert_uint_eq(nsec, 5);
	/* Not what jeattach writes: no fraction, a short one, a sign, 13
	 * digits of seconds (could not be a time, and would near overflow). */
	static const char *const bad[] = { "1700000000", "1700000000.5", "-1.000000000",
					   "1234567890123.000000000", ".000000000", "1e9.000000000" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(core_stamp_time(bad[i], strlen(bad[i]), &sec, &nsec), -1);
	/* Only the trailing block, from its boot-id line, is read. */
	static const char maps[] =
		"00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n"
		"# jeattach dump-time 1.000000000\n"
		"00500000-00501000 r-xp 00000000 08:01 2 /bin/y\n"
		"# jeattach dump-time 2.000000000\n"
		"# jeattach boot-id 00000000-0000-0000-0000-000000000000\n"
		"# jeattach dump-time 3.000000000\n"
		"# jeattach build-id 0123456789abcdef /bin/x\n";
	int kinds[4] = { 0 };
	ck_assert_int_eq(core_stamp_foreach(maps, count_kinds, kinds), 0);
	ck_assert_int_eq(kinds[CORE_STAMP_IS_BOOT], 1);
	ck_assert_int_eq(kinds[CORE_STAMP_IS_TIME], 1);
	ck_assert_int_eq(kinds[CORE_STAMP_IS_BUILD], 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, grow);
	tcase_add_test(tc, grow_zeroed);
	tcase_add_test(tc, read_bounded);
	tcase_add_test(tc, maps_lines);
	tcase_add_test(tc, search);
	tcase_add_test(tc, open_mapped);
	tcase_add_test(tc, open_in_root);
	tcase_add_test(tc, text_escape);
	tcase_add_test(tc, suggest);
	tcase_add_test(tc, list);
	tcase_add_test(tc, elf_reader);
	tcase_add_test(tc, stamp_time);
	suite_add_tcase(s, tc);
	return check_run(s);
}
