/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_sigheld: a signal that arrives while jeattach holds a thread must
 * end the thread's interrupted call as it would have ended it unheld
 * (signal(7), arch/.../signal.c handle_signal): pause() and a read() whose
 * handler lacks SA_RESTART return EINTR, a read() whose handler has
 * SA_RESTART goes on, poll() returns EINTR even so (never restarted after a
 * handler: -ERESTARTNOHAND, which arm64's do_signal drops before the stop).
 *
 * Four worker threads, each blocked in one call for the whole run, each
 * with its own signal (the only thread that does not block it):
 *   pauser   pause(),                SIGUSR1, no SA_RESTART    -> EINTR
 *   reader   read() on a pipe,       SIGUSR2, no SA_RESTART    -> EINTR
 *   restart  read() on another pipe, SIGRTMIN, SA_RESTART      -> goes on
 *   poller   poll() for ever,        SIGRTMIN+1, SA_RESTART    -> EINTR
 * A watcher thread sees a worker stopped by a tracer ('t' in its
 * /proc/self/task/TID/stat) and sends the worker's signal to the process
 * at once (kill: shared pending, only the worker may take it), then says
 * whether the worker was still stopped after the kill, so that the signal
 * certainly arrived during the hold:
 *   signalled pauser held=1
 * Each worker prints what its call returned, and makes it again:
 *   pauser: EINTR handler=1
 *   restart: read 1 handler=1   (the watcher writes a byte 300 ms later)
 * The watcher is armed again once the worker's call has returned. It
 * prints "ready PID pauser=TID reader=TID restart=TID poller=TID"; SIGTERM
 * ends it.
 * Linked with jemalloc (jeattach needs mallctl). */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>
#include "victim_proc.h"

enum { PAUSER, READER, RESTART, POLLER, NWORKERS };
static const char *const names[NWORKERS] = { "pauser", "reader", "restart", "poller" };
static int sigs[NWORKERS];
static atomic_int tids[NWORKERS], handled[NWORKERS], returns[NWORKERS];
static int pipes[NWORKERS][2];
static void *volatile keep[NWORKERS];

static void handler(int sig)
{
	for (int i = 0; i < NWORKERS; i++)
		if (sigs[i] == sig)
			handled[i]++;
}

static void report(int w, long r, int err)
{
	if (r < 0)
		printf("%s: %s handler=%d\n", names[w], err == EINTR ? "EINTR" : strerror(err),
		       atomic_load(&handled[w]));
	else
		printf("%s: read %ld handler=%d\n", names[w], r, atomic_load(&handled[w]));
	fflush(stdout);
}

static void *worker(void *arg)
{
	int w = (int)(long)arg;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sigs[w]);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	/* A little of jemalloc in this thread, so that it is an ordinary one
	 * (kept: a malloc/free pair would be optimised away, and --as-needed
	 * would then drop jemalloc). */
	keep[w] = malloc(100);
	atomic_store(&tids[w], (int)gettid());
	for (;;) {
		char c;
		long r = w == PAUSER ? pause() : w == POLLER ? poll(NULL, 0, -1) : read(pipes[w][0], &c, 1);
		report(w, r, errno);
		atomic_fetch_add(&returns[w], 1);
	}
	return NULL;
}

/* Is thread tid in a tracing stop ('t')? */
static int traced_stop(int tid)
{
	char buf[256];
	if (victim_task_file(tid, "stat", buf, sizeof(buf)))
		return 0;
	const char *p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 't';
}

static void *watcher(void *arg)
{
	(void)arg;
	int sent[NWORKERS] = { 0 }, seen[NWORKERS] = { 0 };
	for (;;) {
		for (int w = 0; w < NWORKERS; w++) {
			if (sent[w] && atomic_load(&returns[w]) != seen[w])
				sent[w] = 0; /* its call returned: armed again */
			if (sent[w] || !traced_stop(atomic_load(&tids[w])))
				continue;
			sent[w] = 1;
			seen[w] = atomic_load(&returns[w]);
			kill(getpid(), sigs[w]);
			printf("signalled %s held=%d\n", names[w], traced_stop(atomic_load(&tids[w])));
			fflush(stdout);
			if (w == RESTART) { /* the restarted read then gets its byte */
				struct timespec ts = { 0, 300000000 };
				nanosleep(&ts, NULL);
				if (write(pipes[w][1], "x", 1) != 1)
					abort();
			}
		}
		struct timespec ts = { 0, 20000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(void)
{
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0); /* Yama's scope 1 */
	sigs[PAUSER] = SIGUSR1;
	sigs[READER] = SIGUSR2;
	sigs[RESTART] = SIGRTMIN;
	sigs[POLLER] = SIGRTMIN + 1;
	sigset_t all;
	sigemptyset(&all);
	for (int w = 0; w < NWORKERS; w++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = handler;
		sa.sa_flags = w == RESTART || w == POLLER ? SA_RESTART : 0;
		sigaction(sigs[w], &sa, NULL);
		sigaddset(&all, sigs[w]);
		if (pipe(pipes[w]))
			return 2;
	}
	/* Blocked everywhere but in its worker (threads inherit this mask). */
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_t th;
	for (int w = 0; w < NWORKERS; w++)
		pthread_create(&th, NULL, worker, (void *)(long)w);
	for (int w = 0; w < NWORKERS; w++)
		while (!atomic_load(&tids[w]))
			sched_yield();
	pthread_create(&th, NULL, watcher, NULL);
	printf("ready %d pauser=%d reader=%d restart=%d poller=%d\n", (int)getpid(), tids[PAUSER],
	       tids[READER], tids[RESTART], tids[POLLER]);
	fflush(stdout);
	for (;;)
		pause(); /* SIGTERM (default action) ends the process */
}
