/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_neighbour: a process that keeps making mappings exactly like
 * jeattach's scratch mapping (private, anonymous, read-write, MAP_NORESERVE,
 * MADV_DONTFORK: what RDMA buffers look like), one every 200 us, so that
 * one is soon made right next to a scratch mapping and the kernel merges the
 * two into one area (mm/mmap.c vma_merge). jeattach's per-thread pass keeps
 * its mapping between holds (rcall_keep_scratch): it must still find it,
 * and remove it, inside such a merged area. Four workers allocate once and
 * then wait on a condition variable (the pass borrows them); the mapper
 * never allocates through jemalloc (the pass lets it be).
 * "ready <pid>"; SIGUSR1: "report made=N" and exit. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define LEN (64 * 1024)
#define MAX_MAPS 4000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile long made;

static void *worker(void *arg)
{
	(void)arg;
	/* A tsd of its own, so that the pass borrows it (volatile: a
	 * malloc freed at once is otherwise compiled away). */
	void *volatile p = malloc(100 + (size_t)rand() % 4000);
	free(p);
	pthread_mutex_lock(&mu);
	for (;;)
		pthread_cond_wait(&never, &mu);
	return NULL;
}

static void *mapper(void *arg)
{
	(void)arg;
	static char *ring[MAX_MAPS];
	struct timespec ts = { 0, 200000 };
	/* For as long as the process lives, at most MAX_MAPS at a time: the
	 * oldest goes as a new one comes. */
	for (long i = 0;; i++) {
		char **slot = &ring[i % MAX_MAPS];
		if (*slot)
			munmap(*slot, LEN);
		char *p = mmap(NULL, LEN, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		*slot = p == MAP_FAILED ? NULL : p;
		if (p != MAP_FAILED) {
			p[0] = 1; /* an anon_vma, as a used scratch mapping has */
			madvise(p, LEN, MADV_DONTFORK);
			made = i + 1;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_t t;
	for (int i = 0; i < 4; i++)
		pthread_create(&t, NULL, worker, NULL);
	pthread_create(&t, NULL, mapper, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	int sig;
	sigwait(&set, &sig);
	printf("report made=%ld\n", made);
	fflush(stdout);
	return 0;
}
