/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_leak: one site that leaks at a known, steady rate among sites
 * that allocate and free, for jeheap trend (t_trend.sh). Time drives it,
 * not a loop count: every 100 ms tick (CLOCK_MONOTONIC; late ticks are
 * caught up) does
 *   tr_leak_site   16 x 4 KiB kept for ever: 640 KiB/s
 *   tr_churn       8 of 64 held blocks freed and replaced, 1-32 KiB each:
 *                  noise around a constant level
 *   tr_sawtooth    32 KiB more, all freed every 16th tick: a cache that
 *                  fills and is dropped
 *   tr_burst       256 KiB now and then, freed at the next tick
 * and logs "REALTIME_SECONDS LEAKED_BYTES" to the file named by argv[1]
 * (the truth the test compares jeheap's slope with). It prints "ready
 * PID" once running; on SIGUSR1 "report heap_errors=N" (leaked blocks
 * whose contents changed) and exits. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))
#define TICK_NS 100000000L
#define LEAK_BLOCK 4096 /* a size class of its own: usable size = requested */
#define LEAK_PER_TICK 16
#define MAX_LEAK 20000

static void *leaked[MAX_LEAK];
static size_t nleaked;
static void *churn[64];
static void *saw[16];
static size_t nsaw;
static void *burst;
static unsigned seed = 12345;
static volatile sig_atomic_t want_report;

static NOINL void tr_leak_site(void)
{
	for (int i = 0; i < LEAK_PER_TICK && nleaked < MAX_LEAK; i++) {
		char *p = malloc(LEAK_BLOCK);
		if (!p)
			return;
		memset(p, 0x6b, LEAK_BLOCK);
		leaked[nleaked++] = p;
	}
}

static NOINL void tr_churn(void)
{
	for (int i = 0; i < 8; i++) {
		size_t k = (size_t)rand_r(&seed) % 64;
		free(churn[k]);
		churn[k] = malloc(1024 + (size_t)rand_r(&seed) % (31 * 1024));
	}
}

static NOINL void tr_sawtooth(void)
{
	if (nsaw == 16) {
		while (nsaw)
			free(saw[--nsaw]);
		return;
	}
	saw[nsaw++] = malloc(32 * 1024);
}

static NOINL void tr_burst(void)
{
	free(burst);
	burst = rand_r(&seed) % 5 == 0 ? malloc(256 * 1024) : NULL;
}

static double now(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_usr1(int sig)
{
	(void)sig;
	want_report = 1;
}

static int check_leaked(void)
{
	int errors = 0;
	for (size_t i = 0; i < nleaked; i++) {
		const unsigned char *p = leaked[i];
		for (size_t k = 0; k < LEAK_BLOCK; k += 512)
			errors += p[k] != 0x6b;
	}
	return errors;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: victim_leak LOGFILE\n");
		return 2;
	}
	FILE *log = fopen(argv[1], "w");
	if (!log)
		return 2;
	signal(SIGUSR1, on_usr1);
	double start = now(CLOCK_MONOTONIC);
	long ticks = 0;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!want_report) {
		long due = (long)((now(CLOCK_MONOTONIC) - start) * 1e9 / TICK_NS);
		for (; ticks <= due; ticks++) {
			tr_leak_site();
			tr_churn();
			tr_sawtooth();
			tr_burst();
		}
		fprintf(log, "%.6f %zu\n", now(CLOCK_REALTIME), nleaked * (size_t)LEAK_BLOCK);
		fflush(log);
		struct timespec ts = { 0, 10000000L };
		nanosleep(&ts, NULL);
	}
	printf("report heap_errors=%d\n", check_leaked());
	fflush(stdout);
	return 0;
}
