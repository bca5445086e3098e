/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_handlers: a process with handlers of its own for the fault
 * signals (as a JVM, Go or a sandbox has), and, on request, a seccomp
 * filter that an injected call could trip:
 *   -f c  KILL_PROCESS on creat (glibc's creat() on x86_64 is that syscall)
 *   -f r  KILL_PROCESS on rt_sigreturn (every crash-safe call ends in it)
 *   -f t  TRAP on creat, SIGSYS handled here
 * Its main thread sleeps on its own CPU-time clock (clock_nanosleep with
 * CLOCK_PROCESS_CPUTIME_ID: a restart-block call jeattach cannot re-make,
 * since the CPU time left is not known from outside, posix_cpu_nsleep: so
 * borrowed only through the return trap and single steps; nanosleep is
 * re-made and borrowed crash-safe since rcall_wait.c re-makes it). "ready <pid>"; SIGUSR2
 * prints "handlers SEGV=ours|default TRAP=... SYS=..."; SIGUSR1 exits 0
 * with "report ok" (both taken by a thread in sigwait). */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The call jemalloc's prof.dump opens its file with (5.x prof_dump_open:
 * creat(2) through glibc, the creat syscall where the ABI has one; arm64
 * has none, and glibc makes it openat). */
#ifdef SYS_creat
#define DUMP_OPEN_NR SYS_creat
#else
#define DUMP_OPEN_NR SYS_openat
#endif

static void handler(int sig)
{
	(void)sig;
}

static const char *state(int sig)
{
	struct sigaction o;
	sigaction(sig, NULL, &o);
	return o.sa_handler == handler ? "ours" : o.sa_handler == SIG_DFL ? "default" : "other";
}

static void *signals(void *arg)
{
	sigset_t *set = arg;
	for (;;) {
		int sig;
		sigwait(set, &sig);
		if (sig == SIGUSR1)
			break;
		printf("handlers SEGV=%s TRAP=%s SYS=%s\n", state(SIGSEGV), state(SIGTRAP),
		       state(SIGSYS));
		fflush(stdout);
	}
	printf("report ok\n");
	fflush(stdout);
	exit(0);
}

static int filter(int nr, unsigned action)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { 4, f };
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	       syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &p);
}

/* Kept at file scope: stored, never read, and not a set-but-unused local. */
static void *volatile keep;

int main(int argc, char **argv)
{
	char mode = argc > 2 && !strcmp(argv[1], "-f") ? argv[2][0] : 0;
	keep = malloc(1000);
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGTRAP, &sa, NULL);
	sigaction(SIGSYS, &sa, NULL);
	static sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_t th;
	pthread_create(&th, NULL, signals, &set);
	if ((mode == 'c' && filter(DUMP_OPEN_NR, SECCOMP_RET_KILL_PROCESS)) ||
	    (mode == 'r' && filter(SYS_rt_sigreturn, SECCOMP_RET_KILL_PROCESS)) ||
	    (mode == 't' && filter(DUMP_OPEN_NR, SECCOMP_RET_TRAP))) {
		perror("seccomp");
		return 3;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;) {
		struct timespec ts = { 3600, 0 };
		clock_nanosleep(CLOCK_PROCESS_CPUTIME_ID, 0, &ts, NULL);
	}
}
