/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_leader: a process whose main thread has ended with pthread_exit()
 * while its other threads go on (a pattern of some daemons and test
 * harnesses): /proc/PID/status then says "Z (zombie)" and /proc/PID/maps,
 * mem, fd, root and exe are empty or refuse, though the process lives. A
 * worker allocates and checks its blocks; another thread waits in sigwait.
 * "ready <pid>"; SIGUSR1: "report heap_errors=N", exit 0 if none. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

static volatile int heap_errors;

static void *worker(void *arg)
{
	(void)arg;
	for (unsigned i = 0;; i++) {
		size_t n = 64 + i % 4000;
		unsigned char *p = malloc(n);
		if (!p)
			continue;
		memset(p, (int)(i & 0xff), n);
		usleep(100);
		for (size_t k = 0; k < n; k++)
			if (p[k] != (unsigned char)(i & 0xff)) {
				heap_errors++;
				break;
			}
		free(p);
	}
	return NULL;
}

static void *signals(void *arg)
{
	sigset_t *set = arg;
	int sig;
	sigwait(set, &sig);
	printf("report heap_errors=%d\n", heap_errors);
	fflush(stdout);
	exit(heap_errors != 0);
}

int main(void)
{
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	static sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_create(&t, NULL, signals, &set);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	pthread_exit(NULL);
}
