/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_sme (arm64 with SME only): threads whose SME state a call would
 * break.
 *   main  streaming mode and ZA on (SMSTART), spinning in its own code: a
 *         call there would run jemalloc's Advanced SIMD code in streaming
 *         mode, where it traps (SIGILL kills the process);
 *   za    ZA on (SMSTART ZA), blocked in read() on a pipe: ZA survives
 *         system calls, but a call's return through rt_sigreturn without
 *         a za_context record turns it off;
 *   plain an ordinary thread blocked in read(): where calls belong.
 * Prints "ready <pid> za=TID plain=TID" ("nosme" and exit 77 where the CPU
 * has no SME). On SIGUSR1 each SME thread checks that SVCR still has the
 * bits it set: "report sme_lost=N", exit 0 if N is 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "victim_reader.h"

#ifndef HWCAP2_SME
#define HWCAP2_SME (1UL << 23)
#endif
/* Encoded by hand: Debian 12's assembler takes SME only with -march flags
 * that would let the compiler use SME elsewhere too. SVCR is S3_3_C4_C2_2:
 * bit 0 SM (streaming), bit 1 ZA. */
#define SMSTART ".inst 0xd503477f\n" /* SM and ZA on */
#define SMSTART_ZA ".inst 0xd503457f\n"
#define SMSTOP ".inst 0xd503467f\n" /* both off */
#define SVCR_SM 1UL
#define SVCR_ZA 2UL

static uint64_t svcr(void)
{
	uint64_t v;
	__asm__ volatile("mrs %0, S3_3_C4_C2_2" : "=r"(v));
	return v;
}

static atomic_int stop, lost, za_tid, za_done;
static int za_pipe[2];
static struct victim_reader plain;

static void *za_thread(void *arg)
{
	(void)arg;
	char c;
	void *volatile keep = malloc(100); /* jemalloc has this thread's tsd */
	(void)keep;
	za_tid = (int)syscall(SYS_gettid);
	__asm__ volatile(SMSTART_ZA ::: "memory");
	for (;;) {
		ssize_t n = read(za_pipe[0], &c, 1);
		if (!(svcr() & SVCR_ZA))
			lost++;
		if (n == 1)
			break;
	}
	__asm__ volatile(SMSTOP ::: "memory");
	za_done = 1;
	return NULL;
}

/* Signal handlers run with SM and ZA off (sme.rst); the main loop sees the
 * flag when the kernel has put its streaming mode back. */
static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

int main(void)
{
	if (!(getauxval(AT_HWCAP2) & HWCAP2_SME)) {
		printf("nosme\n");
		return 77;
	}
	void *volatile keep = malloc(1000);
	(void)keep;
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	if (pipe(za_pipe))
		return 2;
	signal(SIGUSR1, on_usr1);
	pthread_t a;
	pthread_create(&a, NULL, za_thread, NULL);
	if (victim_reader_start(&plain))
		return 2;
	while (!za_tid)
		usleep(1000);
	printf("ready %d za=%d plain=%d\n", (int)getpid(), za_tid, (int)plain.tid);
	fflush(stdout);
	/* From here to SMSTOP: integer code only, no calls, no system calls. */
	__asm__ volatile(SMSTART ::: "memory");
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		;
	uint64_t v = svcr();
	__asm__ volatile(SMSTOP ::: "memory");
	if ((v & (SVCR_SM | SVCR_ZA)) != (SVCR_SM | SVCR_ZA))
		lost++;
	if (write(za_pipe[1], "x", 1) != 1 || victim_reader_stop(&plain))
		return 2;
	pthread_join(a, NULL);
	printf("report sme_lost=%d\n", (int)lost);
	fflush(stdout);
	return lost != 0;
}
