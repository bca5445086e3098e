/* SPDX-License-Identifier: BSD-2-Clause */
/* aarch64 for the sampler's freestanding hooks (src/sampler/parasite/): no
 * libc, so the thread pointer and the system calls are asked of the CPU
 * and the kernel directly. */
#ifndef JEATTACH_SAMPLER_ARCH_H
#define JEATTACH_SAMPLER_ARCH_H

#include <stdint.h>

/* How many of struct sampler_rec's regs sampler_entry.S fills, and where
 * the stack pointer and the return address are among them. */
#define SAMPLER_ARCH_NREGS 14
#define SAMPLER_REG_SP 12
#define SAMPLER_REG_PC 13

/* The generic table (include/uapi/asm-generic/unistd.h). */
#define SAMPLER_NR_PROCESS_VM_READV 270
#define SAMPLER_NR_CLOCK_GETTIME 113

/* TPIDR_EL0 holds glibc's thread pointer, unique per live thread. */
static inline uint64_t sampler_tp(void)
{
	uint64_t tp;
	__asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
	return tp;
}

/* svc #0 with the number in x8, arguments in x0..x5, the result in x0. */
static inline long sampler_syscall6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;
	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

#endif
