/* SPDX-License-Identifier: BSD-2-Clause */
/* The architecture's pure functions (src/arch/<cpu>/), on whatever this was
 * built for: x86_64 natively, aarch64 under qemu-aarch64 (doc/arm64.md).
 * The restart rules are the kernel's (x86: arch_do_signal_or_restart;
 * arm64: do_signal): a thread stopped in an interrupted system call must
 * re-execute it with its own first argument, or go through restart_syscall
 * for -ERESTART_RESTARTBLOCK; a call set up in a thread must leave no
 * syscall for the kernel to restart. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include "arch.h"
#include "arch_check.h"
#include "kernel_restart.h"

#define INSN 0x7f0000001000ULL

START_TEST(interrupted_syscall_rewinds)
{
	arch_gpregs_t r;
	arch_check_in_syscall(&r, INSN, 232, 0x1234, -ERESTARTSYS);
	ck_assert(arch_in_syscall(&r));
	ck_assert_int_eq(arch_syscall_nr(&r), 232);
	ck_assert_uint_eq(arch_syscall_arg(&r, 0), 0x1234);
	ck_assert(!arch_restarts_by_block(&r));
	arch_rewind_for_sigreturn(&r);
	ck_assert_uint_eq(arch_pc(&r), INSN); /* back on the syscall instruction */
	long nr;
	uint64_t arg0;
	arch_check_reexec(&r, &nr, &arg0); /* ... asked the same again */
	ck_assert_int_eq(nr, 232);
	ck_assert_uint_eq(arg0, 0x1234);
	/* Written back after calls ran: the same re-execution (arm64 cannot
	 * write the kernel's orig_x0; x86_64 writes orig_rax back as found). */
	arch_check_in_syscall(&r, INSN, 232, 0x1234, -ERESTARTSYS);
	arch_prepare_release(&r);
	arch_check_reexec(&r, &nr, &arg0);
	ck_assert(arch_pc(&r) == INSN ? nr == 232 && arg0 == 0x1234 : arch_in_syscall(&r));
}
END_TEST

START_TEST(restart_block_goes_through_restart_syscall)
{
	arch_gpregs_t r;
	arch_check_in_syscall(&r, INSN, 230, 7, -ERESTART_RESTARTBLOCK);
	ck_assert(arch_restarts_by_block(&r));
	arch_rewind_for_sigreturn(&r);
	ck_assert_uint_eq(arch_pc(&r), INSN);
	long nr;
	uint64_t arg0;
	arch_check_reexec(&r, &nr, &arg0);
	ck_assert_int_eq(nr, ARCH_CHECK_NR_RESTART_SYSCALL);
}
END_TEST

/* A call re-made at release (rcall_wait.c): rewound onto the call itself,
 * not restart_syscall, its timeout argument pointed elsewhere, then shown
 * to the kernel as interrupted with -ERESTARTNOHAND where the kernel applies
 * that at the stop (x86_64), left rewound where it does not (arm64). Either
 * way the thread makes the same call, with the new argument. */
START_TEST(remade_call_keeps_its_number)
{
	arch_gpregs_t r;
	arch_check_in_syscall(&r, INSN, 230, 7, -ERESTART_RESTARTBLOCK);
	arch_syscall_rewind(&r);
	ck_assert_uint_eq(arch_pc(&r), INSN);
	arch_set_rewound_arg(&r, 2, 0xabc0);
	arch_set_rewound_arg(&r, 0, 9);
	ck_assert_uint_eq(arch_rewound_arg(&r, 2), 0xabc0);
	ck_assert_uint_eq(arch_rewound_arg(&r, 0), 9);
	arch_gpregs_t frame = r;
	arch_rewind_for_sigreturn(&frame); /* the crash-safe frame: as is */
	long nr;
	uint64_t arg0;
	arch_check_reexec(&frame, &nr, &arg0);
	ck_assert_int_eq(nr, 230);
	ck_assert_uint_eq(arg0, 9);
	arch_syscall_interrupted(&r, ERESTARTNOHAND);
	if (ARCH_RESTART_AT_STOP) {
		ck_assert(arch_in_syscall(&r));
		ck_assert_int_eq(arch_syscall_nr(&r), 230);
		ck_assert_int_eq(arch_syscall_ret(&r), -ERESTARTNOHAND);
		ck_assert_uint_eq(arch_pc(&r), INSN + ARCH_SYSCALL_INSN_LEN);
		ck_assert(!arch_restarts_by_block(&r));
		arch_rewind_for_sigreturn(&r); /* what the kernel does with no handler */
	}
	arch_prepare_release(&r);
	ck_assert_uint_eq(arch_pc(&r), INSN);
	arch_check_reexec(&r, &nr, &arg0);
	ck_assert_int_eq(nr, 230);
	ck_assert_uint_eq(arg0, 9);
	ck_assert_uint_eq(arch_rewound_arg(&r, 2), 0xabc0);
	ck_assert(arch_sigframe_spare() + 128 <= arch_sigframe_size(576));
}
END_TEST

START_TEST(finished_syscall_left_alone)
{
	arch_gpregs_t r, before;
	arch_check_in_syscall(&r, INSN, 0, 3, 42);
	before = r;
	arch_rewind_for_sigreturn(&r);
	ck_assert_int_eq(memcmp(&r, &before, sizeof(r)), 0);
	arch_set_syscall_result(&r, -EPERM);
	ck_assert_int_eq(arch_syscall_ret(&r), -EPERM);
	ck_assert(!arch_in_syscall(&r)); /* nothing left for the kernel to restart */
}
END_TEST

START_TEST(spurious_eintr_rewound)
{
	arch_gpregs_t r;
	arch_check_in_syscall(&r, INSN, 22, 5, -EINTR);
	arch_syscall_rewind(&r);
	ck_assert_uint_eq(arch_pc(&r), INSN);
	long nr;
	uint64_t arg0;
	arch_check_reexec(&r, &nr, &arg0);
	ck_assert_int_eq(nr, 22);
	ck_assert_uint_eq(arg0, 5);
	arch_set_syscall_arg(&r, 3, 77); /* a register timeout, shortened */
	ck_assert_uint_eq(arch_syscall_arg(&r, 3), 77);
}
END_TEST

START_TEST(call_setup)
{
	arch_gpregs_t r;
	struct arch_stack_write w = { 0 };
	uint64_t args[ARCH_MAX_CALL_ARGS];
	for (int i = 0; i < ARCH_MAX_CALL_ARGS; i++)
		args[i] = 100 + (uint64_t)i;
	arch_check_in_syscall(&r, INSN, 7, 1, -ERESTARTSYS);
	ck_assert_int_eq(arch_call_setup(&r, 0x5000, args, ARCH_MAX_CALL_ARGS, 0x7ffd1237,
					 ARCH_RETURN_TRAP, &w),
			 0);
	ck_assert_uint_eq(arch_pc(&r), 0x5000);
	ck_assert(!arch_in_syscall(&r)); /* no restart applied to the call */
	ck_assert_uint_eq(arch_check_return_address(&r, &w), ARCH_RETURN_TRAP);
	/* the ABI's stack alignment at entry, the return address counted */
	uint64_t sp = arch_sp(&r) + (w.present ? 8 : 0);
	ck_assert_uint_eq(sp % ARCH_STACK_ALIGN, 0);
	ck_assert_uint_le(arch_sp(&r), 0x7ffd1237);
	ck_assert_int_eq(arch_call_setup(&r, 0x5000, args, ARCH_MAX_CALL_ARGS + 1, 0x7ffd1237,
					 ARCH_RETURN_TRAP, &w),
			 -EINVAL);
}
END_TEST

/* The crash-safe path's frame: the thread's state as found, the
 * interrupted syscall rewound (rt_sigreturn leaves no restart to do). */
START_TEST(sigframe_restores_the_thread)
{
	static unsigned char fp[4096], frame[16384];
	size_t fplen = arch_check_fpstate(fp, sizeof(fp));
	ck_assert(arch_sigframe_possible(fp, fplen));
	arch_gpregs_t r;
	arch_check_in_syscall(&r, INSN, 232, 0x1234, -ERESTARTSYS);
	arch_rewind_for_sigreturn(&r);
	size_t fsz = arch_sigframe_size(fplen);
	ck_assert_uint_gt(fsz, 0);
	ck_assert_uint_le(fsz, sizeof(frame));
	ck_assert_int_eq(arch_sigframe_build(frame, fsz, 0x7ffd0000, &r, fp, fplen, 0, 0x1000), 0);
	ck_assert_uint_eq(arch_check_frame_pc(frame), INSN);
	ck_assert_int_eq(arch_sigframe_build(frame, fsz - 16, 0x7ffd0000, &r, fp, fplen, 0, 0x1000),
			 -EINVAL);
}
END_TEST

START_TEST(regsets_start_with_prstatus)
{
	ck_assert_int_ge(arch_nregsets, 1);
	ck_assert_int_eq(arch_regsets[0].note, NT_PRSTATUS);
	for (int i = 0; i < arch_nregsets; i++)
		ck_assert_uint_le(arch_regsets[i].offset + arch_regsets[i].size,
				  sizeof(arch_gpregs_t));
}
END_TEST

/* The call a thread was blocked in, as /proc/TID/syscall showed it. */
static struct arch_blocked_call blocked(long nr, uint64_t arg0)
{
	struct arch_blocked_call b = { .valid = 1, .nr = nr, .args = { arg0, 1, 2, 3, 4, 5 },
				       .pc = INSN + ARCH_SYSCALL_INSN_LEN };
	return b;
}

/* The restart code of a call a signal broke, as the thread is released
 * with it: what x86_64 keeps in rax, and arm64 (whose do_signal has already
 * rewound the call and dropped the code) works out from the call. Only
 * -ERESTARTSYS lets a handler's SA_RESTART restart it (rcall_signal_note):
 * poll(2) woken for a SA_RESTART handler returns EINTR, a PI lock never
 * does. Codes as strace shows them on x86_64. */
START_TEST(interrupt_stop_keeps_the_restart_code)
{
	static const struct {
		long nr;
		uint64_t arg1, arg3;
		int code;
	} c[] = {
		{ SYS_read, 1, 0, ERESTARTSYS },
		{ SYS_ppoll, 0, 0, ERESTARTNOHAND },
		{ SYS_pselect6, 0, 0, ERESTARTNOHAND },
		{ SYS_msgrcv, 0, 0, ERESTARTNOHAND },
		{ SYS_clock_nanosleep, 1 /* TIMER_ABSTIME */, 0x1000, ERESTARTNOHAND },
		{ SYS_clock_nanosleep, 0, 0x1000, ERESTART_RESTARTBLOCK },
		{ SYS_futex, 6 | 128 /* FUTEX_LOCK_PI_PRIVATE */, 0, ERESTARTNOINTR },
		{ SYS_futex, 0 /* FUTEX_WAIT */, 0, ERESTARTSYS },
		{ SYS_futex, 9 | 128 /* FUTEX_WAIT_BITSET_PRIVATE */, 0x1000, ERESTART_RESTARTBLOCK },
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct arch_blocked_call b = blocked(c[i].nr, 5);
		b.args[1] = c[i].arg1;
		b.args[3] = c[i].arg3;
		arch_gpregs_t r;
		arch_check_in_syscall(&r, INSN, c[i].nr, 5, -c[i].code);
		arch_check_at_stop(&r, 1);
		arch_at_interrupt_stop(&r, &b);
		ck_assert_msg(arch_in_syscall(&r), "case %zu", i);
		ck_assert_msg(arch_syscall_ret(&r) == -c[i].code, "case %zu: %ld, not %d", i,
			      arch_syscall_ret(&r), -c[i].code);
	}
}
END_TEST

START_TEST(interrupt_stop_shows_the_syscall)
{
	arch_gpregs_t r;
	long nr;
	uint64_t arg0;
	/* A wait that returned -EINTR: seen as such, and rewound whole. */
	struct arch_blocked_call b = blocked(22, 5);
	arch_check_in_syscall(&r, INSN, 22, 5, -EINTR);
	arch_check_at_stop(&r, 0);
	arch_at_interrupt_stop(&r, &b);
	ck_assert(arch_in_syscall(&r));
	ck_assert_int_eq(arch_syscall_ret(&r), -EINTR);
	ck_assert_uint_eq(arch_syscall_arg(&r, 0), 5);
	/* -ERESTARTSYS, already rewound on arm64: released to re-execute. */
	arch_check_in_syscall(&r, INSN, 22, 5, -512);
	arch_check_at_stop(&r, 1);
	arch_at_interrupt_stop(&r, &b);
	ck_assert(arch_in_syscall(&r));
	ck_assert(!arch_restarts_by_block(&r));
	arch_rewind_for_sigreturn(&r); /* as for a crash-safe frame */
	ck_assert_uint_eq(arch_pc(&r), INSN);
	arch_check_reexec(&r, &nr, &arg0);
	ck_assert_int_eq(nr, 22);
	ck_assert_uint_eq(arg0, 5);
	/* nanosleep: through the restart block. */
	b = blocked(ARCH_CHECK_NR_NANOSLEEP, 0x1000);
	arch_check_in_syscall(&r, INSN, ARCH_CHECK_NR_NANOSLEEP, 0x1000, -516);
	arch_check_at_stop(&r, 1);
	arch_at_interrupt_stop(&r, &b);
	ck_assert(arch_restarts_by_block(&r));
	arch_rewind_for_sigreturn(&r); /* as for a crash-safe frame */
	arch_check_reexec(&r, &nr, &arg0);
	ck_assert_int_eq(nr, ARCH_CHECK_NR_RESTART_SYSCALL);
	/* Blocked elsewhere a moment before: nothing is made up. */
	b = blocked(22, 5);
	b.pc += 64;
	arch_check_in_syscall(&r, INSN, 22, 5, -EINTR);
	arch_check_at_stop(&r, 0);
	arch_gpregs_t before = r;
	arch_at_interrupt_stop(&r, &b);
	ck_assert(!memcmp(&r, &before, sizeof(r)));
	b.valid = 0;
	arch_at_interrupt_stop(&r, &b);
	ck_assert(!memcmp(&r, &before, sizeof(r)));
	/* No call known from before (the thread was running): the register
	 * that passed the number still names it (rcall_wait_forgotten). */
	ck_assert_int_eq(arch_syscall_nr_register(&r), 22);
	arch_set_syscall_result(&r, -11);
	ck_assert_int_eq(arch_syscall_ret(&r), -11);
	ck_assert(!arch_in_syscall(&r));
}
END_TEST

START_TEST(call_blockers)
{
	arch_gpregs_t r;
	arch_check_in_syscall(&r, INSN, 7, 3, -4);
	ck_assert_ptr_null(arch_call_blocker(&r));
	if (!arch_check_set_sme(&r, 0, 0))
		return; /* nothing on this architecture can block a call */
	ck_assert_ptr_null(arch_call_blocker(&r));
	arch_check_set_sme(&r, 1, 0);
	ck_assert_ptr_nonnull(strstr(arch_call_blocker(&r), "streaming"));
	arch_check_set_sme(&r, 0, 1);
	ck_assert_ptr_nonnull(strstr(arch_call_blocker(&r), "ZA"));
	arch_check_set_sme(&r, 0, 0);
	arch_check_set_gcs(&r, 1);
	ck_assert_ptr_nonnull(strstr(arch_call_blocker(&r), "guarded control stack"));
	arch_check_set_gcs(&r, 0);
	ck_assert_ptr_null(arch_call_blocker(&r));
	/* POR_EL0: POR_EL0_INIT (key 0 open) and other keys shut or open are
	 * fine; key 0 read-only or without execute is not; 0, no regset. */
	arch_check_set_por(&r, 0x7);
	ck_assert_ptr_null(arch_call_blocker(&r));
	arch_check_set_por(&r, 0x7777777777777777ULL);
	ck_assert_ptr_null(arch_call_blocker(&r));
	arch_check_set_por(&r, 0x0000000000000077ULL);
	ck_assert_ptr_null(arch_call_blocker(&r));
	arch_check_set_por(&r, 0x3);
	ck_assert_ptr_nonnull(strstr(arch_call_blocker(&r), "POR_EL0"));
	arch_check_set_por(&r, 0x7777777777777775ULL);
	ck_assert_ptr_nonnull(strstr(arch_call_blocker(&r), "POR_EL0"));
	arch_check_set_por(&r, 0);
	ck_assert_ptr_null(arch_call_blocker(&r));
}
END_TEST

START_TEST(optional_regsets_never_written)
{
	for (int i = 0; i < arch_nregsets; i++)
		ck_assert(!(arch_regsets[i].optional && arch_regsets[i].write));
	ck_assert(!arch_regsets[0].optional);
}
END_TEST

/* errno's place from __errno_location's code (arch_tls.c), checked on
 * this very process's libc: what the decoded slot or number gives, added
 * to the thread pointer, is errno's address. */
START_TEST(errno_found_from_its_code)
{
	const unsigned char *code = (const unsigned char *)&__errno_location;
	struct arch_tls_ref ref;
	ck_assert_int_eq(arch_tls_ref_decode(code, ARCH_TLS_CODE_LEN, (uint64_t)(uintptr_t)code, &ref),
			 0);
	int64_t off = ref.in_memory ? *(const int64_t *)(uintptr_t)ref.where : ref.offset;
	ck_assert(arch_tls_offset_plausible(off));
	ck_assert(!arch_tls_offset_plausible(0)); /* a slot not relocated yet */
	ck_assert_uint_eq((uint64_t)(uintptr_t)__builtin_thread_pointer() + (uint64_t)off,
			  (uint64_t)(uintptr_t)&errno);
	/* Code of another shape is not guessed at: a ret first, or a call
	 * made of the right pieces in another order. */
	unsigned char other[ARCH_TLS_CODE_LEN];
	memcpy(other, code, sizeof(other));
	other[0] ^= 0xff;
	ck_assert_int_eq(arch_tls_ref_decode(other, sizeof(other), 0x1000, &ref), -1);
	ck_assert_int_eq(arch_tls_ref_decode(code, 8, 0x1000, &ref), -1);
}
END_TEST

/* The static link's form: the offset itself, no slot (ld's initial-exec
 * to local-exec relaxation). */
START_TEST(errno_static_form)
{
	struct arch_tls_ref ref;
	ck_assert_int_eq(arch_tls_ref_decode(arch_check_tls_static, sizeof(arch_check_tls_static),
					     0x401000, &ref),
			 0);
	ck_assert_int_eq(ref.in_memory, 0);
	ck_assert_int_eq(ref.offset, ARCH_CHECK_TLS_STATIC_OFFSET);
	ck_assert(arch_tls_offset_plausible(ref.offset));
}
END_TEST

int main(void)
{
	Suite *s = suite_create("arch " ARCH_NAME);
	TCase *tc = tcase_create("abi");
	tcase_add_test(tc, interrupted_syscall_rewinds);
	tcase_add_test(tc, restart_block_goes_through_restart_syscall);
	tcase_add_test(tc, remade_call_keeps_its_number);
	tcase_add_test(tc, finished_syscall_left_alone);
	tcase_add_test(tc, spurious_eintr_rewound);
	tcase_add_test(tc, call_setup);
	tcase_add_test(tc, regsets_start_with_prstatus);
	tcase_add_test(tc, sigframe_restores_the_thread);
	tcase_add_test(tc, call_blockers);
	tcase_add_test(tc, interrupt_stop_shows_the_syscall);
	tcase_add_test(tc, interrupt_stop_keeps_the_restart_code);
	tcase_add_test(tc, optional_regsets_never_written);
	tcase_add_test(tc, errno_found_from_its_code);
	tcase_add_test(tc, errno_static_form);
	suite_add_tcase(s, tc);
	return check_run(s);
}
