/* SPDX-License-Identifier: BSD-2-Clause */
/* victim: a process that checks itself, for jeattach's integration tests.
 *
 * Threads, each blocked in one syscall for the whole run: read() on a pipe,
 * epoll_wait(-1), nanosleep(1 h), pthread_cond_wait, accept(). Each counts
 * every return that was not the one the main thread asked for (EINTR or an
 * early wake-up). Busy threads allocate and free blocks filled with a
 * pattern and verify it, and compute a floating-point sum whose exact value
 * is known, so a corrupted heap, FP or vector register shows up. Long-lived
 * blocks are checked at the end too.
 *
 * It prints "ready <pid>" when set up. On SIGUSR1 it wakes every blocked
 * thread the proper way, checks everything, prints one line
 *   report eintr=N early=N heap_errors=N fp_errors=N
 * and exits 0 if all are zero, 1 otherwise. SIGTERM ends it at once.
 * Real-time signal SIGRTMIN+1 is counted (they queue, none may be lost):
 * the report ends with "rt=N". 
 * Options: -b N busy threads (default 2), -i N idle threads (default 0),
 *          -x MS exit (status 0) MS milliseconds after start, from a
 *             busy thread, wherever the others are
 *          -f FIFO a thread that calls mallctl("prof.dump", FIFO): it blocks
 *             inside jemalloc (holding its dump lock) until a reader opens
 *             the FIFO; its tid is printed as infifo=TID
 *          -H a thread that allocates, then sits in a signal handler
 *             (sigsuspend inside it) for the whole run; its tid is printed
 *             as inhandler=TID
 *          -c a thread that creates and joins short-lived threads nonstop
 *          -E on SIGRTMIN+3, exec /bin/sleep 30 from the thread that
 *             takes it (another program in the same process, mid-run)
 *          -S a thread whose only allocations are in a signal handler
 *             (SIGRTMIN+2, sent to it every 200 us by another thread):
 *             it keeps the last 256 blocks (16 B to 64 KiB) live; the
 *             report ends with "sigallocs=N" (handlers run)
 *          -t a ticker thread that wakes every millisecond and keeps the
 *             longest gap between wake-ups: the pause the process felt;
 *             SIGUSR2 prints "gap max_us=N" and starts a new measurement.
 *          -s e|t|k|K|w|m|v install a seccomp filter once set up, in every thread:
 *             e: pipe2 fails with EPERM (SECCOMP_RET_ERRNO);
 *             t: openat raises SIGSYS (SECCOMP_RET_TRAP), which this
 *             program does not handle (it would die of it);
 *             k: pipe2 kills the process (SECCOMP_RET_KILL_PROCESS,
 *             systemd's SystemCallFilter= default);
 *             K: pipe2 kills the calling thread (KILL_THREAD);
 *             w: openat with O_CREAT kills the process (a read-only
 *             sandbox: the filter looks at an argument);
 *             m: munmap fails with EPERM (jemalloc retains its memory
 *             on Linux and never unmaps: an allowlist may leave it out);
 *             v: process_vm_readv kills the process (the sampler's
 *             hooks call it: --sample must refuse).
 *          -A N create N arenas (reading arenas.create makes one) before
 *             "ready": a large malloc_stats_print report
 *          -G a hostile thread: it watches this process's descriptors and
 *             writes without end into any non-blocking write end of a pipe
 *             (jeattach's dump pipe) as soon as it appears; it prints
 *             "fed fd N" each time
 *          -w allocate a known workload before "ready" (for profile checks:
 *             wl_small 1000 x 64 B, wl_big 10 x 100000 B, wl_rec 100 x 256 B
 *             through a 4-deep recursion), kept live until the end. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static atomic_int eintr_count, early_count, heap_errors, fp_errors;
static atomic_int stopping;
static atomic_int tids[5];
static int pipe_read[2], pipe_epoll[2];
static int listen_fd;
static char sock_path[108];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cv_flag;

static void *reader(void *arg)
{
	atomic_store((atomic_int *)arg, (int)gettid());
	for (;;) {
		char c;
		ssize_t n = read(pipe_read[0], &c, 1);
		if (n == 1 && c == 'q')
			return NULL;
		if (n < 0 && errno == EINTR)
			eintr_count++;
		else
			early_count++;
	}
}

static void *poller(void *arg)
{
	atomic_store((atomic_int *)arg, (int)gettid());
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = pipe_epoll[0] };
	epoll_ctl(ep, EPOLL_CTL_ADD, pipe_epoll[0], &ev);
	for (;;) {
		struct epoll_event out;
		int n = epoll_wait(ep, &out, 1, -1);
		if (n == 1 && stopping)
			return NULL;
		if (n < 0 && errno == EINTR)
			eintr_count++;
		else
			early_count++;
		if (n == 1) { /* drain whatever woke us early */
			char c;
			if (read(pipe_epoll[0], &c, 1) < 0)
				early_count++;
		}
	}
}

static void *sleeper(void *arg)
{
	atomic_store((atomic_int *)arg, (int)gettid());
	for (;;) {
		struct timespec ts = { 3600, 0 };
		int r = nanosleep(&ts, NULL);
		if (r < 0 && errno == EINTR)
			eintr_count++;
		else
			early_count++; /* an hour has not passed in any test */
	}
	return NULL;
}

static void *waiter(void *arg)
{
	atomic_store((atomic_int *)arg, (int)gettid());
	pthread_mutex_lock(&mu);
	while (!cv_flag) {
		pthread_cond_wait(&cv, &mu);
		if (!cv_flag)
			early_count++; /* woken with nothing to do */
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

static void *acceptor(void *arg)
{
	atomic_store((atomic_int *)arg, (int)gettid());
	for (;;) {
		int fd = accept(listen_fd, NULL, NULL);
		if (fd >= 0) {
			close(fd);
			if (stopping)
				return NULL;
			early_count++;
		} else if (errno == EINTR) {
			eintr_count++;
		} else {
			early_count++;
		}
	}
}

/* Known FP result: the sum is computed in registers across many
 * iterations, long enough for a stop to land in the middle. */
static double fp_work(void)
{
	volatile double seed = 0.5;
	double a = seed, s = 0;
	for (int i = 0; i < 200000; i++) {
		s += a * (double)i;
		a = a * 1.0000001;
	}
	return s;
}

static __attribute__((noinline)) unsigned char *alloc_block(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n);
	if (!p)
		return NULL;
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(seed + i * 7);
	return p;
}

static int check_block(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(seed + i * 7))
			return 1;
	return 0;
}

static double fp_expected;

static void *busy(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	unsigned char *keep[64] = { 0 };
	size_t keep_n[64] = { 0 };
	while (!stopping) {
		for (int i = 0; i < 64; i++) {
			if (keep[i]) {
				heap_errors += check_block(keep[i], keep_n[i], seed + (unsigned)i);
				free(keep[i]);
			}
			keep_n[i] = 16 + ((seed * 31u + (unsigned)i * 977u) % 4000);
			keep[i] = alloc_block(keep_n[i], seed + (unsigned)i);
		}
		if (fp_work() != fp_expected)
			fp_errors++;
		seed++;
		/* Subtract the seed bump from the blocks' seeds for the next check. */
		for (int i = 0; i < 64; i++)
			if (keep[i])
				for (size_t k = 0; k < keep_n[i]; k++)
					keep[i][k] = (unsigned char)(seed + (unsigned)i + k * 7);
	}
	for (int i = 0; i < 64; i++)
		if (keep[i]) {
			heap_errors += check_block(keep[i], keep_n[i], seed + (unsigned)i);
			free(keep[i]);
		}
	return NULL;
}

#ifdef VICTIM_PREFIXED
/* What a jemalloc built with --with-jemalloc-prefix=je_ exports. */
#include <jemalloc/jemalloc.h>
int je_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
int je_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
	return mallctl(name, oldp, oldlenp, newp, newlen);
}
#endif

/* The workload: distinct, never-inlined call sites with known sizes. */
#define NOINL __attribute__((noinline, noclone))
static void *wl_keep[2000];
static int wl_n;
static NOINL void wl_small(void)
{
	for (int i = 0; i < 1000; i++)
		wl_keep[wl_n++] = alloc_block(64, 1);
	__asm__ volatile("" ::: "memory");
}
static NOINL void wl_big(void)
{
	for (int i = 0; i < 10; i++)
		wl_keep[wl_n++] = alloc_block(100000, 2);
	__asm__ volatile("" ::: "memory");
}
static NOINL void wl_rec(int depth)
{
	if (depth > 0)
		wl_rec(depth - 1);
	else
		for (int i = 0; i < 100; i++)
			wl_keep[wl_n++] = alloc_block(256, 3);
	__asm__ volatile("" ::: "memory");
}

/* A site inlined into its caller (main): DWARF makes it a frame of its own,
 * "wl_inlined (inline)", as addr2line -i (so jeprof) shows it. */
static void *wl_inl_keep[20];
static inline __attribute__((always_inline)) void wl_inlined(void)
{
	for (int i = 0; i < 20; i++)
		wl_inl_keep[i] = alloc_block(512, 4);
	__asm__ volatile("" ::: "memory");
}

static atomic_long gap_max_us;

static long now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static void *ticker(void *arg)
{
	(void)arg;
	long last = now_us();
	for (;;) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
		long t = now_us(), gap = t - last - 1000;
		if (gap > gap_max_us)
			gap_max_us = gap;
		last = t;
	}
	return NULL;
}

/* One rule: syscall nr gets action; everything else is allowed. */
/* Kill the process on openat(..., flags & O_CREAT, ...): args[2]'s low word. */
static int install_seccomp_nocreate(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_CREAT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
}

static int install_seccomp(int nr, unsigned action)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog);
}

/* Weak: victim_plain has no jemalloc unless it is preloaded. */
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
	__attribute__((weak));
static const char *fifo_path;
static atomic_int extra_tids[2]; /* infifo, inhandler */

static void *fifo_dumper(void *arg)
{
	(void)arg;
	atomic_store(&extra_tids[0], (int)gettid());
	if (!mallctl || mallctl("prof.dump", NULL, NULL, &fifo_path, sizeof(fifo_path)))
		early_count++;
	return NULL;
}

static void handler_sleep(int sig)
{
	(void)sig;
	atomic_store(&extra_tids[1], (int)gettid());
	sigset_t all;
	sigfillset(&all);
	for (;;) /* every signal blocked: this never returns */
		sigsuspend(&all);
}

static void *in_handler(void *arg)
{
	(void)arg;
	/* An allocation first: a thread that never allocated is let go
	 * untouched by the per-thread pass (cli_each.c idle), and this one
	 * must be borrowed, and found never at a safe point. */
	void *volatile p = malloc(64);
	free(p);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler_sleep;
	sigfillset(&sa.sa_mask);
	sigaction(SIGRTMAX, &sa, NULL);
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, SIGRTMAX);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
	pthread_kill(pthread_self(), SIGRTMAX);
	return NULL;
}

static void *churn_one(void *arg)
{
	return arg;
}

/* -G: write into any non-blocking pipe write end while it is there (1 MiB
 * a visit, as fast as the pipe is drained). */
static void *grower(void *arg)
{
	(void)arg;
	static char junk[65536];
	memset(junk, 'x', sizeof(junk));
	for (;;) {
		for (int fd = 3; fd < 64; fd++) {
			char link[64], target[128];
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			ssize_t n = readlink(link, target, sizeof(target) - 1);
			if (n <= 0)
				continue;
			target[n] = 0;
			int fl = fcntl(fd, F_GETFL);
			if (strncmp(target, "pipe:", 5) || fl < 0 || (fl & O_ACCMODE) != O_WRONLY ||
			    !(fl & O_NONBLOCK))
				continue;
			size_t sent = 0;
			for (int i = 0; i < 4096 && sent < (1u << 20); i++) {
				ssize_t w = write(fd, junk, sizeof(junk));
				if (w > 0)
					sent += (size_t)w;
			}
			if (sent) {
				printf("fed fd %d\n", fd);
				fflush(stdout);
			}
		}
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* -S: allocations made only inside a signal handler, on a thread that
 * never allocates otherwise (so the handler never interrupts its own
 * malloc: jemalloc is not async-signal-safe), while another keeps it
 * signalled. */
static atomic_long sigallocs;
static _Atomic pid_t sigalloc_tid;
static void *sig_blocks[256];

static void on_sigalloc(int sig)
{
	(void)sig;
	long n = atomic_fetch_add(&sigallocs, 1);
	size_t size = (size_t)16 << (n % 13); /* 16 B .. 64 KiB */
	void **slot = &sig_blocks[n % 256];
	free(*slot);
	*slot = malloc(size);
	if (*slot)
		memset(*slot, (int)(n & 0xff), size);
}

static void *sigalloc_target(void *arg)
{
	(void)arg;
	atomic_store(&sigalloc_tid, (pid_t)syscall(SYS_gettid));
	while (!stopping) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void *sigalloc_sender(void *arg)
{
	pthread_t target = *(pthread_t *)arg;
	while (!stopping) {
		pthread_kill(target, SIGRTMIN + 2);
		struct timespec ts = { 0, 200000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* -E: execve is async-signal-safe (signal-safety(7)). */
static void on_exec_signal(int sig)
{
	(void)sig;
	static char prog[] = "sleep", secs[] = "30";
	char *argv[] = { prog, secs, NULL };
	unlink(sock_path);
	execve("/bin/sleep", argv, environ);
	_exit(4);
}

static void *churner(void *arg)
{
	(void)arg;
	while (!stopping) {
		pthread_t t;
		if (pthread_create(&t, NULL, churn_one, NULL) == 0)
			pthread_join(t, NULL);
	}
	return NULL;
}

static long exit_after_ms;

static void *exiter(void *arg)
{
	(void)arg;
	struct timespec ts = { exit_after_ms / 1000, (exit_after_ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
	unlink(sock_path);
	_exit(0);
}

static void *idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	while (!cv_flag)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return NULL;
}

int main(int argc, char **argv)
{
	int nbusy = 2, nidle = 0, workload = 0, tick = 0, opt;
	char sec = 0;
	int in_sig_handler = 0, churn = 0, grow = 0, narenas = 0, sigalloc = 0;
	int exec_on_signal = 0;
	while ((opt = getopt(argc, argv, "A:b:cEf:GHi:Ss:tx:w")) != -1) {
		if (opt == 'b')
			nbusy = atoi(optarg);
		else if (opt == 'i')
			nidle = atoi(optarg);
		else if (opt == 'w')
			workload = 1;
		else if (opt == 't')
			tick = 1;
		else if (opt == 's')
			sec = optarg[0];
		else if (opt == 'x')
			exit_after_ms = atol(optarg);
		else if (opt == 'f')
			fifo_path = optarg;
		else if (opt == 'H')
			in_sig_handler = 1;
		else if (opt == 'c')
			churn = 1;
		else if (opt == 'S')
			sigalloc = 1;
		else if (opt == 'E')
			exec_on_signal = 1;
		else if (opt == 'G')
			grow = 1;
		else if (opt == 'A')
			narenas = atoi(optarg);
		else
			return 2;
	}
	/* Let any process trace us even where Yama restricts ptrace to
	 * ancestors (ptrace_scope=1): the tests' jeattach is a sibling. */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGRTMIN + 1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	fp_expected = fp_work();
	if (pipe(pipe_read) || pipe(pipe_epoll))
		return 3;
	listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	snprintf(sock_path, sizeof(sock_path), "/tmp/victim-%d.sock", (int)getpid());
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	unlink(sock_path);
	if (bind(listen_fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(listen_fd, 4))
		return 3;

	/* Long-lived heap contents, checked at the end. */
	enum { NLIVE = 256 };
	unsigned char *live[NLIVE];
	for (int i = 0; i < NLIVE; i++)
		live[i] = alloc_block(100 + (size_t)i * 13, (unsigned)i);

	if (workload) {
		wl_small();
		wl_big();
		wl_rec(4);
		wl_inlined();
	}

	pthread_t th[5];
	void *(*fns[5])(void *) = { reader, poller, sleeper, waiter, acceptor };
	for (int i = 0; i < 5; i++)
		pthread_create(&th[i], NULL, fns[i], (void *)&tids[i]);
	pthread_t *bt = calloc((size_t)(nbusy + nidle) + 1, sizeof(*bt));
	for (int i = 0; i < nbusy; i++)
		pthread_create(&bt[i], NULL, busy, (void *)(uintptr_t)(i * 1000));
	for (int i = 0; i < nidle; i++)
		pthread_create(&bt[nbusy + i], NULL, idle, NULL);

	if ((sec == 'e' && install_seccomp(SYS_pipe2, SECCOMP_RET_ERRNO | EPERM)) ||
	    (sec == 't' && install_seccomp(SYS_openat, SECCOMP_RET_TRAP)) ||
	    (sec == 'k' && install_seccomp(SYS_pipe2, SECCOMP_RET_KILL_PROCESS)) ||
	    (sec == 'K' && install_seccomp(SYS_pipe2, SECCOMP_RET_KILL_THREAD)) ||
	    (sec == 'w' && install_seccomp_nocreate()) ||
	    (sec == 'm' && install_seccomp(SYS_munmap, SECCOMP_RET_ERRNO | EPERM)) ||
	    (sec == 'v' && install_seccomp(SYS_process_vm_readv, SECCOMP_RET_KILL_PROCESS))) {
		perror("seccomp");
		return 3;
	}
	pthread_t xth;
	if (fifo_path)
		pthread_create(&xth, NULL, fifo_dumper, NULL);
	if (in_sig_handler)
		pthread_create(&xth, NULL, in_handler, NULL);
	if (churn)
		pthread_create(&xth, NULL, churner, NULL);
	if (exec_on_signal) {
		struct sigaction act = { .sa_handler = on_exec_signal };
		sigemptyset(&act.sa_mask);
		sigaction(SIGRTMIN + 3, &act, NULL);
	}
	static pthread_t sigalloc_th;
	if (sigalloc) {
		struct sigaction act = { .sa_handler = on_sigalloc, .sa_flags = SA_RESTART };
		sigemptyset(&act.sa_mask);
		sigaction(SIGRTMIN + 2, &act, NULL);
		pthread_create(&sigalloc_th, NULL, sigalloc_target, NULL);
		while (!atomic_load(&sigalloc_tid))
			sched_yield();
		pthread_create(&xth, NULL, sigalloc_sender, &sigalloc_th);
	}
	if (grow)
		pthread_create(&xth, NULL, grower, NULL);
	for (int i = 0; i < narenas; i++) {
		unsigned idx;
		size_t sz = sizeof(idx);
		if (!mallctl || mallctl("arenas.create", &idx, &sz, NULL, 0))
			early_count++;
	}
	for (int i = 0; i < 5; i++) /* each thread publishes its tid */
		while (!atomic_load(&tids[i]))
			sched_yield();
	while ((fifo_path && !atomic_load(&extra_tids[0])) ||
	       (in_sig_handler && !atomic_load(&extra_tids[1])))
		sched_yield();
	printf("ready %d reader=%d poller=%d sleeper=%d waiter=%d acceptor=%d infifo=%d "
	       "inhandler=%d\n",
	       (int)getpid(), tids[0], tids[1], tids[2], tids[3], tids[4], extra_tids[0],
	       extra_tids[1]);
	fflush(stdout);

	if (tick) {
		pthread_t tt;
		pthread_create(&tt, NULL, ticker, NULL);
	}
	if (exit_after_ms) {
		pthread_t xt;
		pthread_create(&xt, NULL, exiter, NULL);
	}
	int sig;
	long rt_count = 0;
	/* A borrowed main thread must get its errno back as it was. */
	errno = 4242;
	while (sigwait(&set, &sig) == 0 && (sig == SIGUSR2 || sig == SIGRTMIN + 1)) {
		if (sig == SIGRTMIN + 1) {
			rt_count++;
			continue;
		}
		printf("gap max_us=%ld\n", (long)gap_max_us);
		fflush(stdout);
		gap_max_us = 0;
	}
	int errno_errors = errno != 4242;
	if (sig == SIGTERM) {
		unlink(sock_path);
		_exit(0);
	}
	/* Wake each blocked thread the proper way and wait for it. */
	stopping = 1;
	if (write(pipe_read[1], "q", 1) != 1 || write(pipe_epoll[1], "e", 1) != 1)
		return 3;
	pthread_mutex_lock(&mu);
	cv_flag = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (connect(c, (struct sockaddr *)&sa, sizeof(sa)))
		early_count += 1000;
	close(c);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	pthread_join(th[3], NULL);
	pthread_join(th[4], NULL);
	for (int i = 0; i < nbusy + nidle; i++)
		pthread_join(bt[i], NULL);
	for (int i = 0; i < NLIVE; i++)
		heap_errors += check_block(live[i], 100 + (size_t)i * 13, (unsigned)i);
	for (int i = 0; i < wl_n; i++)
		heap_errors += check_block(wl_keep[i], i < 1000 ? 64 : i < 1010 ? 100000 : 256,
					   i < 1000 ? 1u : i < 1010 ? 2u : 3u);
	for (int i = 0; workload && i < 20; i++)
		heap_errors += check_block(wl_inl_keep[i], 512, 4);
	unlink(sock_path);
	printf("report eintr=%d early=%d heap_errors=%d fp_errors=%d errno_errors=%d rt=%ld",
	       eintr_count, early_count, heap_errors, fp_errors, errno_errors, rt_count);
	if (sigalloc)
		printf(" sigallocs=%ld", atomic_load(&sigallocs));
	printf("\n");
	fflush(stdout);
	/* The sleeper is still in its hour-long nanosleep: exit ends it. */
	_exit(eintr_count || early_count || heap_errors || fp_errors || errno_errors);
}
