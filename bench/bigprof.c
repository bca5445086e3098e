/* SPDX-License-Identifier: BSD-2-Clause */
/* bigprof: makes a jemalloc heap profile with many distinct stacks, for the
 * heap benchmarks (bench/run.py builds and runs it).
 * build: cc -O1 -g -fno-omit-frame-pointer -fno-optimize-sibling-calls \
 *            -o bigprof bigprof.c -ljemalloc
 * run:   MALLOC_CONF=prof:true,lg_prof_sample:0 ./bigprof NSTACKS DEPTH OUT.heap
 *        (200000 10 gives ~68 MB and 200,001 stacks; 20000 8 gives ~6 MB)
 * Sixteen functions call each other along a path drawn from a xorshift
 * generator, DEPTH deep, so NSTACKS draws give about NSTACKS distinct
 * stacks; each leaf keeps its block (a profile of live memory). */
#include <stdio.h>
#include <stdlib.h>
#include <jemalloc/jemalloc.h>

typedef void (*fn)(unsigned long, int);
static fn tab[16];

static void leaf(unsigned long path, int d)
{
	(void)d;
	volatile char *p = malloc(16 + (path % 4000));
	p[0] = 1;
}

#define F(n)                                                                    \
	static __attribute__((noinline)) void f##n(unsigned long path, int d)   \
	{                                                                       \
		if (d == 0) {                                                   \
			leaf(path, 0);                                          \
			return;                                                 \
		}                                                               \
		tab[path & 15](path >> 4, d - 1);                               \
		__asm__ volatile("");                                           \
	}
F(0) F(1) F(2) F(3) F(4) F(5) F(6) F(7) F(8) F(9) F(10) F(11) F(12) F(13) F(14) F(15)

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: bigprof NSTACKS DEPTH OUT.heap\n");
		return 2;
	}
	fn t[16] = { f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15 };
	for (int i = 0; i < 16; i++)
		tab[i] = t[i];
	long n = atol(argv[1]);
	int depth = atoi(argv[2]);
	unsigned long s = 88172645463325252UL;
	for (long i = 0; i < n; i++) {
		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		tab[s & 15](s >> 4, depth);
	}
	const char *f = argv[3];
	return mallctl("prof.dump", NULL, NULL, &f, sizeof f);
}
