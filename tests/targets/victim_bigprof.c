/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_bigprof: a process whose heap profile is large, so that
 * jemalloc's prof.dump runs for a long time (seconds for 2^17 stacks and
 * more), for the rule that a started call is never cut off.
 *
 * Before "ready <pid>" it keeps one live block from each of N distinct call
 * stacks (-n N, default 2^17; a path of 17+ two-way branches picks the
 * stack, so every block is its own sample with lg_prof_sample:0). Then a
 * thread allocates and frees nonstop, counting rounds; SIGUSR2 prints
 * "iters=N". If jemalloc's dump lock were left taken, every sampled
 * allocation of that thread would block on it and the count would stop.
 * SIGUSR1: frees everything, prints "report ok" and exits 0 through exit(),
 * where a process started with prof_final:true dumps once more (and would
 * hang forever on a lock left taken).
 * -x: SIGHUP makes a thread of its own (neither the main thread nor the
 * allocating one) execve /bin/sleep 300: the pid lives on as another
 * program while jeattach may hold the main thread in a dump, for the rule
 * that such a process is said to have replaced its program, not to have
 * exited. -X: the same, but the thread execs this very program again
 * (a new image of the same file, as "-n 16"). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>
#include "victim_stacks.h"

static void **blocks;
static size_t nblocks;
static atomic_ulong iters;

static int exec_self;

static void *exec_on_hup(void *arg)
{
	sigset_t *hup = arg;
	int sig;
	while (sigwait(hup, &sig))
		;
	if (exec_self)
		execl("/proc/self/exe", "victim_bigprof", "-n", "16", (char *)NULL);
	else
		execl("/bin/sleep", "sleep", "300", (char *)NULL);
	perror("execl");
	return NULL;
}

static void *churn(void *arg)
{
	(void)arg;
	for (;;) {
		void *p = malloc(64 + (atomic_load(&iters) & 1023));
		if (!p)
			abort();
		memset(p, 1, 64);
		free(p);
		atomic_fetch_add(&iters, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long n = 1UL << 17;
	int c, exec_hup = 0;
	while ((c = getopt(argc, argv, "n:xX")) != -1) {
		if (c == 'x' || c == 'X')
			exec_hup = 1, exec_self = c == 'X';
		else if (c == 'n')
			n = strtoul(optarg, NULL, 0);
		else
			return 2;
	}
	int depth = 1;
	while ((1UL << depth) < n && depth < DEPTH_MAX)
		depth++;
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	static sigset_t hup;
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* taken by sigwait below */
	if (exec_hup)
		pthread_sigmask(SIG_BLOCK, &hup, NULL); /* taken by exec_on_hup's */
	blocks = calloc(n, sizeof(*blocks));
	if (!blocks)
		return 1;
	for (nblocks = 0; nblocks < n; nblocks++)
		blocks[nblocks] = step((unsigned)nblocks, depth);
	pthread_t th;
	if (pthread_create(&th, NULL, churn, NULL))
		return 1;
	if (exec_hup && pthread_create(&th, NULL, exec_on_hup, &hup))
		return 1;
	printf("ready %d stacks=%lu\n", (int)getpid(), n);
	fflush(stdout);
	for (;;) {
		int sig;
		if (sigwait(&set, &sig))
			continue;
		if (sig == SIGUSR2) {
			printf("iters=%lu\n", atomic_load(&iters));
			fflush(stdout);
			continue;
		}
		for (size_t i = 0; i < nblocks; i++)
			free(blocks[i]);
		printf("report ok\n");
		fflush(stdout);
		exit(0); /* prof_final's dump runs here */
	}
}
