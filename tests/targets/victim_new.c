/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_new: allocations through jemalloc's own operator new (Debian's
 * libjemalloc.so.2 defines _Znwm, jemalloc_cpp.cpp), as a C++ program on
 * it makes them, from a C file: the library is stripped, so the functions
 * between operator new and the unwinder have no symbol of their own and
 * jeprof names them after the nearest export (malloc_usable_size).
 * new_site holds 2000 x 512 B through operator new, malloc_site 1000 x
 * 256 B through malloc, and three functions of the program named like
 * jemalloc's own (je_parse, backtrace, handleOOM) 300 x 128 B each through
 * malloc: they are the program's, not the allocator's. Until SIGTERM or
 * SIGUSR1; on SIGUSR1 it checks the blocks' contents, prints
 * "report heap_errors=N" and exits 0 if N is 0. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

void *_Znwm(unsigned long size); /* operator new(unsigned long) */

#define NNEW 2000
#define NMALLOC 1000
#define NNAMED 300

__attribute__((noinline)) static unsigned char *new_site(void)
{
	return _Znwm(512);
}

__attribute__((noinline)) static unsigned char *malloc_site(void)
{
	return malloc(256);
}

/* Named like jemalloc's functions (its private namespace, its unwinder,
 * its C++ out-of-memory path); global, as a program's would be. */
unsigned char *je_parse(void);
unsigned char *backtrace(void);
unsigned char *handleOOM(void);

__attribute__((noinline)) unsigned char *je_parse(void)
{
	return malloc(128);
}

__attribute__((noinline)) unsigned char *backtrace(void)
{
	return malloc(128);
}

__attribute__((noinline)) unsigned char *handleOOM(void)
{
	return malloc(128);
}

int main(void)
{
	static unsigned char *nb[NNEW], *mb[NMALLOC], *named[3][NNAMED];
	unsigned char *(*const makers[3])(void) = { je_parse, backtrace, handleOOM };
	sigset_t set;
	int sig, errors = 0;
	for (int i = 0; i < NNEW; i++)
		memset(nb[i] = new_site(), i & 0xff, 512);
	for (int i = 0; i < NMALLOC; i++)
		memset(mb[i] = malloc_site(), i & 0x7f, 256);
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < NNAMED; i++)
			memset(named[k][i] = makers[k](), k + 1, 128);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&set, &sig);
	for (int i = 0; i < NNEW; i++)
		errors += nb[i][0] != (i & 0xff) || nb[i][511] != (i & 0xff);
	for (int i = 0; i < NMALLOC; i++)
		errors += mb[i][0] != (i & 0x7f) || mb[i][255] != (i & 0x7f);
	for (int k = 0; k < 3; k++)
		for (int i = 0; i < NNAMED; i++)
			errors += named[k][i][0] != k + 1 || named[k][i][127] != k + 1;
	printf("report heap_errors=%d\n", errors);
	return errors != 0;
}
