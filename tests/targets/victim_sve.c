/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_sve (arm64 with SVE only): a thread whose live SVE registers no
 * signal frame of jeattach's carries.
 *   main  z0, z31 and p7 set, spinning in its own code with no system call
 *         (a system call discards live SVE state: Documentation/arm64/
 *         sve.rst, "System call behaviour"; an interrupt or a ptrace stop
 *         does not), so NT_ARM_SVE reports the full SVE register format:
 *         a call borrowed there returns through the trap, not crash-safe;
 *   plain an ordinary thread blocked in read(): crash-safe calls belong there.
 * Prints "ready <pid> plain=TID vl=BYTES" ("nosve" and exit 77 where the
 * CPU or kernel has no SVE). On SIGUSR1 main checks that its registers
 * still hold what it set, all VL bytes of them: "report sve_lost=N", exit 0
 * if N is 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "victim_reader.h"

#ifndef HWCAP_SVE
#define HWCAP_SVE (1UL << 22)
#endif
/* The largest vector length (2048 bits) and its predicate (256 bits). */
#define ZMAX 256
#define PMAX 32
/* SVE through .arch_extension: the compiler is not told (no -march), so
 * nothing it generates elsewhere uses SVE; the registers set here are
 * declared clobbered and no compiled code between the two asm blocks
 * touches FP/SIMD state. */
#define SVE ".arch_extension sve\n"

static atomic_int stop;
static struct victim_reader plain;

/* The handler's frame carries the SVE state (sve_context) and rt_sigreturn
 * puts it back: the main loop resumes with its registers. */
static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

static uint64_t vector_length(void)
{
	uint64_t vl;
	__asm__ volatile(SVE "rdvl %0, #1" : "=r"(vl));
	return vl;
}

int main(void)
{
	if (!(getauxval(AT_HWCAP) & HWCAP_SVE)) {
		printf("nosve\n");
		return 77;
	}
	void *volatile keep = malloc(1000);
	(void)keep;
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	signal(SIGUSR1, on_usr1);
	if (victim_reader_start(&plain))
		return 2;
	uint64_t vl = vector_length();
	if (vl > ZMAX)
		return 2;
	printf("ready %d plain=%d vl=%d\n", (int)getpid(), (int)plain.tid, (int)vl);
	fflush(stdout);
	/* From here to the stores: integer code only, no calls, no system
	 * calls. p7 all true for bytes, z0 all 0x5a, z31 all 0xa5: values no
	 * FPSIMD-only restore would give their upper bits. */
	__asm__ volatile(SVE "ptrue p7.b\n"
			     "dup z0.b, #0x5a\n"
			     "dup z31.b, #-0x5b\n" ::
				     : "v0", "v31", "memory");
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	unsigned char z0[ZMAX], z31[ZMAX], p7[PMAX];
	__asm__ volatile(SVE "str z0, [%0]\n"
			     "str z31, [%1]\n"
			     "str p7, [%2]\n" ::"r"(z0),
			 "r"(z31), "r"(p7)
			 : "memory");
	int lost = 0;
	for (uint64_t i = 0; i < vl; i++)
		lost += (z0[i] != 0x5a) + (z31[i] != 0xa5);
	for (uint64_t i = 0; i < vl / 8; i++)
		lost += p7[i] != 0xff;
	if (victim_reader_stop(&plain))
		return 2;
	printf("report sve_lost=%d\n", lost);
	fflush(stdout);
	return lost != 0;
}
