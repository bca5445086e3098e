/* SPDX-License-Identifier: BSD-2-Clause */
/* sec_bpf: seccomp filters evaluated outside the target, as the kernel
 * would run them; programs the kernel would refuse answer "kill". */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <fcntl.h>
#include <stddef.h>
#include <sys/syscall.h>
#include "sec_bpf.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NR offsetof(struct seccomp_data, nr)
#define ARG2 offsetof(struct seccomp_data, args[2])

static struct seccomp_data call(int nr, uint64_t a2)
{
	struct seccomp_data d = { .nr = nr, .arch = 0xc000003e };
	d.args[2] = a2;
	return d;
}

START_TEST(by_number)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_memfd_create, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct seccomp_data d = call(SYS_memfd_create, 0);
	ck_assert_uint_eq(sec_bpf_run(f, N(f), &d), SECCOMP_RET_KILL_PROCESS);
	d = call(SYS_close, 0);
	ck_assert_uint_eq(sec_bpf_run(f, N(f), &d), SECCOMP_RET_ALLOW);
}
END_TEST

START_TEST(by_argument)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG2),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 13),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct seccomp_data d = call(SYS_openat, O_WRONLY | O_CREAT | O_TRUNC);
	ck_assert_uint_eq(sec_bpf_run(f, N(f), &d), SECCOMP_RET_ERRNO | 13);
	d = call(SYS_openat, O_RDONLY);
	ck_assert_uint_eq(sec_bpf_run(f, N(f), &d), SECCOMP_RET_ALLOW);
}
END_TEST

START_TEST(alu_memory_and_x)
{
	/* A = nr; M[3] = A; A = A & 0xff; X = A; A = M[3]; A = A - X: 0 for
	 * numbers below 256, so RET A is 0 = KILL_THREAD; with RET_A. */
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR),
		BPF_STMT(BPF_ST, 3),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xff),
		BPF_STMT(BPF_MISC | BPF_TAX, 0),
		BPF_STMT(BPF_LD | BPF_MEM, 3),
		BPF_STMT(BPF_ALU | BPF_SUB | BPF_X, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_A, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct seccomp_data d = call(3, 0);
	ck_assert_uint_eq(sec_bpf_run(f, N(f), &d), 0); /* A == 0 */
	d = call(0x1003, 0);
	ck_assert_uint_eq(sec_bpf_run(f, N(f), &d), SECCOMP_RET_ALLOW);
}
END_TEST

START_TEST(bad_programs_kill)
{
	struct seccomp_data d = call(1, 0);
	struct sock_filter out_of_range[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, sizeof(struct seccomp_data)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	ck_assert_uint_eq(sec_bpf_run(out_of_range, N(out_of_range), &d), SECCOMP_RET_KILL_PROCESS);
	struct sock_filter unaligned[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	ck_assert_uint_eq(sec_bpf_run(unaligned, N(unaligned), &d), SECCOMP_RET_KILL_PROCESS);
	struct sock_filter jump_out[] = {
		BPF_JUMP(BPF_JMP | BPF_JA, 100, 0, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	ck_assert_uint_eq(sec_bpf_run(jump_out, N(jump_out), &d), SECCOMP_RET_KILL_PROCESS);
	struct sock_filter no_return[] = { BPF_STMT(BPF_LD | BPF_W | BPF_ABS, NR) };
	ck_assert_uint_eq(sec_bpf_run(no_return, N(no_return), &d), SECCOMP_RET_KILL_PROCESS);
	struct sock_filter div0[] = {
		BPF_STMT(BPF_ALU | BPF_DIV | BPF_K, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	ck_assert_uint_eq(sec_bpf_run(div0, N(div0), &d), SECCOMP_RET_KILL_PROCESS);
	ck_assert_uint_eq(sec_bpf_run(NULL, 0, &d), SECCOMP_RET_KILL_PROCESS);
}
END_TEST

START_TEST(precedence_and_kills)
{
	/* The kernel obeys the strongest answer of all filters. */
	ck_assert_uint_eq(sec_bpf_stronger(SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO | 1),
			  SECCOMP_RET_ERRNO | 1);
	ck_assert_uint_eq(sec_bpf_stronger(SECCOMP_RET_TRAP, SECCOMP_RET_ERRNO | 1),
			  SECCOMP_RET_TRAP);
	ck_assert_uint_eq(sec_bpf_stronger(SECCOMP_RET_KILL_THREAD, SECCOMP_RET_TRAP),
			  SECCOMP_RET_KILL_THREAD);
	ck_assert_uint_eq(sec_bpf_stronger(SECCOMP_RET_KILL_THREAD, SECCOMP_RET_KILL_PROCESS),
			  SECCOMP_RET_KILL_PROCESS);
	ck_assert_uint_eq(sec_bpf_stronger(SECCOMP_RET_LOG, SECCOMP_RET_ALLOW), SECCOMP_RET_LOG);
	ck_assert(sec_bpf_kills(SECCOMP_RET_KILL_PROCESS));
	ck_assert(sec_bpf_kills(SECCOMP_RET_KILL_THREAD));
	ck_assert(sec_bpf_kills(SECCOMP_RET_USER_NOTIF));
	ck_assert(sec_bpf_kills(0x12340000)); /* unknown */
	ck_assert(!sec_bpf_kills(SECCOMP_RET_ERRNO | 1));
	ck_assert(!sec_bpf_kills(SECCOMP_RET_TRAP));
	ck_assert(!sec_bpf_kills(SECCOMP_RET_ALLOW));
	ck_assert(!sec_bpf_kills(SECCOMP_RET_LOG));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("seccomp");
	TCase *tc = tcase_create("bpf");
	tcase_add_test(tc, by_number);
	tcase_add_test(tc, by_argument);
	tcase_add_test(tc, alu_memory_and_x);
	tcase_add_test(tc, bad_programs_kill);
	tcase_add_test(tc, precedence_and_kills);
	suite_add_tcase(s, tc);
	return check_run(s);
}
