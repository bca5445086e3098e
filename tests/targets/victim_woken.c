/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_woken: a timed wait whose timer has fired but whose thread has not
 * got a CPU back yet, so that an interrupt finds it on its way out of the
 * call. io_getevents (KIND aio) and a unix stream recv with SO_RCVTIMEO
 * (KIND sock) look for a pending signal there and turn their timeout into
 * EINTR (sys_io_getevents, unix_stream_read_generic): rewound, the call
 * would wait its whole timeout again.
 *
 * The waiter loops on a TIMEOUT_MS wait; a SCHED_FIFO spinner on the same
 * CPU takes the CPU from TIMEOUT_MS - 2 ms into each wait until SPIN_MS
 * (default 80) after its end, so the waiter spends that long woken on the
 * run queue ("running" in /proc), never longer than the kernel lets a
 * real-time thread run unthrottled. With "traced", SPIN_MS is only a cap:
 * the spinner lets go GRACE_MS after a tracer has seized the waiter
 * (TracerPid in its status), so that the tracer's interrupt lands in the
 * window however slowly the tracer started (an emulated machine), and the
 * thread still stops well within the tracer's stop budget.
 * Usage: victim_woken KIND [SLACK_MS [SPIN_MS [traced]]]. Prints "ready
 * <pid> waiter=T" (or "nort <why>" and exits 0 where a real-time thread is
 * not allowed); on SIGUSR1: "report eintr=N early=N late=N waits=N
 * max_late_us=N traced_windows=N" and exit 0 if the first three are 0 (late: ended more
 * than the slack, default 150 ms, after both its timeout and the
 * spinner's letting go; a wait rewound whole is TIMEOUT_MS later still). */
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
#include "victim_proc.h"

#define TIMEOUT_MS 300
/* Under the tracer's 100 ms stop budget, whenever its interrupt came
 * after the seize; as long as that allows, since an emulated machine's
 * jeattach needs tens of ms between the two (its /proc looks). */
#define GRACE_MS 90

static int use_aio, until_traced;
static int64_t slack_us = 150000, spin_us = 80000;
static atomic_int waiter_tid, eintr_count, early_count, late_count, waits;
static atomic_long max_late_us;
/* When the waiter's current wait ends (CLOCK_MONOTONIC, us), 0 before the
 * first: the spinner's cue. */
static atomic_llong wait_ends;
/* When the spinner last let the CPU go (us): the waiter could not return
 * before, whatever its timeout. Written before the waiter can run again
 * (both are on CPU 0, the spinner first). */
static atomic_llong released;
/* The spinner is in its spin: a waiter that runs meanwhile was given the
 * CPU by the kernel against the spinner's priority (RT throttling; since
 * Linux 6.12 the fair server's 50 ms of every second for starved normal
 * tasks, kernel/sched/deadline.c dl_server), so its wait is not late. */
static atomic_int spinning;
/* Windows in which the spinner saw a tracer arrive: borrows that found
 * the waiter woken and not yet back on a CPU. */
static atomic_int traced_windows;
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
	int64_t now = now_us(), took = now - began;
	waits++;
	if (r < 0 && errno == EINTR) {
		eintr_count++;
		return;
	}
	if (!timed_out)
		return;
	if (took < TIMEOUT_MS * 1000 - 1000)
		early_count++;
	int64_t due = began + TIMEOUT_MS * 1000;
	if (released > due)
		due = released;
	if (spinning)
		due = now;
	int64_t late = now - due;
	if (late > max_late_us)
		max_late_us = late;
	if (late > slack_us) {
		late_count++;
		/* What a failing run needs to be understood, on the victim's
		 * output (the test shows it). */
		printf("late wait: %ld us after its timeout, %ld us after the spinner let go (began %.3f, released %.3f, ended %.3f)\n",
		       (long)(took - TIMEOUT_MS * 1000), (long)(now - released), began / 1e6,
		       released / 1e6, now / 1e6);
		fflush(stdout);
	}
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

/* Has a tracer seized the waiter (TracerPid: in its status)? */
static int waiter_traced(void)
{
	char buf[2048];
	if (victim_task_file(waiter_tid, "status", buf, sizeof(buf)))
		return 0;
	const char *p = strstr(buf, "TracerPid:");
	return p && atoi(p + 10) != 0;
}

/* Takes the CPU from just before each wait's end until SPIN_MS after it
 * (or, traced, until GRACE_MS after a tracer seized the waiter): the
 * waiter, woken by its timer, waits on the run queue meanwhile. */
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
		int64_t seen = 0;
		spinning = 1;
		for (int64_t t = now_us(); t < to; t = now_us()) {
			if (until_traced && !seen && t > ends && waiter_traced()) {
				seen = t;
				traced_windows++;
				if (seen + GRACE_MS * 1000 < to)
					to = seen + GRACE_MS * 1000;
			}
		}
		released = now_us();
		spinning = 0;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "aio") && strcmp(argv[1], "sock"))) {
		fprintf(stderr, "usage: victim_woken aio|sock [SLACK_MS [SPIN_MS [traced]]]\n");
		return 2;
	}
	use_aio = !strcmp(argv[1], "aio");
	if (argc > 2)
		slack_us = atol(argv[2]) * 1000;
	if (argc > 3)
		spin_us = atol(argv[3]) * 1000;
	until_traced = argc > 4 && !strcmp(argv[4], "traced");
	/* A real-time thread gets sched_rt_runtime_us of every
	 * sched_rt_period_us (950 ms of each second by default); past that
	 * the kernel throttles it and lets the waiter run, which would end
	 * the window early (kernel/sched/rt.c, sched_rt_runtime_exceeded).
	 * The spin stays 50 ms under it. */
	FILE *f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
	long rt_us = -1;
	if (f) {
		if (fscanf(f, "%ld", &rt_us) != 1)
			rt_us = -1;
		fclose(f);
	}
	if (rt_us >= 0 && spin_us > rt_us - 50000)
		spin_us = rt_us > 100000 ? rt_us - 50000 : rt_us / 2;
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
	printf("report eintr=%d early=%d late=%d waits=%d max_late_us=%ld traced_windows=%d\n",
	       eintr_count, early_count, late_count, waits, (long)max_late_us, traced_windows);
	fflush(stdout);
	return eintr_count || early_count || late_count;
}
