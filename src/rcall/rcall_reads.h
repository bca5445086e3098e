/* SPDX-License-Identifier: BSD-2-Clause */
/* What the thread level's decisions read of a live thread (is its wait
 * timed, and how long; was it woken before the interrupt; has it children,
 * has the process new ones; has its stack room for a frame), through one
 * table of function pointers: the real /proc and memory readers by default,
 * recorded states in unit tests (tests/check_rcall.c), as jemalloc's
 * JET_MUTABLE hooks let its tests replace what prof_sys.c reads. Nothing
 * but tests writes the table. */
#ifndef JEATTACH_RCALL_READS_H
#define JEATTACH_RCALL_READS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct sym_maps;

struct rcall_reads {
	/* /proc/PID/task/TID/NAME ("status", "syscall", "schedstat") as a
	 * NUL-terminated string the caller frees (bounded: CORE_READ_PROC_MAX);
	 * NULL when the thread is gone or the file cannot be read. */
	char *(*task_file)(pid_t pid, pid_t tid, const char *name);
	/* len bytes of pid's memory at addr: 0, or -errno. */
	int (*memory)(pid_t pid, uint64_t addr, void *buf, size_t len);
	/* Is descriptor fd of pid a socket? 1 or 0. */
	int (*is_socket)(pid_t pid, uint64_t fd);
	/* pid's mappings now (sym_maps_read): 0, or -errno. */
	int (*maps)(pid_t pid, struct sym_maps *out);
	/* CLOCK_MONOTONIC minus cpu's scheduler task clock, in microseconds
	 * (rcall_since.c): 0, or -1 unknown. */
	int (*clock_offset)(int cpu, int64_t *offset);
	/* pid's thread ids, at most max (target_threads): how many, or
	 * -errno. */
	int (*tasks)(pid_t pid, pid_t *tids, int max);
};

extern struct rcall_reads rcall_reads;

#endif
