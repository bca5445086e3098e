/* SPDX-License-Identifier: BSD-2-Clause */
/* For victims: an ordinary thread, known to jemalloc (one malloc), blocked
 * in read() on a pipe until a byte comes: where crash-safe calls belong. */
#ifndef VICTIM_READER_H
#define VICTIM_READER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

struct victim_reader {
	int pipe[2];
	atomic_int tid;
	pthread_t thread;
};

static void *victim_reader_run(void *arg)
{
	struct victim_reader *r = arg;
	char c;
	void *volatile keep = malloc(100); /* jemalloc has this thread's tsd */
	(void)keep;
	r->tid = (int)syscall(SYS_gettid);
	while (read(r->pipe[0], &c, 1) != 1)
		;
	return NULL;
}

/* Started and in its first read(): 0, or -1. */
static inline int victim_reader_start(struct victim_reader *r)
{
	r->tid = 0;
	if (pipe(r->pipe) || pthread_create(&r->thread, NULL, victim_reader_run, r))
		return -1;
	while (!r->tid)
		usleep(1000);
	return 0;
}

/* Its byte sent and the thread joined: 0, or -1. */
static inline int victim_reader_stop(struct victim_reader *r)
{
	if (write(r->pipe[1], "x", 1) != 1)
		return -1;
	return pthread_join(r->thread, NULL) ? -1 : 0;
}

#endif
