/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_sleeps: every thread waits in one of the blocking calls a modern
 * server makes, with a 300 ms timeout, in a loop, and checks that each wait
 * ends when it should: not early, not later than the slack (SLACK_MS, or
 * the first argument in ms), never with EINTR (no signal is sent to it).
 * The kinds, by role name:
 *   uring   io_uring_enter(GETEVENTS|EXT_ARG), timespec through the struct
 *   pwait2  epoll_pwait2, relative timespec
 *   waitv   futex_waitv, absolute CLOCK_MONOTONIC timespec
 *   ppoll   ppoll (glibc), relative timespec
 *   pselect pselect (glibc: pselect6), relative timespec
 *   nsleep  the nanosleep system call with a rem buffer
 *   usleep  glibc's nanosleep with rem NULL (clock_nanosleep underneath)
 *   cnrel   clock_nanosleep(CLOCK_MONOTONIC), relative
 *   cnabs   clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME)
 *   poll    poll with a 300 ms timeout (ppoll on arm64)
 *   futex   FUTEX_WAIT with a relative timeout
 *   cond    pthread_cond_timedwait (FUTEX_WAIT_BITSET, absolute)
 *   sigwait sigtimedwait for SIGUSR1 (the main thread)
 *   long    nanosleep of an hour (never expected to return)
 * A kind the kernel refuses (io_uring disabled or seccomp'd, a kernel
 * before 5.11/5.16) runs no thread: its role is 0 and a "skip ROLE: why"
 * line says why. Prints "ready <pid> ROLE=TID ..."; on SIGUSR1 "latest_us ROLE=US/WAITS ..."
 * (each kind's latest wait and its count of timed-out waits), then "report
 * eintr=N early=N late=N max_late_us=N worst=KIND" (the last two for
 * information) and exits 0 if the first three are 0. With -k (the kill
 * storm, where a killed jeattach makes a relative sleep start over) a wait
 * may be up to one whole timeout late beyond the slack. -L MS (first): every
 * timeout MS instead of 300, as an idle server's event loop waits. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <linux/io_uring.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* 300 ms; -L MS: long waits, as an idle server's event loop makes them. */
static long timeout_ms = 300;
#define TIMEOUT_MS timeout_ms
#define SLACK_MS 150
static int64_t slack_us = SLACK_MS * 1000;
static void *volatile keep;

static atomic_int eintr_count, early_count, late_count;
static atomic_long max_late_us;
static const char *_Atomic worst_kind = "none";

enum { UR, PW, WV, PP, PS, NS, US, CR, CA, PO, FU, CO, NKIND };
static const char *const names[NKIND] = { "uring", "pwait2", "waitv", "ppoll", "pselect",
					  "nsleep", "usleep", "cnrel", "cnabs", "poll",
					  "futex", "cond" };
static atomic_int tids[NKIND];
static atomic_long kind_late_us[NKIND], kind_waits[NKIND];
static char why[NKIND][120];
static atomic_int started;

static int64_t now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static struct timespec timeout = { 0, 300 * 1000000L }; /* main sets it from timeout_ms */

/* now + the timeout, on CLOCK_MONOTONIC */
static struct timespec deadline(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += TIMEOUT_MS / 1000;
	ts.tv_nsec += TIMEOUT_MS % 1000 * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* One wait's outcome: err is 0 or the errno it failed with. */
static void judge(int kind, int64_t began, int err, int timed_out)
{
	int64_t took = now_us() - began;
	if (err == EINTR) {
		eintr_count++;
		fprintf(stderr, "%s: EINTR after %ld us\n", names[kind], (long)took);
		return;
	}
	if (!timed_out) {
		fprintf(stderr, "%s: not timed out (%s) after %ld us\n", names[kind], strerror(err),
			(long)took);
		return;
	}
	if (took < TIMEOUT_MS * 1000 - 1000) {
		early_count++;
		fprintf(stderr, "%s: early, %ld us\n", names[kind], (long)took);
	}
	int64_t late = took - TIMEOUT_MS * 1000;
	kind_waits[kind]++;
	if (late > kind_late_us[kind])
		kind_late_us[kind] = late;
	if (late > max_late_us) {
		max_late_us = late;
		worst_kind = names[kind];
	}
	if (late > slack_us) {
		late_count++;
		fprintf(stderr, "%s: late by %ld us (began %.3f, ended %.3f)\n", names[kind], (long)late,
			began / 1e6, now_us() / 1e6);
	}
}

static void ready(int kind)
{
	tids[kind] = (int)syscall(SYS_gettid);
	started++;
}

static void unavailable(int kind, const char *what, int err)
{
	snprintf(why[kind], sizeof(why[kind]), "%s: %s", what, strerror(err));
	tids[kind] = 0;
	started++;
}

static void *uring_thread(void *arg)
{
	(void)arg;
	struct io_uring_params p;
	memset(&p, 0, sizeof(p));
	int fd = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (fd < 0) {
		unavailable(UR, "io_uring_setup", errno);
		return NULL;
	}
	if (!(p.features & IORING_FEAT_EXT_ARG)) {
		unavailable(UR, "io_uring without IORING_FEAT_EXT_ARG (Linux < 5.11)", ENOSYS);
		return NULL;
	}
	ready(UR);
	for (;;) {
		struct timespec ts = timeout; /* struct __kernel_timespec on 64-bit */
		struct io_uring_getevents_arg a;
		memset(&a, 0, sizeof(a));
		a.ts = (uint64_t)(uintptr_t)&ts;
		int64_t b = now_us();
		long r = syscall(SYS_io_uring_enter, fd, 0, 1,
				 IORING_ENTER_GETEVENTS | IORING_ENTER_EXT_ARG, &a, sizeof(a));
		int err = r < 0 ? errno : 0;
		judge(UR, b, err, err == ETIME);
	}
	return NULL;
}

static void *pwait2_thread(void *arg)
{
	(void)arg;
	int ep = epoll_create1(0);
	struct epoll_event ev;
	struct timespec ts = timeout, zero = { 0, 0 };
	if (epoll_pwait2(ep, &ev, 1, &zero, NULL) < 0 && errno == ENOSYS) {
		unavailable(PW, "epoll_pwait2 (Linux < 5.11)", errno);
		return NULL;
	}
	ready(PW);
	for (;;) {
		int64_t b = now_us();
		int n = epoll_pwait2(ep, &ev, 1, &ts, NULL);
		int err = n < 0 ? errno : 0;
		judge(PW, b, err, n == 0);
	}
	return NULL;
}

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
struct waitv {
	uint64_t val, uaddr;
	uint32_t flags, reserved;
};

static void *waitv_thread(void *arg)
{
	(void)arg;
	static uint32_t word;
	struct waitv w = { 0, (uint64_t)(uintptr_t)&word, 2 /* FUTEX2_SIZE_U32 */, 0 };
	struct timespec now = deadline();
	now.tv_sec -= 3600; /* in the past: returns at once */
	if (syscall(SYS_futex_waitv, &w, 1, 0, &now, CLOCK_MONOTONIC) < 0 && errno == ENOSYS) {
		unavailable(WV, "futex_waitv (Linux < 5.16)", errno);
		return NULL;
	}
	ready(WV);
	for (;;) {
		struct timespec abs = deadline();
		int64_t b = now_us();
		long r = syscall(SYS_futex_waitv, &w, 1, 0, &abs, CLOCK_MONOTONIC);
		int err = r < 0 ? errno : 0;
		judge(WV, b, err, err == ETIMEDOUT);
	}
	return NULL;
}

static void *ppoll_thread(void *arg)
{
	(void)arg;
	ready(PP);
	for (;;) {
		int64_t b = now_us();
		int n = ppoll(NULL, 0, &timeout, NULL);
		int err = n < 0 ? errno : 0;
		judge(PP, b, err, n == 0);
	}
	return NULL;
}

static void *pselect_thread(void *arg)
{
	(void)arg;
	ready(PS);
	for (;;) {
		int64_t b = now_us();
		int n = pselect(0, NULL, NULL, NULL, &timeout, NULL);
		int err = n < 0 ? errno : 0;
		judge(PS, b, err, n == 0);
	}
	return NULL;
}

static void *nsleep_thread(void *arg)
{
	(void)arg;
	ready(NS);
	for (;;) {
		struct timespec rem;
		int64_t b = now_us();
#ifdef SYS_nanosleep
		long r = syscall(SYS_nanosleep, &timeout, &rem);
#else
		long r = nanosleep(&timeout, &rem);
#endif
		int err = r < 0 ? errno : 0;
		judge(NS, b, err, r == 0);
	}
	return NULL;
}

static void *usleep_thread(void *arg)
{
	(void)arg;
	ready(US);
	for (;;) {
		int64_t b = now_us();
		int r = nanosleep(&timeout, NULL);
		int err = r < 0 ? errno : 0;
		judge(US, b, err, r == 0);
	}
	return NULL;
}

static void *cnrel_thread(void *arg)
{
	(void)arg;
	ready(CR);
	for (;;) {
		int64_t b = now_us();
		int r = clock_nanosleep(CLOCK_MONOTONIC, 0, &timeout, NULL);
		judge(CR, b, r, r == 0);
	}
	return NULL;
}

static void *cnabs_thread(void *arg)
{
	(void)arg;
	ready(CA);
	for (;;) {
		struct timespec abs = deadline();
		int64_t b = now_us();
		int r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL);
		judge(CA, b, r, r == 0);
	}
	return NULL;
}

static void *poll_thread(void *arg)
{
	(void)arg;
	ready(PO);
	for (;;) {
		int64_t b = now_us();
		int n = poll(NULL, 0, TIMEOUT_MS);
		int err = n < 0 ? errno : 0;
		judge(PO, b, err, n == 0);
	}
	return NULL;
}

static void *futex_thread(void *arg)
{
	(void)arg;
	static uint32_t word;
	ready(FU);
	for (;;) {
		int64_t b = now_us();
		long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &timeout, NULL, 0);
		int err = r < 0 ? errno : 0;
		judge(FU, b, err, err == ETIMEDOUT);
	}
	return NULL;
}

static void *cond_thread(void *arg)
{
	(void)arg;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&c, &ca);
	ready(CO);
	pthread_mutex_lock(&m);
	for (;;) {
		struct timespec abs = deadline();
		int64_t b = now_us();
		int r = pthread_cond_timedwait(&c, &m, &abs);
		judge(CO, b, r, r == ETIMEDOUT);
	}
	return NULL;
}

/* "long": nanosleep of an hour, longer than jeattach watches for a wait's
 * start: taken as it is, its restart block kept. Any return is a fault. */
static atomic_int long_tid;
static void *long_thread(void *arg)
{
	(void)arg;
	long_tid = (int)syscall(SYS_gettid);
	for (;;) {
		struct timespec ts = { 3600, 0 };
		int r = nanosleep(&ts, NULL);
		if (r < 0 && errno == EINTR)
			eintr_count++;
		else
			early_count++;
		fprintf(stderr, "long: returned %d (%s)\n", r, r < 0 ? strerror(errno) : "");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "-L")) {
		timeout_ms = atol(argv[2]);
		argc -= 2, argv += 2;
	}
	timeout.tv_sec = timeout_ms / 1000;
	timeout.tv_nsec = timeout_ms % 1000 * 1000000L;
	int opt_k = argc > 1 && !strcmp(argv[1], "-k");
	if (opt_k)
		argc--, argv++;
	if (argc > 1)
		slack_us = atoll(argv[1]) * 1000;
	if (opt_k)
		slack_us += TIMEOUT_MS * 1000;
	keep = malloc(1000); /* links jemalloc in (--as-needed) */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	void *(*fn[NKIND])(void *) = { uring_thread,  pwait2_thread, waitv_thread, ppoll_thread,
				       pselect_thread, nsleep_thread, usleep_thread, cnrel_thread,
				       cnabs_thread,  poll_thread,   futex_thread, cond_thread };
	for (int i = 0; i < NKIND; i++) {
		pthread_t t;
		pthread_create(&t, NULL, fn[i], NULL);
	}
	pthread_t lt;
	pthread_create(&lt, NULL, long_thread, NULL);
	while (started < NKIND || !long_tid)
		usleep(1000);
	usleep(20000);
	for (int i = 0; i < NKIND; i++)
		if (!tids[i])
			printf("skip %s: %s\n", names[i], why[i]);
	printf("ready %d", (int)getpid());
	for (int i = 0; i < NKIND; i++)
		printf(" %s=%d", names[i], tids[i]);
	printf(" sigwait=%d long=%d\n", (int)getpid(), (int)long_tid);
	fflush(stdout);
	for (;;) {
		int64_t b = now_us();
		int r = sigtimedwait(&set, NULL, &timeout);
		if (r == SIGUSR1)
			break;
		int err = r < 0 ? errno : 0;
		if (err == EINTR)
			eintr_count++;
		else if (err == EAGAIN && now_us() - b - TIMEOUT_MS * 1000 > slack_us)
			late_count++;
	}
	printf("latest_us");
	for (int i = 0; i < NKIND; i++)
		printf(" %s=%ld/%ld", names[i], (long)kind_late_us[i], (long)kind_waits[i]);
	printf("\n");
	printf("report eintr=%d early=%d late=%d max_late_us=%ld worst=%s\n", eintr_count,
	       early_count, late_count, (long)max_late_us, worst_kind);
	fflush(stdout);
	return eintr_count || early_count || late_count;
}
