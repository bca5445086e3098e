/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_avx: a thread that spins in a loop that makes no call and keeps a
 * pattern in ymm8's upper half, live vector state wherever it is stopped
 * (reported as spin=TID). A borrowed thread whose AVX state is not put back
 * loses the pattern; the thread counts each loss and sets it again.
 * SIGUSR1 (taken by main in sigwait): "report lost=N", exit 1 if any.
 * Without AVX (or not x86_64) it says "noavx" on its ready line. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile pid_t spin_tid;
static volatile uint64_t lost;

#if defined(__x86_64__)
__attribute__((target("avx"))) static void *spin(void *arg)
{
	(void)arg;
	void *volatile p = malloc(16); /* a jemalloc thread */
	free(p);
	pid_t tid = (pid_t)syscall(SYS_gettid);
	static const uint64_t pat[4] = { 0x1111, 0x2222, 0x3333, 0x4444 };
	__asm__ volatile("vmovdqu %0, %%ymm8" ::"m"(pat) : "xmm8");
	spin_tid = tid;
	for (;;) {
		uint64_t out[4];
		for (int i = 0; i < 100000; i++)
			__asm__ volatile("pause");
		__asm__ volatile("vmovdqu %%ymm8, %0" : "=m"(out));
		if (out[2] != 0x3333 || out[3] != 0x4444) {
			lost++;
			__asm__ volatile("vmovdqu %0, %%ymm8" ::"m"(pat) : "xmm8");
		}
	}
	return NULL;
}
#endif

int main(void)
{
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	int avx = 0;
#if defined(__x86_64__)
	__builtin_cpu_init();
	avx = __builtin_cpu_supports("avx");
	pthread_t t;
	if (avx && pthread_create(&t, NULL, spin, NULL))
		return 3;
	while (avx && !spin_tid)
		usleep(1000);
#endif
	usleep(20000);
	printf("ready %d spin=%d%s\n", (int)getpid(), (int)spin_tid, avx ? "" : " noavx");
	fflush(stdout);
	int sig;
	sigwait(&set, &sig);
	printf("report lost=%llu\n", (unsigned long long)lost);
	fflush(stdout);
	return lost != 0;
}
