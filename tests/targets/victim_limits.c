/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_limits: a process whose own limits a dump must not turn against
 * it (tests/integration/t_limits.sh).
 *
 *   -n N   keep one live block from each of N distinct call stacks (with
 *          lg_prof_sample:0 each is a sample: the profile grows about
 *          480 bytes a stack)
 *   -g F   write its pid into F (a cgroup's cgroup.procs) first, so every
 *          byte it is charged is that cgroup's
 *   -f B   RLIMIT_FSIZE's soft limit B bytes (SIGXFSZ's default action
 *          kills: a write of a file past it would be its last)
 *   -F K   leave exactly K descriptor numbers free under RLIMIT_NOFILE
 *   -s     a thread that posix_spawn()s `sleep 30` every 20 ms (no
 *          pthread_atfork handler runs: a spawn goes on during a dump) and
 *          prints "child PID" for each
 *   -S     the same with fork() and no exec, as a prefork server makes its
 *          workers: each child sleeps 10 s (it keeps whatever descriptor it
 *          inherited); a fork that waits in jemalloc's prefork handler for
 *          a dump's lock goes on the moment the dump lets it go
 * Prints "ready PID" once set up. SIGPIPE and SIGXFSZ keep their default
 * actions: either kills it. SIGUSR1: prints "report ok children=N" and
 * exits 0. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "victim_stacks.h"

extern char **environ;

static volatile sig_atomic_t children, done;

static int forks; /* -S */

static pid_t fork_sleeper(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		struct timespec ten = { 10, 0 };
		while (nanosleep(&ten, &ten))
			;
		_exit(0);
	}
	return pid;
}

static void *spawner(void *arg)
{
	(void)arg;
	char *argv[] = { (char *)"sleep", (char *)"30", NULL };
	while (!done) {
		pid_t pid;
		if (forks ? (pid = fork_sleeper()) > 0
			  : !posix_spawn(&pid, "/bin/sleep", NULL, NULL, argv, environ)) {
			children++;
			printf("child %d\n", (int)pid);
			fflush(stdout);
		}
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void on_usr1(int sig)
{
	(void)sig;
	done = 1;
}

/* Leave exactly k numbers free below the soft limit (it bounds the
 * numbers, not the count: descriptors inherited at high numbers, as make's
 * jobserver pipes, take none of them): the limit is set to the (k+1)-th
 * free number. */
static int leave_free(unsigned k)
{
	unsigned seen = 0;
	int fd = 0;
	for (; fd < 65536; fd++)
		if (fcntl(fd, F_GETFD) < 0 && seen++ == k)
			break;
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = (rlim_t)fd;
	return setrlimit(RLIMIT_NOFILE, &rl);
}

int main(int argc, char **argv)
{
	unsigned n = 0;
	long fsize = -1, nofree = -1;
	int spawn = 0, opt;
	const char *cg = NULL;
	while ((opt = getopt(argc, argv, "n:g:f:F:sS")) != -1) {
		switch (opt) {
		case 'n': n = (unsigned)strtoul(optarg, NULL, 0); break;
		case 'g': cg = optarg; break;
		case 'f': fsize = strtol(optarg, NULL, 0); break;
		case 'F': nofree = strtol(optarg, NULL, 0); break;
		case 's': spawn = 1; break;
		case 'S':
			spawn = forks = 1;
			signal(SIGCHLD, SIG_IGN); /* the kernel reaps them */
			break;
		default:
			fprintf(stderr, "usage: victim_limits [-n N] [-g PROCS] [-f B] [-F K] [-s|-S]\n");
			return 2;
		}
	}
	if (cg) {
		FILE *f = fopen(cg, "w");
		if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
			perror(cg);
			return 3;
		}
	}
	int depth = 1;
	while (depth < DEPTH_MAX && (1u << depth) < n)
		depth++;
	void **blocks = calloc(n ? n : 1, sizeof(*blocks));
	for (unsigned i = 0; i < n; i++)
		blocks[i] = step(i, depth);
	signal(SIGUSR1, on_usr1);
	pthread_t th;
	if (spawn)
		pthread_create(&th, NULL, spawner, NULL);
	if (fsize >= 0) {
		struct rlimit rl;
		getrlimit(RLIMIT_FSIZE, &rl);
		rl.rlim_cur = (rlim_t)fsize;
		if (setrlimit(RLIMIT_FSIZE, &rl))
			perror("RLIMIT_FSIZE");
	}
	if (nofree >= 0 && leave_free((unsigned)nofree))
		perror("RLIMIT_NOFILE");
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (!done) /* SIGUSR1 may go to the spawner: look every 50 ms */
		usleep(50000);
	if (spawn)
		pthread_join(th, NULL);
	for (unsigned i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
	printf("report ok children=%d\n", (int)children);
	fflush(stdout);
	return 0;
}
