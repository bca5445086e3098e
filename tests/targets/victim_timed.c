/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_timed: every thread waits in a system call with a relative
 * timeout, the kinds that a signal (or PTRACE_INTERRUPT) ends with a plain
 * EINTR rather than a restart: epoll_wait (timeout in a register),
 * rt_sigtimedwait, semtimedop, io_getevents (timeouts in memory), recv on a
 * socket with SO_RCVTIMEO. Each loops: wait TIMEOUT_MS, measure how long
 * the call took, count an EINTR, a return before the timeout (early) or
 * more than the slack after it (late: SLACK_MS, or the first argument in
 * ms where a slow machine needs more). The main thread's own wait is
 * sigtimedwait for SIGUSR1 with the same timeout, so no thread sleeps
 * without one. Prints "ready <pid> epoll=T sigwait=T sem=T aio=T sock=T";
 * on SIGUSR1: "report eintr=N early=N late=N max_late_us=N worst=KIND" (the
 * last two are information, not a failure: the latest wait, and its kind) and exit 0 if the first three are 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS 300
#define SLACK_MS 150
static int64_t slack_us = SLACK_MS * 1000;
static void *volatile keep;

static atomic_int eintr_count, early_count, late_count;
static atomic_long max_late_us;
static const char *_Atomic worst_kind = "none"; /* the kind of the latest wait */
static atomic_int tids[5];

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* One wait's outcome: r is the call's return, -1 with errno on error. */
static void judge(const char *kind, int64_t began, long r, int timed_out)
{
	int64_t took = now_us() - began;
	if (r < 0 && errno == EINTR) {
		eintr_count++;
		return;
	}
	if (!timed_out) {
		if (r < 0)
			fprintf(stderr, "%s: %s after %ld us\n", kind, strerror(errno), (long)took);
		return; /* woken by its event: not a timing question */
	}
	if (took < TIMEOUT_MS * 1000 - 1000) {
		early_count++;
		fprintf(stderr, "%s: early, %ld us at %ld\n", kind, (long)took, (long)now_us());
	}
	int64_t late = took - TIMEOUT_MS * 1000;
	if (late > max_late_us) {
		max_late_us = late;
		worst_kind = kind;
	}
	if (late > slack_us) {
		late_count++;
		fprintf(stderr, "%s: late by %ld us, began at %ld, ended at %ld\n", kind, (long)late,
			(long)began, (long)now_us());
	}
}

static const struct timespec timeout = { 0, TIMEOUT_MS * 1000000L };

static void *epoll_thread(void *arg)
{
	(void)arg;
	tids[0] = (int)syscall(SYS_gettid);
	int ep = epoll_create1(0);
	for (;;) {
		struct epoll_event ev;
		int64_t b = now_us();
		int n = epoll_wait(ep, &ev, 1, TIMEOUT_MS);
		judge("epoll", b, n, n == 0);
	}
	return NULL;
}

static void *semaphore_thread(void *arg)
{
	(void)arg;
	tids[2] = (int)syscall(SYS_gettid);
	int id = semget(IPC_PRIVATE, 1, 0600);
	if (id < 0)
		return NULL;
	for (;;) {
		struct sembuf op = { 0, -1, 0 }; /* the count stays 0: times out */
		int64_t b = now_us();
		int r = semtimedop(id, &op, 1, &timeout);
		judge("sem", b, r, r < 0 && errno == EAGAIN);
		if (r < 0 && errno != EAGAIN && errno != EINTR)
			break; /* the set went away */
	}
	return NULL;
}

static void *aio_thread(void *arg)
{
	(void)arg;
	tids[3] = (int)syscall(SYS_gettid);
	aio_context_t ctx = 0;
	if (syscall(SYS_io_setup, 1, &ctx))
		return NULL;
	for (;;) {
		struct io_event ev;
		struct timespec ts = timeout;
		int64_t b = now_us();
		long r = syscall(SYS_io_getevents, ctx, 1, 1, &ev, &ts);
		judge("aio", b, r, r == 0);
	}
	return NULL;
}

static void *socket_thread(void *arg)
{
	(void)arg;
	tids[4] = (int)syscall(SYS_gettid);
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
		return NULL;
	struct timeval tv = { 0, TIMEOUT_MS * 1000 };
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		char c;
		int64_t b = now_us();
		ssize_t r = recv(sv[0], &c, 1, 0);
		judge("sock", b, r, r < 0 && errno == EAGAIN);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
		slack_us = atoll(argv[1]) * 1000;
	keep = malloc(1000); /* links jemalloc in (--as-needed) */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	void *(*fn[])(void *) = { epoll_thread, semaphore_thread, aio_thread, socket_thread };
	for (unsigned i = 0; i < sizeof(fn) / sizeof(fn[0]); i++) {
		pthread_t t;
		pthread_create(&t, NULL, fn[i], NULL);
	}
	tids[1] = (int)getpid();
	while (!tids[0] || !tids[2] || !tids[3] || !tids[4])
		usleep(1000);
	usleep(20000);
	printf("ready %d epoll=%d sigwait=%d sem=%d aio=%d sock=%d\n", (int)getpid(), tids[0], tids[1],
	       tids[2], tids[3], tids[4]);
	fflush(stdout);
	for (;;) {
		int64_t b = now_us();
		int r = sigtimedwait(&set, NULL, &timeout);
		if (r == SIGUSR1)
			break;
		judge("sigwait", b, r, r < 0 && errno == EAGAIN);
	}
	printf("report eintr=%d early=%d late=%d max_late_us=%ld worst=%s\n", eintr_count,
	       early_count, late_count, (long)max_late_us, worst_kind);
	fflush(stdout);
	return eintr_count || early_count || late_count;
}
