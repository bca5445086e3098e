/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_fork: a main thread that forks in a loop, as Redis' BGSAVE or a
 * prefork server does, with a heap large enough that each clone takes
 * milliseconds. jemalloc's pthread_atfork prepare handler takes every
 * jemalloc mutex (mallctl's ctl lock included) before glibc's clone and
 * the parent handler releases them after it (jemalloc's
 * jemalloc_prefork/jemalloc_postfork_parent): a mallctl injected into the
 * main thread anywhere in between waits on its own lock for ever.
 * A worker thread allocates and frees without pause; a watchdog thread
 * counts every second in which it made no progress (the process "never
 * allocates again").
 * "ready <pid> forker=<tid>"; SIGUSR1 (taken by the watchdog) makes it
 * check itself and exit: "report stalls=N early=N forks_failed=N", 0 if
 * clean (early: the watchdog's own timed wait failed with EINTR or ended
 * before its second);
 * "forks=N" says how many forks ran.
 * -s: each child sleeps a second before it exits, and is not waited for
 * (SIGCHLD ignored: the kernel reaps it), so a test can look at what the
 * children forked while jeattach held a thread inherited.
 * -q: as -s, but quick: a small heap, a fork every half millisecond, and
 * each child, 300 ms after its birth, reads its own copy of any mapping of
 * jeattach's scratch size (1 MiB + 64 KiB, anonymous): one with a byte
 * other than 0 in it saw what a hold wrote (a shared mapping forked
 * between its mmap and its MADV_DONTFORK). The report adds
 * "inherited_written=N inherited_untouched=N" and fails on the first. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HEAP_BLOCKS 2048
#define BLOCK_SIZE (64 * 1024) /* 128 MiB touched: each fork copies its page tables */

static volatile uint64_t rounds, forks, forks_failed;

/* -q's children's findings, in a page all of them share. */
struct inherited {
	uint64_t written, untouched;
};
static struct inherited *inherited;

#define SCRATCH_LEN (1024 * 1024 + 64 * 1024)

/* In a -q child: its mappings of the scratch size, read whole. No malloc
 * nor stdio: the child of a threaded process, maybe under the parent's
 * RLIMIT_DATA. */
static void child_looks(void)
{
	static char maps[1 << 16];
	int fd = open("/proc/self/maps", O_RDONLY);
	ssize_t n = 0, r;
	while (fd >= 0 && n < (ssize_t)sizeof(maps) - 1 &&
	       (r = read(fd, maps + n, sizeof(maps) - 1 - (size_t)n)) > 0)
		n += r;
	if (fd >= 0)
		close(fd);
	maps[n] = 0;
	for (char *line = maps; *line;) {
		char *end = strchr(line, '\n');
		if (end)
			*end = 0;
		unsigned long lo, hi;
		char perm[8];
		int at = 0;
		/* "lo-hi perm offset dev inode " and no path (private
		 * anonymous), or "/dev/zero (deleted)" (shared anonymous: a
		 * shmem file, mm/shmem.c shmem_zero_setup). */
		const char *path = "";
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s%n", &lo, &hi, perm, &at) == 3)
			path = line + at + strspn(line + at, " ");
		if (at && hi - lo == SCRATCH_LEN && perm[0] == 'r' &&
		    (!*path || !strcmp(path, "/dev/zero (deleted)"))) {
			const unsigned char *p = (const unsigned char *)lo;
			size_t k = 0;
			while (k < SCRATCH_LEN && !p[k])
				k++;
			__atomic_add_fetch(k < SCRATCH_LEN ? &inherited->written : &inherited->untouched,
					   1, __ATOMIC_RELAXED);
		}
		if (!end)
			break;
		line = end + 1;
	}
}

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
		void *p = malloc(100 + (size_t)(rounds % 4000));
		if (p)
			memset(p, 1, 16);
		free(p);
		rounds++;
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* About every second: did the worker allocate since the last look, a
 * second or more ago? (A wait that ends early, for whatever reason, makes
 * no look: a fork holds the worker off jemalloc for milliseconds.) Until
 * SIGUSR1. */
static void *watchdog(void *arg)
{
	sigset_t *set = arg;
	uint64_t last = rounds, stalls = 0, early = 0;
	/* VICTIM_STALL_S: the stretch without progress that counts (default
	 * 1 s; longer on a slow machine, where one hold of the worker lasts
	 * longer than a second). */
	const char *w = getenv("VICTIM_STALL_S");
	const double window = w && atof(w) > 1.0 ? atof(w) : 1.0;
	double since = now_s();
	/* An allocation, as any thread of a real program makes: under -q's
	 * RLIMIT_DATA the first mallctl of a thread that never allocated
	 * faults inside jemalloc's tsd set-up (see doc/robustness.md). */
	free(malloc(64));
	for (;;) {
		struct timespec one = { 1, 0 };
		double began = now_s();
		int sig = sigtimedwait(set, NULL, &one);
		if (sig == SIGUSR1)
			break;
		/* Its own wait must neither fail with EINTR nor end early. */
		if (errno == EINTR || now_s() - began < 0.995) {
			early++;
			fprintf(stderr, "watchdog: %s after %.6f s (returned %d, errno %d; "
				"began at %.6f s)\n",
				errno == EINTR ? "EINTR" : "ended early", now_s() - began, sig,
				errno, began);
		}
		if (now_s() - since < window)
			continue;
		uint64_t now = rounds;
		if (now == last) {
			stalls++;
			fprintf(stderr, "stall: no progress from %.3f to %.3f\n", since, now_s());
		}
		last = now;
		since = now_s();
	}
	uint64_t written = 0;
	if (inherited) {
		usleep(400000); /* the last children's looks */
		written = inherited->written;
	}
	printf("report stalls=%llu early=%llu forks_failed=%llu forks=%llu",
	       (unsigned long long)stalls, (unsigned long long)early,
	       (unsigned long long)forks_failed, (unsigned long long)forks);
	if (inherited)
		printf(" inherited_written=%llu inherited_untouched=%llu",
		       (unsigned long long)written, (unsigned long long)inherited->untouched);
	printf("\n");
	fflush(stdout);
	_exit(stalls || early || forks_failed || written);
	return NULL;
}

int main(int argc, char **argv)
{
	int quick = argc > 1 && !strcmp(argv[1], "-q");
	int sleepers = quick || (argc > 1 && !strcmp(argv[1], "-s"));
	if (quick) {
		inherited = mmap(NULL, sizeof(*inherited), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (inherited == MAP_FAILED)
			return 3;
	}
	if (sleepers)
		signal(SIGCHLD, SIG_IGN);
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	static sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	static void *heap[HEAP_BLOCKS];
	for (int i = 0; i < (quick ? 16 : HEAP_BLOCKS); i++) {
		heap[i] = malloc(BLOCK_SIZE);
		if (!heap[i])
			return 3;
		memset(heap[i], i, BLOCK_SIZE);
	}
	pthread_t t;
	pthread_create(&t, NULL, worker, NULL);
	pthread_create(&t, NULL, watchdog, &set);
	printf("ready %d forker=%d\n", (int)getpid(), (int)syscall(SYS_gettid));
	fflush(stdout);
	for (;;) {
		pid_t child = fork();
		if (child == 0) {
			if (quick) {
				usleep(300000);
				child_looks();
			} else if (sleepers) {
				sleep(1);
			}
			_exit(0);
		}
		if (child < 0) {
			forks_failed++;
			usleep(1000);
			continue;
		}
		while (!sleepers && waitpid(child, NULL, 0) < 0)
			;
		forks++;
		if (sleepers)
			usleep(quick ? 500 : 5000);
	}
}
