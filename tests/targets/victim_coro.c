/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_coro: a coroutine whose 16 KiB stack is carved from a heap block,
 * as user-space thread libraries and async runtimes do, next to a counter
 * in the same block that another thread keeps updating. The coroutine's
 * thread sleeps in read() on that small stack (reported as coro=TID): a
 * tool that saves the bytes below its stack pointer and writes them back
 * later rewinds the counter under the updating thread's feet.
 * "ready <pid> coro=<tid>"; SIGUSR1 (taken by a thread in sigwait) makes it
 * check itself and exit: "report regressions=N", 0 if none.
 * -n: it sleeps in nanosleep() instead, a call the kernel restarts through
 * its restart block (such a thread's calls cannot end in rt_sigreturn).
 * -p: not a coroutine but a thread of its own whose guardless 16 KiB stack
 * is that same heap block (pthread_attr_setstack), as small-stack runtimes
 * make them.
 * -s: the coroutine's stack is 6 KiB, and the 2 KiB below it (in the same
 * block) are a canary the report counts changed bytes of ("canary=N"): its
 * thread blocks every signal, so no signal frame ever lands there.
 * -t: as -s with a 2 KiB stack, less than a signal frame needs.
 * -g: the block is the top of a 2 MiB anonymous region whose lowest page is
 * an inaccessible guard, as a pool of coroutine stacks may be made: the
 * coroutine's stack has a guard below it, far away, that is not its own. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#define BLOCK (64 * 1024)
#define STACK_AT (8 * 1024)
#define STACK_SIZE (16 * 1024)

static unsigned char *block;
static volatile uint64_t *counter; /* 4 KiB below the coroutine's stack */
static volatile uint64_t regressions;
static int sleeper[2];
static volatile pid_t coro_tid;
static ucontext_t coro_ctx, back_ctx;
static int use_nanosleep;
static size_t stack_size = STACK_SIZE;
static size_t block_len = BLOCK;
#define CANARY 2048

/* The only writer of the counter: any other value seen was put there by
 * someone else. It writes every 50 us and checks before each write, so a
 * stale copy written back in between (a hold lasts longer) is seen. */
static void *update(void *arg)
{
	(void)arg;
	uint64_t mine = 0;
	*counter = mine;
	for (;;) {
		if (*counter != mine)
			regressions++;
		*counter = ++mine;
		usleep(50);
	}
	return NULL;
}

static void coroutine(void)
{
	coro_tid = (pid_t)syscall(SYS_gettid);
	char c;
	/* Sleeps here, on the heap-carved stack, until the process ends. */
	if (use_nanosleep)
		for (;;) {
			struct timespec ts = { 3600, 0 };
			nanosleep(&ts, NULL);
		}
	while (read(sleeper[0], &c, 1) < 0)
		;
}

static void coroutine_entry(void)
{
	coroutine();
	swapcontext(&coro_ctx, &back_ctx);
}

static void *small_thread(void *arg)
{
	(void)arg;
	coroutine();
	return NULL;
}

static void *coro_thread(void *arg)
{
	(void)arg;
	if (stack_size != STACK_SIZE) {
		sigset_t all;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
	}
	getcontext(&coro_ctx);
	coro_ctx.uc_stack.ss_sp = block + STACK_AT;
	coro_ctx.uc_stack.ss_size = stack_size;
	coro_ctx.uc_link = &back_ctx;
	makecontext(&coro_ctx, coroutine_entry, 0);
	swapcontext(&back_ctx, &coro_ctx);
	return NULL;
}

int main(int argc, char **argv)
{
	int own_thread = 0, pool = 0;
	for (int o; (o = getopt(argc, argv, "npstg")) != -1;) {
		if (o == 'g')
			pool = 1;
		else if (o == 's')
			stack_size = 6 * 1024;
		else if (o == 't')
			stack_size = 2 * 1024;
		else if (o == 'n')
			use_nanosleep = 1;
		else if (o == 'p')
			own_thread = 1;
		else
			return 2;
	}
	/* pthread_attr_setstack refuses a stack under PTHREAD_STACK_MIN:
	 * 16 KiB on x86_64, 128 KiB on arm64 (64 KiB pages). */
	size_t own_stack = STACK_SIZE;
	if (own_thread && (size_t)PTHREAD_STACK_MIN > own_stack)
		own_stack = (size_t)PTHREAD_STACK_MIN;
	if (STACK_AT + own_stack > block_len)
		block_len = STACK_AT + own_stack;
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (pool) {
		size_t len = 4096 + 2 * 1024 * 1024;
		unsigned char *r = mmap(NULL, len, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (r == MAP_FAILED || mprotect(r, 4096, PROT_NONE))
			return 3;
		block = r + len - block_len;
	} else {
		block = malloc(block_len);
	}
	if (!block || pipe(sleeper))
		return 3;
	memset(block, 0, block_len);
	memset(block + STACK_AT - CANARY, 0x5a, CANARY);
	counter = (volatile uint64_t *)(block + STACK_AT - 4096);
	pthread_t t;
	pthread_create(&t, NULL, update, NULL);
	if (own_thread) {
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		/* No guard page: the block below is the counter's. */
		if (pthread_attr_setstack(&attr, block + STACK_AT, own_stack) ||
		    pthread_create(&t, &attr, small_thread, NULL))
			return 4;
	} else {
		pthread_create(&t, NULL, coro_thread, NULL);
	}
	while (!coro_tid)
		usleep(1000);
	usleep(20000); /* let it reach its read() */
	/* The canary is laid again now the coroutine sleeps: its first calls
	 * bound read() lazily, and the dynamic linker's resolver (which saves
	 * the vector registers) ran deeper than a 2 KiB stack. */
	memset(block + STACK_AT - CANARY, 0x5a, CANARY);
	printf("ready %d coro=%d\n", (int)getpid(), (int)coro_tid);
	fflush(stdout);
	int sig;
	sigwait(&set, &sig);
	size_t canary = 0;
	for (size_t i = 0; stack_size != STACK_SIZE && i < CANARY; i++)
		canary += block[STACK_AT - CANARY + i] != 0x5a;
	if (stack_size != STACK_SIZE)
		printf("report regressions=%llu canary=%zu\n", (unsigned long long)regressions,
		       canary);
	else
		printf("report regressions=%llu\n", (unsigned long long)regressions);
	fflush(stdout);
	return regressions != 0 || canary != 0;
}
