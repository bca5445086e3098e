/* SPDX-License-Identifier: BSD-2-Clause */
/* The remote-call layer's parts that need no process: whose memory is read
 * when no thread is held. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <string.h>
#include "rcall.h"
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

int main(void)
{
	Suite *s = suite_create("rcall");
	TCase *tc = tcase_create("memory");
	tcase_add_test(tc, memory_without_a_hold);
	suite_add_tcase(s, tc);
	return check_run(s);
}
