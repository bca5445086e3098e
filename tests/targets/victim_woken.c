/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_woken: a timed wait whose timer has fired but whose thread has not
 * got a CPU back yet, so that an interrupt finds it on its way out of the
 * call. io_getevents (KIND aio) and a unix stream recv with SO_RCVTIMEO
 * (KIND sock) look for a pending signal there and turn their timeout into
 * EINTR (sys_io_getevents, unix_stream_read_generic): rewound, the call
 * would wait its whole timeout again.
 *
 * The waiter loops on a TIMEOUT_MS wait; a SCHED_FIFO spinner on the same
 * CPU keeps the CPU from TIMEOUT_MS - 2 ms into each wait until SPIN_MS
 * (default 80) after its end, so every wait ends SPIN_MS late and the
 * waiter spends that long woken on the run queue ("running" in /proc).
 * Usage: victim_woken KIND [SLACK_MS [SPIN_MS]]. Prints "ready <pid>
 * waiter=T" (or "nort <why>" and exits 0 where a real-time thread is not
 * allowed); on SIGUSR1: "report eintr=N early=N late=N waits=N
 * max_late_us=N" and exit 0 if the first three are 0 (late: more than
 * SPIN_MS + the slack, default 150 ms, after the timeout; a wait rewound
 * whole is TIMEOUT_MS later still). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/aio_abi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TIMEOUT_MS 300

static int use_aio;
static int64_t slack_us = 150000, spin_us = 80000;
static atomic_int waiter_tid, eintr_count, early_count, late_count, waits;
static atomic_long max_late_us;
/* When the waiter's current wait ends (CLOCK_MONOTONIC, us), 0 before the
 * first: the spinner's cue. */
static atomic_llong wait_ends;
static void *volatile keep;

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int on_cpu0(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void judge(int64_t began, long r, int timed_out)
{
	int64_t took = now_us() - began;
	waits++;
	if (r < 0 && errno == EINTR) {
		eintr_count++;
		return;
	}
	if (!timed_out)
		return;
	if (took < TIMEOUT_MS * 1000 - 1000)
		early_count++;
	int64_t late = took - TIMEOUT_MS * 1000;
	if (late > max_late_us)
		max_late_us = late;
	if (late > spin_us + slack_us)
		late_count++;
}

static void *waiter(void *arg)
{
	(void)arg;
	waiter_tid = (int)syscall(SYS_gettid);
	aio_context_t ctx = 0;
	int sv[2];
	if (use_aio ? syscall(SYS_io_setup, 1, &ctx) != 0
		    : socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
		perror("victim_woken: setup");
		exit(2);
	}
	struct timeval tv = { 0, TIMEOUT_MS * 1000 };
	if (!use_aio)
		setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		int64_t b = now_us();
		wait_ends = b + TIMEOUT_MS * 1000;
		long r;
		int timed_out;
		if (use_aio) {
			struct io_event ev;
			struct timespec ts = { 0, TIMEOUT_MS * 1000000L };
			r = syscall(SYS_io_getevents, ctx, 1, 1, &ev, &ts);
			timed_out = r == 0;
		} else {
			char c;
			r = recv(sv[0], &c, 1, 0);
			timed_out = r < 0 && errno == EAGAIN;
		}
		judge(b, r, timed_out);
	}
	return NULL;
}

/* Takes the CPU from just before each wait's end until SPIN_MS after it:
 * the waiter, woken by its timer, waits on the run queue meanwhile. */
static void *spinner(void *arg)
{
	(void)arg;
	long long done = 0;
	for (;;) {
		long long ends = wait_ends;
		if (!ends || ends == done) {
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
			continue;
		}
		done = ends;
		int64_t from = ends - 2000, to = ends + spin_us;
		struct timespec at = { from / 1000000, (from % 1000000) * 1000 };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
		while (now_us() < to)
			;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "aio") && strcmp(argv[1], "sock"))) {
		fprintf(stderr, "usage: victim_woken aio|sock [SLACK_MS [SPIN_MS]]\n");
		return 2;
	}
	use_aio = !strcmp(argv[1], "aio");
	if (argc > 2)
		slack_us = atol(argv[2]) * 1000;
	if (argc > 3)
		spin_us = atol(argv[3]) * 1000;
	keep = malloc(64); /* a jemalloc process */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* Both threads inherit CPU 0; the spinner gets the lowest real-time
	 * priority, which a SCHED_OTHER thread never preempts. */
	if (on_cpu0()) {
		printf("nort cannot pin to CPU 0: %s\n", strerror(errno));
		return 0;
	}
	pthread_attr_t attr;
	struct sched_param prio = { .sched_priority = 1 };
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &prio);
	pthread_t t;
	int e = pthread_create(&t, &attr, spinner, NULL);
	if (e) {
		printf("nort no SCHED_FIFO thread here: %s\n", strerror(e));
		return 0;
	}
	pthread_create(&t, NULL, waiter, NULL);
	while (waits < 2)
		usleep(10000);
	printf("ready %d waiter=%d\n", (int)getpid(), waiter_tid);
	fflush(stdout);
	int sig;
	sigwait(&set, &sig);
	printf("report eintr=%d early=%d late=%d waits=%d max_late_us=%ld\n", eintr_count,
	       early_count, late_count, waits, (long)max_late_us);
	fflush(stdout);
	return eintr_count || early_count || late_count;
}
