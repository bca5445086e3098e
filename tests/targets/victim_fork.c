/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_fork: a main thread that forks in a loop, as Redis' BGSAVE or a
 * prefork server does, with a heap large enough that each clone takes
 * milliseconds. jemalloc's pthread_atfork prepare handler takes every
 * jemalloc mutex (mallctl's ctl lock included) before glibc's clone and
 * the parent handler releases them after it (jemalloc's
 * jemalloc_prefork/jemalloc_postfork_parent): a mallctl injected into the
 * main thread anywhere in between waits on its own lock for ever.
 * A worker thread allocates and frees without pause; a watchdog thread
 * counts every second in which it made no progress (the process "never
 * allocates again").
 * "ready <pid> forker=<tid>"; SIGUSR1 (taken by the watchdog) makes it
 * check itself and exit: "report stalls=N forks_failed=N", 0 if clean;
 * "forks=N" says how many forks ran.
 * -s: each child sleeps a second before it exits, and is not waited for
 * (SIGCHLD ignored: the kernel reaps it), so a test can look at what the
 * children forked while jeattach held a thread inherited. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HEAP_BLOCKS 2048
#define BLOCK_SIZE (64 * 1024) /* 128 MiB touched: each fork copies its page tables */

static volatile uint64_t rounds, forks, forks_failed;

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		void *p = malloc(100 + (size_t)(rounds % 4000));
		if (p)
			memset(p, 1, 16);
		free(p);
		rounds++;
	}
	return NULL;
}

/* Every 1 s: did the worker allocate since the last look? Until SIGUSR1. */
static void *watchdog(void *arg)
{
	sigset_t *set = arg;
	uint64_t last = rounds, stalls = 0;
	for (;;) {
		struct timespec zero = { 1, 0 };
		int sig = sigtimedwait(set, NULL, &zero);
		if (sig == SIGUSR1)
			break;
		uint64_t now = rounds;
		if (now == last)
			stalls++;
		last = now;
	}
	printf("report stalls=%llu forks_failed=%llu forks=%llu\n", (unsigned long long)stalls,
	       (unsigned long long)forks_failed, (unsigned long long)forks);
	fflush(stdout);
	_exit(stalls || forks_failed);
	return NULL;
}

int main(int argc, char **argv)
{
	int sleepers = argc > 1 && !strcmp(argv[1], "-s");
	if (sleepers)
		signal(SIGCHLD, SIG_IGN);
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	static sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	static void *heap[HEAP_BLOCKS];
	for (int i = 0; i < HEAP_BLOCKS; i++) {
		heap[i] = malloc(BLOCK_SIZE);
		if (!heap[i])
			return 3;
		memset(heap[i], i, BLOCK_SIZE);
	}
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_create(&t, NULL, watchdog, &set);
	printf("ready %d forker=%d\n", (int)getpid(), (int)syscall(SYS_gettid));
	fflush(stdout);
	for (;;) {
		pid_t child = fork();
		if (child == 0) {
			if (sleepers)
				sleep(1);
			_exit(0);
		}
		if (child < 0) {
			forks_failed++;
			usleep(1000);
			continue;
		}
		while (!sleepers && waitpid(child, NULL, 0) < 0)
			;
		forks++;
		if (sleepers)
			usleep(5000);
	}
}
