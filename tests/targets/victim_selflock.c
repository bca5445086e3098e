/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_selflock: a thread that holds every jemalloc lock with no jemalloc
 * frame on its stack. It calls jemalloc's own fork-prepare handler
 * (jemalloc_prefork, what pthread_atfork runs before a fork; reachable here
 * because jemalloc is linked statically) and then sleeps in read(), as a
 * thread stopped between a fork's handlers would be if nothing on its stack
 * said so. A mallctl injected into it waits on its own lock: jeattach must
 * see that and abandon the call, never wait for ever. -n: it sleeps in
 * nanosleep() (20 ms at a time) instead, a restart-block sleep.
 * "ready <pid> holder=<tid>"; SIGUSR1 (taken by main in sigwait) wakes the
 * holder, which gives the locks back (jemalloc_postfork_parent), allocates
 * and frees to check that jemalloc works, and the process exits: "report
 * alloc_errors=N", 0 if clean. No other thread allocates meanwhile (it
 * would wait for the locks until the end).
 * -s: under a seccomp filter that kills the process on system call number
 * -1, as an allowlist's default does for a number it does not know. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/* jemalloc's, global in its static library (src/jemalloc.c). */
void je_jemalloc_prefork(void);
void je_jemalloc_postfork_parent(void);

static int wake[2];
static volatile int use_nanosleep, woken;
static volatile pid_t holder_tid;
static volatile int alloc_errors = -1;

static void *holder(void *arg)
{
	(void)arg;
	free(malloc(64)); /* a jemalloc thread: its tsd exists */
	je_jemalloc_prefork();
	holder_tid = (pid_t)syscall(SYS_gettid);
	char c;
	if (use_nanosleep)
		while (!woken) {
			struct timespec ts = { 0, 20000000 };
			nanosleep(&ts, NULL);
		}
	else
		while (read(wake[0], &c, 1) < 0)
			;
	je_jemalloc_postfork_parent();
	int errors = 0;
	for (int i = 0; i < 1000; i++) {
		char *p = malloc(16 + (size_t)i * 8);
		if (!p) {
			errors++;
			continue;
		}
		memset(p, 7, 16);
		free(p);
	}
	alloc_errors = errors;
	return NULL;
}

static int kill_on_minus_one(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(int argc, char **argv)
{
	use_nanosleep = argc > 1 && !strcmp(argv[1], "-n");
	if (argc > 1 && !strcmp(argv[argc - 1], "-s") && kill_on_minus_one())
		return 4;
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	/* stdout's buffer is malloc'd at its first use: here it must not be,
	 * main prints while the holder keeps jemalloc's locks. */
	static char outbuf[4096];
	setvbuf(stdout, outbuf, _IOLBF, sizeof(outbuf));
	if (pipe(wake))
		return 3;
	pthread_t t;
	if (pthread_create(&t, NULL, holder, NULL))
		return 3;
	while (!holder_tid)
		usleep(1000);
	usleep(20000); /* let it reach its read() */
	printf("ready %d holder=%d\n", (int)getpid(), (int)holder_tid);
	fflush(stdout);
	int sig;
	sigwait(&set, &sig);
	woken = 1;
	if (write(wake[1], "x", 1) != 1)
		return 3;
	pthread_join(t, NULL);
	printf("report alloc_errors=%d\n", alloc_errors);
	fflush(stdout);
	return alloc_errors != 0;
}
