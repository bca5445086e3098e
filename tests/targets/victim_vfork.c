/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_vfork: a process whose main thread cannot stop quickly. It calls
 * vfork() and the child sleeps -s MS before _exit(): meanwhile the parent
 * waits uninterruptibly (wait_for_vfork_done, state D), deaf to
 * PTRACE_INTERRUPT until the child is gone. Two other threads sit in
 * blocking calls at safe points (read, pthread_cond_wait).
 *
 * It prints "ready <pid>" just before vfork(), then "vfork_ms=N" when
 * vfork returned (N: how long the parent was held up; a tracer that left it
 * seized with an interrupt pending would add however long it lives on). On
 * SIGUSR1 it prints "report ok" and exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static int pipefd[2];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *reader(void *arg)
{
	(void)arg;
	char c;
	while (read(pipefd[0], &c, 1) < 0)
		;
	return NULL;
}

static void *waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;)
		pthread_cond_wait(&cv, &mu);
	return NULL;
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Kept at file scope: stored, never read, and not a set-but-unused local. */
static void *volatile keep;

int main(int argc, char **argv)
{
	/* Static: vfork's child runs on this stack frame (-Wclobbered). */
	static long sleep_ms = 3000;
	int c;
	while ((c = getopt(argc, argv, "s:")) != -1) {
		if (c != 's')
			return 2;
		sleep_ms = atol(optarg);
	}
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	if (pipe(pipefd))
		return 1;
	/* jemalloc is set up (and linked: a malloc the compiler cannot drop). */
	keep = malloc(100);
	/* Blocked in every thread (they inherit the mask): SIGUSR1 is taken
	 * by sigwait once vfork has returned, whenever it comes. */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pthread_t a, b;
	pthread_create(&a, NULL, reader, NULL);
	pthread_create(&b, NULL, waiter, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	long long t0 = now_ms();
	pid_t child = vfork();
	if (child == 0) {
		/* The child shares the parent's memory: only async-signal-safe
		 * calls, then _exit. */
		struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
		_exit(0);
	}
	printf("vfork_ms=%lld\n", now_ms() - t0);
	fflush(stdout);
	int sig;
	sigwait(&set, &sig);
	printf("report ok\n");
	fflush(stdout);
	return 0;
}
