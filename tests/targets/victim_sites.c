/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_sites: allocation sites of known live bytes, for comparing
 * jeattach --sample's profile with jemalloc's own profiling of the same
 * allocations (t_sample_sites.sh). It allocates nothing at these sites
 * until SIGUSR2 (sent once the sampler is in: jemalloc's profile counts
 * from the start, the sampler from its window), then for SECONDS
 * (argv[1], default 20) runs, each paced evenly over its part of the time:
 *   site_leak    4 KiB blocks never freed: 2048 over the whole phase (8 MiB)
 *   site_cache   8 KiB entries: 512 filled in the 2nd part, then 128 of
 *                them freed and replaced in the 3rd (4 MiB live)
 *   site_hold    12 KiB blocks: a pool of 256 built in the 1st part and
 *                kept (3 MiB)
 *   site_churn   64 B - 2 KiB, freed at once: 512 of them, nothing live
 * Paced rather than at once: --sample's ring holds 64 samples between two
 * reads by jeattach (every 250 ms), so a burst of samples would be
 * dropped; at jemalloc's lg_prof_sample:12 this takes at most ~135
 * samples a second. Then it prints "live site_leak=B site_cache=B
 * site_hold=B site_churn=0" (malloc_usable_size of what each holds: the
 * truth) and waits. On SIGUSR1 "report heap_errors=N" (kept blocks whose
 * contents changed) and exits. "ready PID" once started. */
#define _GNU_SOURCE
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINL __attribute__((noinline))
/* Each a size class of its own: usable size = requested. */
#define LEAK_SIZE 4096
#define LEAK_N 2048
#define CACHE_SIZE 8192
#define CACHE_N 512
#define CACHE_REPLACED 128
#define HOLD_SIZE 12288
#define HOLD_N 256
#define CHURN_N 512

static void *leaked[LEAK_N];
static void *cache[CACHE_N];
static void *held[HOLD_N];
static void *volatile churn_last; /* a malloc/free pair the compiler keeps */
static unsigned seed = 4242;
static volatile sig_atomic_t go, want_report;

/* Each site allocates through its own frame (noinline, no sibling call):
 * its name is the first frame of its stacks in both profiles. */
static NOINL void site_leak(size_t k)
{
	leaked[k] = malloc(LEAK_SIZE);
	if (leaked[k])
		memset(leaked[k], 0x4c, LEAK_SIZE);
}

static NOINL void site_cache(size_t k)
{
	free(cache[k]);
	cache[k] = malloc(CACHE_SIZE);
	if (cache[k])
		memset(cache[k], 0x43, CACHE_SIZE);
}

static NOINL void site_hold(size_t k)
{
	held[k] = malloc(HOLD_SIZE);
	if (held[k])
		memset(held[k], 0x48, HOLD_SIZE);
}

static NOINL void site_churn(void)
{
	size_t n = 64 + (size_t)rand_r(&seed) % (2048 - 64 + 1);
	char *p = malloc(n);
	if (p)
		p[n - 1] = 1;
	churn_last = p;
	free(p);
}

/* A site's share of the phase: its n calls spread evenly over the
 * fraction [from, to) of it. */
struct pace {
	double from, to;
	size_t n, done;
};

/* How many of p's calls are due at fraction f of the phase. */
static size_t due(const struct pace *p, double f)
{
	if (f <= p->from)
		return 0;
	if (f >= p->to)
		return p->n;
	return (size_t)((double)p->n * (f - p->from) / (p->to - p->from));
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_phase(double seconds)
{
	struct pace leak = { 0, 1, LEAK_N, 0 }, hold = { 0, 0.25, HOLD_N, 0 },
		    fill = { 0.25, 0.6, CACHE_N, 0 }, replace = { 0.6, 1, CACHE_REPLACED, 0 },
		    churn = { 0, 1, CHURN_N, 0 };
	double start = now(), f = 0;
	while (f < 1) {
		f = (now() - start) / seconds;
		for (size_t d = due(&leak, f); leak.done < d; leak.done++)
			site_leak(leak.done);
		for (size_t d = due(&hold, f); hold.done < d; hold.done++)
			site_hold(hold.done);
		for (size_t d = due(&fill, f); fill.done < d; fill.done++)
			site_cache(fill.done);
		/* Every 4th entry: the replaced ones are spread over the fill. */
		for (size_t d = due(&replace, f); replace.done < d; replace.done++)
			site_cache(replace.done * (CACHE_N / CACHE_REPLACED));
		for (size_t d = due(&churn, f); churn.done < d; churn.done++)
			site_churn();
		struct timespec ts = { 0, 20000000L };
		nanosleep(&ts, NULL);
	}
}

static size_t usable(void *const *v, size_t n)
{
	size_t sum = 0;
	for (size_t k = 0; k < n; k++)
		sum += v[k] ? malloc_usable_size(v[k]) : 0;
	return sum;
}

/* Kept blocks whose first and last bytes changed. */
static int damaged(void *const *v, size_t n, size_t size, unsigned char fill)
{
	int errors = 0;
	for (size_t k = 0; k < n; k++) {
		const unsigned char *p = v[k];
		errors += !p || p[0] != fill || p[size - 1] != fill;
	}
	return errors;
}

static void on_signal(int sig)
{
	if (sig == SIGUSR2)
		go = 1;
	else
		want_report = 1;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 20;
	if (seconds <= 0) {
		fprintf(stderr, "usage: victim_sites [SECONDS]\n");
		return 2;
	}
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGUSR2);
	/* Blocked but between checks: a signal before the wait is not lost. */
	sigprocmask(SIG_BLOCK, &block, &old);
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!go && !want_report)
		sigsuspend(&old);
	if (go && !want_report) {
		run_phase(seconds);
		printf("live site_leak=%zu site_cache=%zu site_hold=%zu site_churn=0\n",
		       usable(leaked, LEAK_N), usable(cache, CACHE_N), usable(held, HOLD_N));
		fflush(stdout);
	}
	while (!want_report)
		sigsuspend(&old);
	int errors = go ? damaged(leaked, LEAK_N, LEAK_SIZE, 0x4c) +
				  damaged(cache, CACHE_N, CACHE_SIZE, 0x43) +
				  damaged(held, HOLD_N, HOLD_SIZE, 0x48)
			: 0;
	printf("report heap_errors=%d\n", errors);
	fflush(stdout);
	return 0;
}
