/* SPDX-License-Identifier: BSD-2-Clause */
/* The remote-call layer's parts that need no process: whose memory is read
 * when no thread is held; which stacks calls may run on without a mapping. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <string.h>
#include "rcall.h"
#include "rcall_internal.h"
#include "sym_maps.h"
#include "target.h"

/* No hold (no rcall context at all, as before the first attach): memory
 * goes through io_pid, the process's own /proc entry. It once called itself
 * here, an endless loop at -O2; Check's per-test timeout catches that. */
START_TEST(memory_without_a_hold)
{
	struct target t;
	memset(&t, 0, sizeof(t));
	t.pid = 4242;
	t.io_pid = 4243; /* a live thread standing for an ended leader */
	ck_assert_int_eq(rcall_mem_pid(&t), 4243);
}
END_TEST

/* Where no scratch mapping can be made, calls run below a thread's red
 * zone only on a real stack with room: the kernel's [stack], or a mapping
 * with glibc's PROT_NONE guard right below it. A coroutine's stack carved
 * from the heap, or one without its guard, is never written past. */
static struct sym_map stack_map(uint64_t start, uint64_t end, int r, int w, const char *path)
{
	struct sym_map m = { .start = start, .end = end, .r = r, .w = w, .p = 1 };
	m.path = (char *)path;
	return m;
}

START_TEST(stack_room)
{
	struct sym_map v[] = {
		stack_map(0x1000, 0x200000, 1, 1, ""),          /* a heap-like mapping */
		stack_map(0x300000, 0x301000, 0, 0, ""),        /* glibc's guard */
		stack_map(0x301000, 0xb01000, 1, 1, ""),        /* an 8 MiB thread stack */
		stack_map(0xc00000, 0xd80000, 1, 1, "[stack]"), /* the main thread's */
		stack_map(0xe00000, 0xf00000, 1, 1, "/lib/x.so"),
	};
	struct sym_maps maps = { v, sizeof(v) / sizeof(v[0]) };
	const uint64_t need = 0x110000;
	ck_assert_int_eq(rcall_stack_room(&maps, 0xb00000, need), 1);
	ck_assert_int_eq(rcall_stack_room(&maps, 0x301000 + need, need), 1);
	ck_assert_int_eq(rcall_stack_room(&maps, 0x301000 + need - 8, need), 0); /* no room */
	ck_assert_int_eq(rcall_stack_room(&maps, 0x1f0000, need), 0); /* no guard below */
	ck_assert_int_eq(rcall_stack_room(&maps, 0xd7f000, need), 1);
	ck_assert_int_eq(rcall_stack_room(&maps, 0xc00100, need), 0); /* [stack], no room */
	ck_assert_int_eq(rcall_stack_room(&maps, 0xef0000, need), 0); /* a file */
	ck_assert_int_eq(rcall_stack_room(&maps, 0x300800, need), 0); /* the guard itself */
	ck_assert_int_eq(rcall_stack_room(&maps, 0x280000, need), 0); /* unmapped */
	v[1].r = 1; /* the neighbour below is accessible: not a guard */
	ck_assert_int_eq(rcall_stack_room(&maps, 0xb00000, need), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("rcall");
	TCase *tc = tcase_create("memory");
	tcase_add_test(tc, memory_without_a_hold);
	tcase_add_test(tc, stack_room);
	suite_add_tcase(s, tc);
	return check_run(s);
}
