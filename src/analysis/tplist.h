/* SPDX-License-Identifier: BSD-2-Clause */
/* tplist: every thread's thread pointer from glibc's list of thread
 * descriptors, read from outside, no thread stopped (tplist.c). Pure: the
 * target's memory comes through a read callback, so that forged memory
 * can be tested. */
#ifndef JEATTACH_TPLIST_H
#define JEATTACH_TPLIST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Copy len bytes at addr into buf: 0, or -1 if not all could be read. */
typedef int (*tplist_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);
/* Is tid one of the target's threads now? */
typedef int (*tplist_want_fn)(void *ctx, pid_t tid);

struct tplist_mem {
	tplist_read_fn read;
	void *ctx;
};

/* How far from the thread pointer the descriptor's list node is searched,
 * either way (glibc's struct pthread is about 2.3 KiB on x86_64). */
#define TPLIST_WINDOW 4096

struct tplist_thread {
	pid_t tid;
	uint64_t tp;
};

/* Thread tid's thread pointer is tp: find its descriptor's list node near
 * it. 0 and *node_off (node - tp) when exactly one place fits, -1 if none
 * or several do. */
int tplist_find(const struct tplist_mem *m, uint64_t tp, pid_t tid, int64_t *node_off);

/* From the list node at start (a descriptor's, found by tplist_find),
 * walk its list and the lists whose heads lie next to its head, at most
 * max_reads reads of the target's memory: out[] gets each wanted thread
 * found (tid, tp = node - node_off), a tid met twice dropped. Returns how
 * many, or -1 (out of memory). */
int tplist_walk(const struct tplist_mem *m, uint64_t start, int64_t node_off,
		tplist_want_fn want, void *wctx, int max_reads, struct tplist_thread *out, int cap);

#endif
