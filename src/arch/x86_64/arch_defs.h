/* SPDX-License-Identifier: BSD-2-Clause */
/* x86_64 types and constants for the generic code (see src/arch/arch.h). */
#ifndef JEATTACH_ARCH_DEFS_H
#define JEATTACH_ARCH_DEFS_H

#include <elf.h>
#include <sys/user.h>

typedef struct user_regs_struct arch_gpregs_t;

#define ARCH_NAME "x86_64"
#define ARCH_ELF_MACHINE EM_X86_64
/* The full FP/vector state (x87, SSE, AVX, AVX-512, AMX tiles...) as the
 * kernel's XSAVE layout; PTRACE_GETREGSET tells its real length, which is at
 * most a few KiB (AMX makes it ~11 KiB), so 32 KiB always fits. */
#define ARCH_FPSTATE_NOTE NT_X86_XSTATE
#define ARCH_FPSTATE_MAX (32 * 1024)
/* SysV ABI: 128 bytes below %rsp belong to the interrupted function. */
#define ARCH_RED_ZONE 128
#define ARCH_STACK_ALIGN 16
/* Return address of injected calls: below vm.mmap_min_addr, so never mapped;
 * the callee's `ret` faults there with SIGSEGV, si_addr == this value
 * (Frida uses the same trick). */
#define ARCH_RETURN_TRAP 0x320UL
/* `syscall` instruction bytes, searched for in the target's own text so
 * no code is ever written into the target. */
#define ARCH_SYSCALL_INSN "\x0f\x05"
#define ARCH_SYSCALL_INSN_LEN 2
#define ARCH_INSN_ALIGN 1 /* instructions start anywhere */
#define ARCH_MAX_CALL_ARGS 6
/* glibc's __restore_rt: mov $15,%rax; syscall (rt_sigreturn). */
#define ARCH_RESTORER "\x48\xc7\xc0\x0f\x00\x00\x00\x0f\x05"
#define ARCH_RESTORER_LEN 9
#define ARCH_NR_RT_SIGRETURN 15
/* seccomp_data.arch of this ABI's system calls (AUDIT_ARCH_X86_64). */
#define ARCH_AUDIT_ARCH 0xc000003eU
/* The gadget that keeps an injected call's return value: mov %rax,(%rbx)
 * then ret (or pops, then ret; the pops take junk slots). */
#define ARCH_HAS_CRASH_SAFE_RETURN 1
/* The restorer (mov $15,%rax) overwrites the result: a gadget stores it
 * first, into a slot read at rt_sigreturn's entry. */
#define ARCH_RESULT_AT_SIGRETURN 0
/* sp at the restorer, from the signal frame's start: the ret into it
 * popped pretcode (rt_sigreturn finds its frame at sp - 8). */
#define ARCH_RESTORER_SP_OFF 8
/* The syscall state survives to the interrupt's stop (arch_at_interrupt_stop). */
#define ARCH_SYSCALL_FORGOTTEN_AT_STOP 0
/* A restart code written at a ptrace stop inside get_signal is applied when
 * the thread is let go (arch_do_signal_or_restart runs after get_signal). */
#define ARCH_RESTART_AT_STOP 1
#define ARCH_GADGET_STORE "\x48\x89\x03"
#define ARCH_GADGET_STORE_LEN 3

#endif
