/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_flame: call sites of known, distinct sizes for the flame graph's
 * browser test (t_flame_browser.sh). Each site calls malloc itself, so
 * after jeheap prunes the allocator it is the leaf of its stacks and what
 * it holds is its own:
 *   fl_wide          400 x 4 KiB   most of the graph
 *   fl_group         -> fl_group_bulk 30 x 4 KiB
 *                    -> fl_narrow_site_with_a_long_name 1 x 4 KiB: a frame a
 *                       few pixels wide, too narrow for a label unzoomed
 *   fl_rec           3 x 4 KiB at each of 4 nested levels (a search for
 *                    it must count them once)
 *   fl_grow          20 x 4 KiB, and 200 more on SIGUSR2 (the diff)
 * It prints "ready <pid>" when set up, "grown" after SIGUSR2, and on SIGUSR1
 * "report heap_errors=N" (blocks whose pattern changed) and exits. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))
#define BLOCK 4096

static void *keep[1000];
static int nkeep;

/* Every block is filled, so that a harmed heap shows in the report. */
static void hold(void *p)
{
	if (p && nkeep < (int)(sizeof(keep) / sizeof(keep[0]))) {
		memset(p, 0x5a, BLOCK);
		keep[nkeep++] = p;
	}
}

static NOINL void fl_wide(void)
{
	for (int i = 0; i < 400; i++)
		hold(malloc(BLOCK));
}

static NOINL void fl_group_bulk(void)
{
	for (int i = 0; i < 30; i++)
		hold(malloc(BLOCK));
}

static NOINL void fl_narrow_site_with_a_long_name(void)
{
	hold(malloc(BLOCK));
}

static NOINL void fl_group(void)
{
	fl_group_bulk();
	fl_narrow_site_with_a_long_name();
}

static NOINL void fl_rec(int depth)
{
	for (int i = 0; i < 3; i++)
		hold(malloc(BLOCK));
	if (depth > 1)
		fl_rec(depth - 1);
}

static NOINL void fl_grow(int n)
{
	for (int i = 0; i < n; i++)
		hold(malloc(BLOCK));
}

static volatile sig_atomic_t want_grow, want_report;

static void on_signal(int sig)
{
	if (sig == SIGUSR2)
		want_grow = 1;
	else
		want_report = 1;
}

int main(void)
{
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	setvbuf(stdout, NULL, _IONBF, 0); /* no buffer allocated in phase two */
	fl_wide();
	fl_group();
	fl_rec(4);
	fl_grow(20);
	printf("ready %d\n", (int)getpid());
	while (!want_report) {
		sigsuspend(&old);
		if (want_grow) {
			want_grow = 0;
			fl_grow(200);
			printf("grown\n");
		}
	}
	int errors = 0;
	for (int i = 0; i < nkeep; i++)
		for (int j = 0; j < BLOCK; j++)
			errors += ((unsigned char *)keep[i])[j] != 0x5a;
	printf("report heap_errors=%d\n", errors);
	return errors != 0;
}
