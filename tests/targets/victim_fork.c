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
 * check itself and exit: "report stalls=N early=N forks_failed=N", 0 if
 * clean (early: the watchdog's own timed wait failed with EINTR or ended
 * before its second);
 * "forks=N" says how many forks ran.
 * -s: each child sleeps a second before it exits, and is not waited for
 * (SIGCHLD ignored: the kernel reaps it), so a test can look at what the
 * children forked while jeattach held a thread inherited. */
#define _GNU_SOURCE
#include <errno.h>
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

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* About every second: did the worker allocate since the last look, a
 * second or more ago? (A wait that ends early, for whatever reason, makes
 * no look: a fork holds the worker off jemalloc for milliseconds.) Until
 * SIGUSR1. */
static void *watchdog(void *arg)
{
	sigset_t *set = arg;
	uint64_t last = rounds, stalls = 0, early = 0;
	double since = now_s();
	for (;;) {
		struct timespec one = { 1, 0 };
		double began = now_s();
		int sig = sigtimedwait(set, NULL, &one);
		if (sig == SIGUSR1)
			break;
		/* Its own wait must neither fail with EINTR nor end early. */
		if (errno == EINTR || now_s() - began < 0.995) {
			early++;
			fprintf(stderr, "watchdog: %s after %.6f s (returned %d, errno %d; "
				"began at %.6f s)\n",
				errno == EINTR ? "EINTR" : "ended early", now_s() - began, sig,
				errno, began);
		}
		if (now_s() - since < 1.0)
			continue;
		uint64_t now = rounds;
		if (now == last)
			stalls++;
		last = now;
		since = now_s();
	}
	printf("report stalls=%llu early=%llu forks_failed=%llu forks=%llu\n",
	       (unsigned long long)stalls, (unsigned long long)early,
	       (unsigned long long)forks_failed, (unsigned long long)forks);
	fflush(stdout);
	_exit(stalls || early || forks_failed);
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
