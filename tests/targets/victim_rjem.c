/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_rjem: a program as a Rust service links jemalloc by default
 * (tikv-jemalloc-sys: static, every symbol _rjem_-prefixed, no profiling
 * built in; tests/jemalloc-noprof.sh builds that library and t_sample.sh
 * links this against it). Every 10 ms it keeps one 4 KiB block from
 * rjem_leak_site (400 KiB/s, filled with a pattern) and allocates and
 * frees some from rjem_churn. It prints "ready PID"; on SIGUSR1
 * "report heap_errors=N" (kept blocks whose pattern changed) and exits
 * 0 if N is 0. Built with -DJE_PREFIX=je_ it is a C program linking a
 * static je_ jemalloc (5.2.1, tests/jemalloc-noprof.sh). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <jemalloc/jemalloc.h>

#ifndef JE_PREFIX
#define JE_PREFIX _rjem_
#endif
#define JE_CAT2(a, b) a##b
#define JE_CAT(a, b) JE_CAT2(a, b)
#define JE(f) JE_CAT(JE_PREFIX, f)

#define NOINL __attribute__((noinline))
#define MAX_KEPT 50000
#define BLOCK 4096

static void *kept[MAX_KEPT];
static int nkept;
static volatile sig_atomic_t report;

static void on_usr1(int sig)
{
	(void)sig;
	report = 1;
}

NOINL static void rjem_leak_site(void)
{
	if (nkept == MAX_KEPT)
		return;
	unsigned char *p = JE(malloc)(BLOCK);
	if (!p)
		return;
	memset(p, (unsigned char)nkept, BLOCK);
	kept[nkept++] = p;
}

NOINL static void rjem_churn(void)
{
	for (int i = 0; i < 8; i++) {
		void *volatile p = JE(malloc)(512 + 512 * (size_t)i);
		JE(free)(p);
	}
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	struct timespec tick = { 0, 10000000 };
	while (!report) {
		rjem_leak_site();
		rjem_churn();
		nanosleep(&tick, NULL);
	}
	int errors = 0;
	for (int i = 0; i < nkept; i++) {
		const unsigned char *p = kept[i];
		for (int j = 0; j < BLOCK; j++)
			errors += p[j] != (unsigned char)i;
	}
	printf("report heap_errors=%d\n", errors);
	return errors != 0;
}
