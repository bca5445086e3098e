/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_serving: a service shaped as Redis is: the main thread serves,
 * busy without pause (it allocates and frees as requests would, and times
 * every round: the longest gap is what a client would have felt), while a
 * pool of threads waits in pthread_cond_wait with no timeout, as Redis'
 * bio threads do. A tool that borrows the serving thread stops the service
 * for the whole hold; one that borrows a pool thread is not felt.
 * -n N: N pool threads (default 3; 0 makes a one-thread busy process).
 * Prints "ready <pid> serve=<tid> pool=<tid>,<tid>..."; SIGUSR1 (taken by
 * the serving loop between rounds) prints "report max_gap_us=N rounds=N"
 * and exits 0. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_POOL 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pid_t pool_tids[MAX_POOL];
static volatile sig_atomic_t stop;

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static void *pool_thread(void *arg)
{
	int i = (int)(intptr_t)arg;
	free(malloc(64)); /* a jemalloc thread, as a bio thread is */
	pool_tids[i] = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&lock);
	for (;;) /* never signalled: waits with no timeout for ever */
		pthread_cond_wait(&work, &lock);
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	int n = 3;
	for (int o; (o = getopt(argc, argv, "n:")) != -1;) {
		if (o != 'n')
			return 2;
		n = atoi(optarg);
	}
	if (n < 0 || n > MAX_POOL)
		return 2;
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, pool_thread, (void *)(intptr_t)i))
			return 3;
	}
	for (int i = 0; i < n; i++)
		while (!pool_tids[i])
			usleep(1000);
	usleep(20000); /* let the pool reach its waits */
	printf("ready %d serve=%d pool=", (int)getpid(), (int)getpid());
	for (int i = 0; i < n; i++)
		printf("%s%d", i ? "," : "", (int)pool_tids[i]);
	printf("\n");
	fflush(stdout);
	int64_t last = now_us(), max_gap = 0;
	unsigned long long rounds = 0;
	while (!stop) {
		void *volatile p = malloc(256 + (rounds % 512));
		free(p);
		int64_t t = now_us();
		if (t - last > max_gap)
			max_gap = t - last;
		last = t;
		rounds++;
	}
	printf("report max_gap_us=%lld rounds=%llu\n", (long long)max_gap, rounds);
	fflush(stdout);
	return 0;
}
