/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_coro: a coroutine whose 16 KiB stack is carved from a heap block,
 * as user-space thread libraries and async runtimes do, next to a counter
 * in the same block that another thread keeps updating. The coroutine's
 * thread sleeps in read() on that small stack (reported as coro=TID): a
 * tool that saves the bytes below its stack pointer and writes them back
 * later rewinds the counter under the updating thread's feet.
 * "ready <pid> coro=<tid>"; SIGUSR1 (taken by a thread in sigwait) makes it
 * check itself and exit: "report regressions=N", 0 if none. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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
	while (read(sleeper[0], &c, 1) < 0)
		;
	swapcontext(&coro_ctx, &back_ctx);
}

static void *coro_thread(void *arg)
{
	(void)arg;
	getcontext(&coro_ctx);
	coro_ctx.uc_stack.ss_sp = block + STACK_AT;
	coro_ctx.uc_stack.ss_size = STACK_SIZE;
	coro_ctx.uc_link = &back_ctx;
	makecontext(&coro_ctx, coroutine, 0);
	swapcontext(&back_ctx, &coro_ctx);
	return NULL;
}

int main(void)
{
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	block = malloc(BLOCK);
	if (!block || pipe(sleeper))
		return 3;
	memset(block, 0, BLOCK);
	counter = (volatile uint64_t *)(block + STACK_AT - 4096);
	pthread_t t;
	pthread_create(&t, NULL, update, NULL);
	pthread_create(&t, NULL, coro_thread, NULL);
	while (!coro_tid)
		usleep(1000);
	usleep(20000); /* let it reach its read() */
	printf("ready %d coro=%d\n", (int)getpid(), (int)coro_tid);
	fflush(stdout);
	int sig;
	sigwait(&set, &sig);
	printf("report regressions=%llu\n", (unsigned long long)regressions);
	fflush(stdout);
	return regressions != 0;
}
