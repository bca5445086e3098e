/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_sizes: sizes a target chooses, that jeattach must not pay for in
 * proportion.
 *   -X PATH  map a sparse 8 GiB file at PATH readable and executable (it
 *            looks like code: file-backed, not writable)
 *   -C       make the dynamic linker's list of objects loop (the last
 *            entry's l_next points at the first); it is put back before
 *            exit, where glibc's _dl_fini walks it
 * Prints "ready <pid>"; SIGUSR1: "report ok", exit 0. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

/* Kept at file scope: stored, never read, and not a set-but-unused local. */
static void *volatile keep;

int main(int argc, char **argv)
{
	const char *sparse = NULL;
	int loop = 0, c;
	while ((c = getopt(argc, argv, "X:C")) != -1) {
		if (c == 'X')
			sparse = optarg;
		else if (c == 'C')
			loop = 1;
		else
			return 2;
	}
	keep = malloc(1000); /* jemalloc linked and set up */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	if (sparse) {
		int fd = open(sparse, O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, 8LL << 30) ||
		    mmap(NULL, 8LL << 30, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED) {
			perror("sparse executable mapping");
			return 3;
		}
	}
	struct link_map *first = _r_debug.r_map, *last = first;
	while (last && last->l_next)
		last = last->l_next;
	if (loop && last)
		last->l_next = first;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	int sig;
	sigwait(&set, &sig);
	if (loop && last)
		last->l_next = NULL;
	printf("report ok\n");
	fflush(stdout);
	return 0;
}
