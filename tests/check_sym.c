/* SPDX-License-Identifier: BSD-2-Clause */
/* The symbol layer against known text and against this very process. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "arch.h"
#include "sym.h"
#include "sym_maps.h"

START_TEST(maps_parse_fields)
{
	const char *text =
		"55d0c7a00000-55d0c7a01000 r--p 00000000 fe:00 10952845                   /usr/bin/a b\n"
		"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n"
		"7f1000000000-7f1000100000 r-xp 00002000 08:01 42   /opt/x.so (deleted)\n"
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]\n";
	struct sym_maps m;
	ck_assert_int_eq(sym_maps_parse(text, &m, NULL), 0);
	ck_assert_uint_eq(m.n, 4);
	ck_assert_uint_eq(m.v[0].start, 0x55d0c7a00000ULL);
	ck_assert_str_eq(m.v[0].path, "/usr/bin/a b");
	ck_assert_int_eq(m.v[0].r, 1);
	ck_assert_int_eq(m.v[0].x, 0);
	ck_assert_str_eq(m.v[1].path, "");
	ck_assert_uint_eq(m.v[2].offset, 0x2000);
	ck_assert_uint_eq(m.v[2].inode, 42);
	ck_assert_uint_eq(m.v[2].dev_major, 8);
	ck_assert_int_eq(m.v[2].x, 1);
	ck_assert_int_eq(m.v[2].deleted, 1);
	ck_assert_str_eq(m.v[2].path, "/opt/x.so");
	ck_assert_str_eq(m.v[3].path, "[stack]");
	ck_assert_ptr_eq(sym_maps_find(&m, 0x7f1000000010ULL), &m.v[2]);
	ck_assert_ptr_null(sym_maps_find(&m, 0x10));
	ck_assert_ptr_null(sym_maps_find(&m, 0x7f1000100000ULL));
	sym_maps_free(&m);
}
END_TEST

START_TEST(maps_parse_rejects)
{
	struct sym_maps m;
	size_t bad = 0;
	ck_assert_int_eq(sym_maps_parse("1000-2000 r-xp 0 0:0 0 /a\nnot a maps line\n", &m, &bad),
			 -EINVAL);
	ck_assert_uint_eq(bad, 2);
	ck_assert_int_eq(sym_maps_parse("2000-1000 r-xp 0 0:0 0 /a\n", &m, &bad), -EINVAL);
	ck_assert_int_eq(sym_maps_parse("", &m, &bad), 0);
	ck_assert_uint_eq(m.n, 0);
	sym_maps_free(&m);
}
END_TEST

START_TEST(ranges)
{
	struct sym_ranges r = { 0 };
	ck_assert_int_eq(sym_ranges_contains(&r, 5), 0);
	sym_ranges_add(&r, 100, 200);
	sym_ranges_add(&r, 10, 20);
	sym_ranges_add(&r, 150, 160); /* inside another */
	sym_ranges_add(&r, 300, 301);
	sym_ranges_sort(&r);
	ck_assert_int_eq(sym_ranges_contains(&r, 9), 0);
	ck_assert_int_eq(sym_ranges_contains(&r, 10), 1);
	ck_assert_int_eq(sym_ranges_contains(&r, 20), 0);
	ck_assert_int_eq(sym_ranges_contains(&r, 170), 1); /* past the nested one */
	ck_assert_int_eq(sym_ranges_contains(&r, 199), 1);
	ck_assert_int_eq(sym_ranges_contains(&r, 200), 0);
	ck_assert_int_eq(sym_ranges_contains(&r, 300), 1);
	ck_assert_int_eq(sym_ranges_contains(&r, 301), 0);
	sym_ranges_free(&r);
}
END_TEST

/* This test program has no jemalloc: locating it must say so. */
START_TEST(no_jemalloc_here)
{
	struct sym_maps m;
	struct sym_jemalloc je;
	char why[512];
	ck_assert_int_eq(sym_maps_read(getpid(), &m), 0);
	ck_assert_int_eq(sym_locate_jemalloc(getpid(), &m, NULL, &je, why, sizeof(why)), -ENOENT);
	sym_jemalloc_free(&je);
	sym_maps_free(&m);
}
END_TEST

START_TEST(linkmap_of_self)
{
	struct sym_linkmap_entry *lm;
	size_t n;
	ck_assert_int_eq(sym_linkmap_read(getpid(), &lm, &n), 0);
	ck_assert_uint_ge(n, 2);
	/* Entries are tied to mappings by l_ld (their dynamic section lies in
	 * their own mapping): libc is among them, the program comes first. */
	struct sym_maps m;
	char exe[4096];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(len, 0);
	exe[len] = 0;
	ck_assert_int_eq(sym_maps_read(getpid(), &m), 0);
	int libc = 0;
	for (size_t i = 0; i < n; i++) {
		const struct sym_map *mm = sym_maps_find(&m, lm[i].l_ld);
		libc |= mm && strstr(mm->path, "libc.so") != NULL;
	}
	ck_assert_int_eq(libc, 1);
	const struct sym_map *first = sym_maps_find(&m, lm[0].l_ld);
	ck_assert_ptr_nonnull(first);
	ck_assert_str_eq(first->path, exe); /* the program itself */
	sym_maps_free(&m);
	free(lm);
}
END_TEST

START_TEST(unwind_table_and_syscall_of_self)
{
	struct sym_maps m;
	ck_assert_int_eq(sym_maps_read(getpid(), &m), 0);
	struct sym_unwind_table ut;
	uint64_t fn = (uint64_t)(uintptr_t)&getpid; /* in libc's text */
	ck_assert_int_eq(sym_unwind_table(getpid(), &m, fn, &ut), 0);
	ck_assert_uint_le(ut.text_start, fn);
	ck_assert_uint_gt(ut.text_end, fn);
	ck_assert_uint_eq(((const unsigned char *)(uintptr_t)ut.eh_frame_hdr)[0], 1); /* version */
	ck_assert_int_eq(sym_unwind_table(getpid(), &m, 0x10, &ut), -ENOENT);
	uint64_t insn;
	ck_assert_int_eq(sym_find_syscall_insn(getpid(), &m, &insn), 0);
	ck_assert_int_eq(memcmp((const void *)(uintptr_t)insn, ARCH_SYSCALL_INSN,
			 ARCH_SYSCALL_INSN_LEN), 0);
	ck_assert_uint_eq(insn % ARCH_INSN_ALIGN, 0); /* a whole instruction */
	sym_maps_free(&m);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sym");
	TCase *tc = tcase_create("sym");
	tcase_add_test(tc, maps_parse_fields);
	tcase_add_test(tc, maps_parse_rejects);
	tcase_add_test(tc, ranges);
	tcase_add_test(tc, no_jemalloc_here);
	tcase_add_test(tc, linkmap_of_self);
	tcase_add_test(tc, unwind_table_and_syscall_of_self);
	suite_add_tcase(s, tc);
	return check_run(s);
}
