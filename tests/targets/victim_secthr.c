/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_secthr: seccomp filters are per thread. The main thread has
 * none; a worker installs one that kills the process on process_vm_readv
 * (the call the sampler's hooks make), then allocates without end. A
 * tool that reads only one thread's filter would see none and kill the
 * process from inside the worker's malloc. "ready PID"; on SIGUSR1
 * "report ok" and exit 0. */
#define _GNU_SOURCE
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile sig_atomic_t done;

static void on_usr1(int sig)
{
	(void)sig;
	done = 1;
}

static void *worker(void *arg)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_process_vm_readv, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = { sizeof(f) / sizeof(f[0]), f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p)) {
		perror("seccomp");
		exit(2);
	}
	while (!done) {
		for (int i = 0; i < 100; i++) {
			void *volatile q = malloc(4096);
			free(q);
		}
		usleep(1000);
	}
	return arg;
}

int main(void)
{
	pthread_t t;
	signal(SIGUSR1, on_usr1);
	if (pthread_create(&t, NULL, worker, NULL))
		return 2;
	usleep(100000); /* the worker's filter in */
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!done)
		pause();
	pthread_join(t, NULL);
	printf("report ok\n");
	return 0;
}
