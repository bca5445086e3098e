/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_recent: four allocation sites of known behaviour, each on its own
 * named thread, for jeheap recent's test (t_recent_jeheap.sh):
 *   rc_site_kept      4 KiB blocks never freed (live at any record)
 *   rc_site_handoff   4 KiB blocks handed through a queue to another
 *                     thread, which frees them in rc_free_handoff
 *   rc_site_short     4 KiB blocks freed ~1 ms later by the same thread
 *   rc_site_long      4 KiB blocks freed ~200 ms later by the same thread
 * Each site allocates about 100 blocks a second, so that a record of a
 * few thousand covers seconds. With -f ("frees only") the consumer never
 * allocates itself. It prints "ready <pid>" once every thread
 * runs; on SIGUSR1 it stops them and prints "report heap_errors=N
 * handoffs=N" (N blocks whose fill changed) and exits. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))
#define BLOCK 4096
#define QLEN 1024

static atomic_int stop, running, heap_errors;
static int frees_only;
static atomic_long handoffs;

static void nap_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
	nanosleep(&ts, NULL);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Filled on allocation, checked before the free: a harmed heap shows. */
static void *fill(void *p, int c)
{
	if (p)
		memset(p, c, BLOCK);
	return p;
}

static void check_free(void *p, int c)
{
	for (int i = 0; p && i < BLOCK; i++)
		if (((unsigned char *)p)[i] != c) {
			atomic_fetch_add(&heap_errors, 1);
			break;
		}
	free(p);
}

static void start(const char *name)
{
	pthread_setname_np(pthread_self(), name);
	atomic_fetch_add(&running, 1);
}

static NOINL void *rc_site_kept(void)
{
	return fill(malloc(BLOCK), 0x11);
}

static void *kept[20000];
static int nkept;

static void *kept_main(void *arg)
{
	(void)arg;
	start("rc-kept");
	for (; !stop; nap_us(10000))
		if (nkept < 20000)
			kept[nkept++] = rc_site_kept();
	return NULL;
}

/* The hand-off queue: a ring under a mutex. */
static void *queue[QLEN];
static int qhead, qtail;
static pthread_mutex_t qlock = PTHREAD_MUTEX_INITIALIZER;

static NOINL void *rc_site_handoff(void)
{
	return fill(malloc(BLOCK), 0x22);
}

static void *producer_main(void *arg)
{
	(void)arg;
	start("rc-producer");
	for (; !stop; nap_us(10000)) {
		pthread_mutex_lock(&qlock);
		if ((qtail + 1) % QLEN != qhead) {
			queue[qtail] = rc_site_handoff();
			qtail = (qtail + 1) % QLEN;
		}
		pthread_mutex_unlock(&qlock);
	}
	return NULL;
}

static NOINL void rc_free_handoff(void *p)
{
	check_free(p, 0x22);
	atomic_fetch_add(&handoffs, 1);
}

static void *consumer_main(void *arg)
{
	/* A thread that has never allocated frees with jemalloc's minimal
	 * thread state (free_default's tsd_fetch_min), and prof_tctx_create
	 * records no free there (it wants tsd_nominal): released, but no
	 * dalloc_* in the record. A real consumer allocates too (volatile:
	 * the compiler drops a malloc whose block is only freed). */
	start("rc-consumer"); /* named first: jemalloc reads the name once */
	void *volatile scratch = frees_only ? NULL : malloc(64);
	(void)arg;
	for (; !stop; nap_us(2000)) {
		void *p = NULL;
		pthread_mutex_lock(&qlock);
		if (qhead != qtail) {
			p = queue[qhead];
			qhead = (qhead + 1) % QLEN;
		}
		pthread_mutex_unlock(&qlock);
		if (p)
			rc_free_handoff(p);
	}
	free(scratch);
	return NULL;
}

static NOINL void *rc_site_short(void)
{
	return fill(malloc(BLOCK), 0x33);
}

static void *short_main(void *arg)
{
	(void)arg;
	start("rc-short");
	for (; !stop; nap_us(9000)) {
		void *p = rc_site_short();
		nap_us(1000);
		check_free(p, 0x33);
	}
	return NULL;
}

static NOINL void *rc_site_long(void)
{
	return fill(malloc(BLOCK), 0x44);
}

/* A block each 10 ms, each freed once 200 ms old: about 20 live at once. */
static void *long_main(void *arg)
{
	static void *ring[64];
	static double born[64];
	int head = 0, tail = 0;
	(void)arg;
	start("rc-long");
	for (; !stop; nap_us(10000)) {
		while (head != tail && now_s() - born[head] >= 0.2) {
			check_free(ring[head], 0x44);
			head = (head + 1) % 64;
		}
		if ((tail + 1) % 64 != head) {
			ring[tail] = rc_site_long();
			born[tail] = now_s();
			tail = (tail + 1) % 64;
		}
	}
	return NULL;
}

static volatile sig_atomic_t want_report;

static void on_usr1(int sig)
{
	(void)sig;
	want_report = 1;
}

int main(int argc, char **argv)
{
	void *(*const mains[])(void *) = { kept_main, producer_main, consumer_main, short_main,
					   long_main };
	enum { N = sizeof(mains) / sizeof(mains[0]) };
	pthread_t t[N];
	setvbuf(stdout, NULL, _IONBF, 0);
	frees_only = argc > 1 && !strcmp(argv[1], "-f");
	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < N; i++)
		if (pthread_create(&t[i], NULL, mains[i], NULL))
			return 2;
	while (atomic_load(&running) < N)
		nap_us(1000);
	printf("ready %d\n", (int)getpid());
	while (!want_report)
		nap_us(10000);
	stop = 1;
	for (int i = 0; i < N; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < nkept; i++)
		check_free(kept[i], 0x11);
	printf("report heap_errors=%d handoffs=%ld\n", atomic_load(&heap_errors),
	       atomic_load(&handoffs));
	return atomic_load(&heap_errors) != 0;
}
