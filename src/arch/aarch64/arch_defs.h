/* SPDX-License-Identifier: BSD-2-Clause */
/* aarch64 types and constants for the generic code (see src/arch/arch.h). */
#ifndef JEATTACH_ARCH_DEFS_H
#define JEATTACH_ARCH_DEFS_H

#include <elf.h>
#include <stdint.h>
#include <asm/ptrace.h>

/* A stopped thread's registers. The general registers are NT_PRSTATUS;
 * arm64 keeps what x86_64 has in orig_rax elsewhere: the system call a
 * thread is in is NT_ARM_SYSTEM_CALL (-1 for none; writing -1 is how a
 * tracer says "not in a syscall", as orig_rax = -1 on x86_64), and the
 * syscall's first argument, which x0 loses to the result, is the kernel's
 * orig_x0, which no regset exposes: pt_ reads it from /proc/TID/syscall
 * (arm64's syscall_get_arguments reports orig_x0 as argument 0) whenever
 * the thread is in a syscall (ARCH_ORIG_ARG0_FROM_PROC). The thread
 * pointer is tpidr_el0, NT_ARM_TLS (read only here). */
typedef struct arch_gpregs {
	struct user_pt_regs g;
	int32_t syscallno;
	int32_t pad;
	uint64_t tls;
	uint64_t orig_x0;
	/* SME (arch_call_blocker, arch_regs.c): the headers of NT_ARM_SSVE and NT_ARM_ZA only,
	 * read where the CPU has SME (zeros elsewhere), never written back. */
	struct user_sve_header ssve;
	struct user_za_header za;
	/* GCS (arch_call_blocker): NT_ARM_GCS, read where the kernel (6.13+) and
	 * the CPU have it (zeros elsewhere), never written back. */
	struct arch_user_gcs {
		uint64_t features_enabled, features_locked, gcspr_el0;
	} gcs;
	/* POE (arch_call_blocker): POR_EL0, NT_ARM_POE, read where the kernel
	 * (6.12+) and the CPU have it (zero elsewhere), never written back. */
	uint64_t por_el0;
} arch_gpregs_t;

/* Older libc headers lack the SME notes (linux/elf.h has them, but it
 * cannot be included with elf.h). */
#ifndef NT_ARM_SSVE
#define NT_ARM_SSVE 0x40b
#endif
#ifndef NT_ARM_ZA
#define NT_ARM_ZA 0x40c
#endif
/* Linux 6.13's guarded control stack (include/uapi/linux/elf.h and
 * asm/ptrace.h's struct user_gcs, whose layout arch_user_gcs copies; bit 0
 * of features_enabled is PR_SHADOW_STACK_ENABLE): newer than any header
 * Debian 12 has. */
#define ARCH_NT_ARM_GCS 0x410
#define ARCH_GCS_ENABLED 1ULL
/* Linux 6.12's permission overlays (include/uapi/linux/elf.h NT_ARM_POE:
 * the thread's POR_EL0, one 64-bit word; arch/arm64/include/asm/por.h: a
 * 4-bit field per protection key, key 0 in bits 3:0, 0x7 read, write and
 * execute). POR_EL0_INIT, what every thread starts with and what the
 * kernel gives a signal handler, is 0x7: key 0 open, every other key shut. */
#define ARCH_NT_ARM_POE 0x40f
#define ARCH_POE_KEY0_MASK 0xfULL
#define ARCH_POE_RWX 0x7ULL

#define ARCH_NAME "aarch64"
#define ARCH_ELF_MACHINE EM_AARCH64
#define ARCH_ORIG_ARG0_FROM_PROC 1
/* At an interrupt's stop the syscall is already forgotten and restarted
 * (arch_at_interrupt_stop): the call a thread is blocked in is read from
 * /proc before it is interrupted. */
#define ARCH_SYSCALL_FORGOTTEN_AT_STOP 1
/* do_signal decides a restart before get_signal: a code written at a stop
 * there is not applied (arch_syscall_interrupted). */
#define ARCH_RESTART_AT_STOP 0
/* The FP/SIMD state: NT_ARM_SVE where the CPU has SVE (it carries the
 * FPSIMD view when SVE is not in use, and the whole Z/P/FFR state when it
 * is, which NT_PRFPREG would cut to 128 bits a register), else
 * NT_PRFPREG. Whichever was read is written back (pt.c keeps the note
 * with the bytes). The largest SVE state (VL 2048 bits) is about 9 KiB. */
#define ARCH_FPSTATE_NOTE NT_ARM_SVE
#define ARCH_FPSTATE_NOTE_ALT NT_PRFPREG
#define ARCH_FPSTATE_MAX (32 * 1024)
/* AAPCS64 has no red zone: below sp is free. */
#define ARCH_RED_ZONE 0
#define ARCH_STACK_ALIGN 16
/* Return address of injected calls (x30): never mapped (below
 * vm.mmap_min_addr); the callee's `ret` faults there with SIGSEGV,
 * si_addr == this value. A callee built with pointer authentication signs
 * x30 at entry (paciasp) and authenticates it before ret (autiasp), with
 * the same sp: the value comes back as given, so the trap is reached. */
#define ARCH_RETURN_TRAP 0x320UL
/* svc #0, little-endian; instructions are 4-byte aligned (ARCH_INSN_ALIGN). */
#define ARCH_SYSCALL_INSN "\x01\x00\x00\xd4"
#define ARCH_SYSCALL_INSN_LEN 4
#define ARCH_INSN_ALIGN 4
#define ARCH_MAX_CALL_ARGS 8
/* The vDSO's __kernel_rt_sigreturn: mov x8, #139; svc #0. */
#define ARCH_RESTORER "\x68\x11\x80\xd2\x01\x00\x00\xd4"
#define ARCH_RESTORER_LEN 8
#define ARCH_NR_RT_SIGRETURN 139
/* seccomp_data.arch of this ABI's system calls (AUDIT_ARCH_AARCH64). */
#define ARCH_AUDIT_ARCH 0xc00000b7U
/* Crash-safe calls return into rt_sigreturn directly (arch_frame.c): no
 * result-storing gadget is looked for (ARCH_GADGET_STORE is never
 * searched); the result is read at rt_sigreturn's entry. */
#define ARCH_HAS_CRASH_SAFE_RETURN 1
#define ARCH_RESULT_AT_SIGRETURN 1
/* sp at the restorer, from the signal frame's start: the frame itself
 * (rt_sigreturn reads it at sp). */
#define ARCH_RESTORER_SP_OFF 0
#define ARCH_GADGET_STORE ""
#define ARCH_GADGET_STORE_LEN 0

#endif
