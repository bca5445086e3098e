/* SPDX-License-Identifier: BSD-2-Clause */
/* keep_: a directory of dumps with a bound (--dump DIR/ --keep N,
 * --keep-bytes SIZE). Pure: the names jeattach gives its files there, the
 * strict reading of such a name, and which files a bound removes from a
 * listing. Listing the directory and unlinking are act_keep.c's; nothing
 * here touches a file. */
#ifndef JEATTACH_KEEP_H
#define JEATTACH_KEEP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* The longest name keep_name_make makes, with its NUL:
 * 16 (stamp) + 1 + 15 (comm) + 1 + 10 (pid) + 1 + 10 (seq) + 5 + 1. */
#define KEEP_NAME_MAX 64
/* /proc/PID/comm's longest (TASK_COMM_LEN - 1, prctl(2) PR_SET_NAME). */
#define KEEP_COMM_MAX 15

/* A file's name in the directory: TIME.COMM.PID.SEQ.heap, e.g.
 * 20261127T031500Z.redis-server.1234.0.heap. TIME first (UTC, ISO 8601's
 * basic form, as %t) so that names sort by time; COMM is the process's
 * name with every byte outside [A-Za-z0-9_+-] made '_' (a comm may hold
 * any byte but NUL: a '/' or a '.' of it must not make a path or a second
 * name that parses another way), "_" when empty; SEQ the dump's number in
 * the series (%n). 0, or -1 (when cannot be read as UTC, or len too short). */
int keep_name_make(time_t when, const char *comm, pid_t pid, unsigned seq, char *out,
		   size_t len);

/* What a name of ours says. */
struct keep_name {
	char stamp[17];     /* "20261127T031500Z" */
	unsigned long pid;  /* 1 .. 2^31-1 */
	unsigned long seq;  /* 0 .. 2^32-1 */
};

/* Is name exactly one keep_name_make could have made? Nothing else is
 * ever removed: no prefix or suffix, no leading zeros, no empty part, no
 * byte outside the sets. 0 (and *kn filled if given), or -1. */
int keep_name_parse(const char *name, struct keep_name *kn);

/* One file of ours in the directory, as listed. */
struct keep_file {
	const char *name;
	uint64_t bytes;
	int64_t mtime_ns; /* its modification time: orders files of one second */
};

/* The bound: at most files files and bytes bytes (0: no bound of that kind). */
struct keep_bounds {
	uint64_t files;
	uint64_t bytes;
};

/* Which of files[0..n) to remove: the newest are kept while both bounds
 * hold, and from the first that would break one, it and every older file
 * go (a newer large file is never removed while an older small one
 * stays). Newest means: the file named newest (the dump just written)
 * first, whatever its name says (a clock set back), then by the time in
 * the name, then (within its second) by modification time, sequence, pid,
 * descending. The file named newest is
 * never removed, even when it alone breaks the bound. Files whose names
 * are not ours (keep_name_parse) are never removed either, and count
 * for nothing. remove[i] is set to 1 or 0; returns how many are 1. */
size_t keep_choose(const struct keep_file *files, size_t n, const char *newest,
		   const struct keep_bounds *b, unsigned char *remove);

#endif
