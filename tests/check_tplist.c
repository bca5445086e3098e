/* SPDX-License-Identifier: BSD-2-Clause */
/* tplist over forged memory images: glibc's lists as glibc lays them out
 * (x86_64's and aarch64's distances from the thread pointer), and hostile
 * ones: an ambiguous node, cycles that do not close, garbage pointers, a
 * list far longer than the read budget, a tid claimed twice. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "check_run.h"
#include "tplist.h"

#define BASE 0x7f0000000000ull
#define SIZE (1u << 20)

static unsigned char *mem;
static int nreads;

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	nreads++;
	if (addr < BASE || addr + len > BASE + SIZE || addr + len < addr)
		return -1;
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

static const struct tplist_mem fake = { fake_read, NULL };

static void put64(uint64_t a, uint64_t v)
{
	memcpy(mem + (a - BASE), &v, 8);
}

static void put32(uint64_t a, int32_t v)
{
	memcpy(mem + (a - BASE), &v, 4);
}

static uint64_t get64(uint64_t a)
{
	uint64_t v;
	memcpy(&v, mem + (a - BASE), 8);
	return v;
}

static void list_init(uint64_t head)
{
	put64(head, head);
	put64(head + 8, head);
}

/* glibc's list_add (include/list.h): node after head. */
static void list_add(uint64_t node, uint64_t head)
{
	uint64_t next = get64(head);
	put64(next + 8, node);
	put64(node, next);
	put64(node + 8, head);
	put64(head, node);
}

/* _rtld_global's three neighbouring heads (ldsodefs.h, 2.33+). */
#define USED (BASE + 0x100)
#define USER (BASE + 0x110)
#define CACHE (BASE + 0x120)

/* A descriptor for tid with thread pointer tp; its node at tp + off. */
static uint64_t thread(uint64_t tp, int64_t off, pid_t tid, uint64_t head)
{
	uint64_t node = tp + (uint64_t)off;
	list_add(node, head);
	put32(node + 16, tid);
	return node;
}

static pid_t want_tids[8];
static int nwant;

static int want(void *ctx, pid_t tid)
{
	(void)ctx;
	for (int i = 0; i < nwant; i++)
		if (want_tids[i] == tid)
			return 1;
	return 0;
}

static void setup(void)
{
	mem = calloc(SIZE, 1);
	ck_assert_ptr_nonnull(mem);
	list_init(USED);
	list_init(USER);
	list_init(CACHE);
	nreads = 0;
	nwant = 0;
}

static void teardown(void)
{
	free(mem);
}

static uint64_t tp_of(int i)
{
	return BASE + 0x10000 + (uint64_t)i * 0x4000;
}

/* Four threads, the initial one on the user list, an ended one cached. */
static void glibc_image(int64_t off)
{
	thread(tp_of(0), off, 100, USER);
	for (int i = 1; i <= 3; i++)
		thread(tp_of(i), off, 100 + i, USED);
	thread(tp_of(4), off, 0, CACHE); /* tid cleared at its end */
	nwant = 4;
	for (int i = 0; i < 4; i++)
		want_tids[i] = 100 + i;
}

static void check_all_found(int64_t off, int from)
{
	int64_t got_off = 0;
	struct tplist_thread v[8];
	ck_assert_int_eq(tplist_find(&fake, tp_of(from), 100 + from, &got_off), 0);
	ck_assert_int_eq(got_off, off);
	int n = tplist_walk(&fake, tp_of(from) + (uint64_t)off, off, want, NULL, 100, v, 8);
	ck_assert_int_eq(n, 4);
	for (int i = 0; i < 4; i++) {
		ck_assert_int_eq(v[i].tid, 100 + i);
		ck_assert_uint_eq(v[i].tp, tp_of(i));
	}
}

START_TEST(x86_64_layout)
{
	glibc_image(704); /* list after tcbhead_t, tp == descriptor */
	check_all_found(704, 2);
	check_all_found(704, 0); /* from the initial thread: the used list is next door */
}
END_TEST

/* The thread the list was found from has ended: its descriptor is on the
 * stack cache, two lists away from the used one. */
START_TEST(from_the_cache)
{
	glibc_image(704);
	struct tplist_thread v[8];
	int n = tplist_walk(&fake, tp_of(4) + 704, 704, want, NULL, 100, v, 8);
	ck_assert_int_eq(n, 4);
	for (int i = 0; i < 4; i++)
		ck_assert_uint_eq(v[i].tp, tp_of(i));
}
END_TEST

START_TEST(aarch64_layout)
{
	glibc_image(192 - 1792); /* tp = descriptor + sizeof (struct pthread) */
	check_all_found(192 - 1792, 1);
}
END_TEST

/* A second place near the thread pointer holding a linked node and the
 * tid: which one is the descriptor's is not known, so neither. */
START_TEST(ambiguous)
{
	glibc_image(704);
	uint64_t a = tp_of(1) + 64, b = tp_of(1) + 128;
	put64(a, b);
	put64(a + 8, b);
	put64(b, a);
	put64(b + 8, a);
	put32(a + 16, 101);
	int64_t off;
	ck_assert_int_eq(tplist_find(&fake, tp_of(1), 101, &off), -1);
	ck_assert_int_eq(tplist_find(&fake, tp_of(1), 999, &off), -1);
	ck_assert_int_eq(tplist_find(&fake, BASE + 0x20001, 101, &off), -1); /* misaligned */
	ck_assert_int_eq(tplist_find(&fake, 8, 101, &off), -1);               /* wraps */
}
END_TEST

/* The start's next leads into a ring that does not point back: the walk
 * stops there; pointers into nothing, or odd, end it too. */
START_TEST(forged_links)
{
	uint64_t s = BASE + 0x8000, a = BASE + 0x9000, b = BASE + 0xa000;
	put64(s, a);
	put64(s + 8, USED);
	put32(s + 16, 101);
	put64(a, b);
	put64(a + 8, b); /* not s */
	put32(a + 16, 102);
	put64(b, a);
	put64(b + 8, a);
	put32(b + 16, 103);
	want_tids[0] = 101, want_tids[1] = 102, want_tids[2] = 103, nwant = 3;
	struct tplist_thread v[8];
	int n = tplist_walk(&fake, s, 0, want, NULL, 50, v, 8);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(v[0].tid, 101);
	put64(s, 0xdead0000000ull); /* unreadable */
	ck_assert_int_eq(tplist_walk(&fake, s, 0, want, NULL, 50, v, 8), 1);
	put64(s, a + 3); /* odd */
	ck_assert_int_eq(tplist_walk(&fake, s, 0, want, NULL, 50, v, 8), 1);
	ck_assert_int_eq(tplist_walk(&fake, 0xdead0000000ull, 0, want, NULL, 50, v, 8), 0);
}
END_TEST

/* A consistent ring of 20000 nodes, and the neighbours of each tried as
 * heads: the budget bounds the reads, and the walk ends. */
START_TEST(huge_ring)
{
	uint64_t first = BASE + 0x40000;
	list_init(USED);
	for (int i = 0; i < 20000; i++)
		thread(first + (uint64_t)i * 32, 0, 5000 + i, USED);
	want_tids[0] = 5001, nwant = 1;
	struct tplist_thread v[8];
	nreads = 0;
	int n = tplist_walk(&fake, first, 0, want, NULL, 300, v, 8);
	ck_assert_int_le(nreads, 300 + 4);
	ck_assert_int_le(n, 1);
	/* A budget large enough: the ring closes, each node read once. */
	nreads = 0;
	n = tplist_walk(&fake, first, 0, want, NULL, 1000000, v, 8);
	ck_assert_int_eq(n, 1);
	ck_assert_uint_eq(v[0].tp, first + 32);
	ck_assert_int_le(nreads, 2 * 20000 + 2 * 64 * 4 + 8);
}
END_TEST

/* Two nodes claim one tid: believed for neither. */
START_TEST(tid_twice)
{
	glibc_image(704);
	thread(BASE + 0x60000, 704, 102, USED);
	struct tplist_thread v[8];
	int n = tplist_walk(&fake, tp_of(1) + 704, 704, want, NULL, 100, v, 8);
	ck_assert_int_eq(n, 3);
	for (int i = 0; i < n; i++)
		ck_assert_int_ne(v[i].tid, 102);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("tplist");
	TCase *tc = tcase_create("walk");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, x86_64_layout);
	tcase_add_test(tc, aarch64_layout);
	tcase_add_test(tc, from_the_cache);
	tcase_add_test(tc, ambiguous);
	tcase_add_test(tc, forged_links);
	tcase_add_test(tc, huge_ring);
	tcase_add_test(tc, tid_twice);
	suite_add_tcase(s, tc);
	return check_run(s);
}
