/* SPDX-License-Identifier: BSD-2-Clause */
/* struct target, for the engine's layers only (target, rcall, remote, act):
 * the command line sees it opaque, through target.h's functions, and never
 * includes this file (t_circles.sh checks). */
#ifndef JEATTACH_TARGET_STRUCT_H
#define JEATTACH_TARGET_STRUCT_H

#include "target.h"

struct target {
	pid_t pid;
	/* Whose /proc entry and memory stand for the process: pid, or a live
	 * thread of it when the main thread has ended (pthread_exit): the
	 * leader is then a zombie with empty maps, mem, fd, root and exe,
	 * while /proc/TID of any thread shows the process's own. */
	pid_t io_pid;
	struct target_info info;
	struct sym_maps maps;
	struct sym_jemalloc je; /* where jemalloc and its functions are */
	struct rcall_ctx *rc;
	struct rproc_ctx *rp;
	struct ja_reason reason; /* why the last error happened (errors.h) */
	/* A thread jeattach traced ended: its waitpid status (WIFEXITED or
	 * WIFSIGNALED: the whole process's exit status, or 0 when an execve
	 * by another thread killed it), for target_fate. */
	int ended_status, ended_known;
};

#endif
