/* SPDX-License-Identifier: BSD-2-Clause */
/* x86_64 for the sampler's freestanding hooks (src/sampler/parasite/): no
 * libc, so the thread pointer and the system calls are asked of the CPU
 * and the kernel directly. */
#ifndef JEATTACH_SAMPLER_ARCH_H
#define JEATTACH_SAMPLER_ARCH_H

#include <stdint.h>

/* How many of struct sampler_rec's regs sampler_entry.S fills, and where
 * the stack pointer and the return address are among them. */
#define SAMPLER_ARCH_NREGS 8
#define SAMPLER_REG_SP 6
#define SAMPLER_REG_PC 7

#define SAMPLER_NR_PROCESS_VM_READV 310
#define SAMPLER_NR_CLOCK_GETTIME 228

/* glibc keeps the TCB's own address at %fs:0 (tcbhead_t.tcb, the x86_64
 * TLS ABI's "thread pointer points to itself" rule). */
static inline uint64_t sampler_tp(void)
{
	uint64_t tp;
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
	return tp;
}

/* The kernel's system call convention (arch/x86/entry/entry_64.S): number
 * in rax, arguments in rdi rsi rdx r10 r8 r9; rcx and r11 clobbered. */
static inline long sampler_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

#endif
