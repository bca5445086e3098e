/* SPDX-License-Identifier: BSD-2-Clause */
/* Process services inside the held thread (see rproc.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "core_grow.h"
#include "errors.h"
#include "rcall.h"
#include "rproc.h"
#include "sec_bpf.h"
#include "target_struct.h"

/* The system calls of each use, with the arguments that can matter to a
 * filter (pointers cannot: seccomp sees only registers). A dump: pipe2 and
 * close injected (act_dump.c); jemalloc 5.x's
 * prof.dump: creat(name, 0644) (answered by jeattach with the pipe, the
 * kernel's answer to the empty name discarded, but made all the same) (glibc: the creat syscall where the ABI has
 * one, x86_64, else openat O_WRONLY|O_CREAT|O_TRUNC),
 * malloc_open("/proc/self/maps", O_RDONLY) (open or openat, by
 * JEMALLOC_USE_SYSCALL), read, write, close, getpid (prof_getpid); and,
 * like every call into the allocator, mmap/munmap/madvise for memory and
 * futex on a contended lock. Every crash-safe call ends in rt_sigreturn. */
struct sys_call {
	long nr;
	const char *name;
	uint64_t a[6];
};
#define FDCWD ((uint64_t)(uint32_t)AT_FDCWD)
#define COMMON_CALLS                                                                  \
	{ SYS_mmap, "mmap", { 0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, \
			      (uint64_t)-1, 0 } },                                        \
	{ SYS_munmap, "munmap", { 0 } }, { SYS_madvise, "madvise", { 0, 0, MADV_DONTNEED } }, \
	{ SYS_madvise, "madvise", { 0, 0, MADV_FREE } },                                \
	{ SYS_futex, "futex", { 0, FUTEX_WAIT_PRIVATE } },                                \
	{ SYS_futex, "futex", { 0, FUTEX_WAKE_PRIVATE } },                                \
	{ SYS_rt_sigreturn, "rt_sigreturn", { 0 } }
static const struct sys_call dump_calls[] = {
	{ SYS_pipe2, "pipe2", { 0, O_CLOEXEC | O_NONBLOCK } },
#ifdef SYS_creat /* glibc's creat() on x86_64 (creat64.c: __NR_creat) */
	{ SYS_creat, "creat (jemalloc's creat of the dump)", { 0, 0644 } },
#endif
	{ SYS_openat, "openat (jemalloc's creat of the dump)",
	  { FDCWD, 0, O_WRONLY | O_CREAT | O_TRUNC, 0644 } },
	{ SYS_openat, "openat (/proc/self/maps)", { FDCWD, 0, O_RDONLY | O_CLOEXEC } },
#ifdef SYS_open
	{ SYS_open, "open (/proc/self/maps)", { 0, O_RDONLY | O_CLOEXEC } },
#endif
	{ SYS_read, "read", { 0 } },
	{ SYS_write, "write", { 0 } },
	{ SYS_close, "close", { 0 } },
	{ SYS_getpid, "getpid", { 0 } },
	COMMON_CALLS,
};
static const struct sys_call stats_calls[] = {
	{ SYS_mmap, "mmap (the report's buffer)",
	  { 0, 0, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, (uint64_t)-1, 0 } },
	{ SYS_mprotect, "mprotect", { 0, 0, PROT_READ | PROT_WRITE } },
	COMMON_CALLS,
};

int rproc_check_seccomp(struct target *t, enum rproc_use use)
{
	const struct sys_call *v = use == RPROC_USE_DUMP ? dump_calls : stats_calls;
	size_t n = use == RPROC_USE_DUMP ? sizeof(dump_calls) / sizeof(dump_calls[0])
					 : sizeof(stats_calls) / sizeof(stats_calls[0]);
	for (size_t i = 0; i < n; i++) {
		uint32_t ret;
		int e = rcall_seccomp(t, v[i].nr, v[i].a, &ret);
		if (e)
			return e;
		if (sec_bpf_kills(ret)) {
			struct ja_reason r = {
				.kind = JA_WHY_SECCOMP_KILLS,
				.n = ret & SECCOMP_RET_ACTION_FULL,
			};
			snprintf(r.detail, sizeof(r.detail), "%s", v[i].name);
			target_reason(t, r);
			return -JA_ERR_SECCOMP_KILL;
		}
	}
	return 0;
}

struct rproc_ctx {
	uint64_t strcat_fn; /* libc's strcat, or its IFUNC resolver; 0 if none */
	int strcat_ifunc;
};

int rproc_prepare(struct target *t, unsigned needs)
{
	if (t->rp || !needs)
		return 0;
	struct rproc_ctx *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	if ((needs & RPROC_STATS_PRINT) &&
	    sym_lookup_function(t->io_pid, &t->maps, "strcat", &p->strcat_fn, &p->strcat_ifunc))
		p->strcat_fn = 0;
	t->rp = p;
	return 0;
}

void rproc_free(struct target *t)
{
	free(t->rp);
	t->rp = NULL;
}

int rproc_pipe(struct target *t, int flags, long fds[2], long *ret)
{
	int32_t both[2] = { -1, -1 };
	uint64_t a;
	rcall_scratch_reset(t);
	int e = rcall_push(t, both, sizeof(both), &a);
	if (e)
		return e;
	uint64_t args[2] = { a, (uint64_t)(unsigned)flags };
	if ((e = rcall_syscall(t, SYS_pipe2, args, 2, ret)))
		return e;
	if (*ret == 0 && (e = rcall_read(t, a, both, sizeof(both))))
		return e;
	fds[0] = both[0];
	fds[1] = both[1];
	return 0;
}

int rproc_close(struct target *t, long fd, long *ret)
{
	uint64_t a = (uint64_t)fd;
	return rcall_syscall(t, SYS_close, &a, 1, ret);
}

int rproc_seccomp_denied(const struct target *t)
{
	return rcall_seccomp_denied(t);
}

int rproc_has_stats_print(const struct target *t)
{
	return t->rp && t->rp->strcat_fn && t->je.malloc_stats_print;
}

/* A system call in the target with up to six arguments; a -errno the
 * target's kernel answered comes back as *ret and as the return value. */
static int remote_syscall(struct target *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2,
			  uint64_t a3, uint64_t a4, uint64_t a5, long *ret)
{
	uint64_t args[6] = { a0, a1, a2, a3, a4, a5 };
	int e = rcall_syscall(t, nr, args, 6, ret);
	return e ? e : (*ret < 0 && *ret > -4096 ? (int)*ret : 0);
}

/* Read the NUL-terminated text at addr (at most max bytes). */
static int read_text(struct target *t, uint64_t addr, size_t max, char **out)
{
	size_t cap = 0, len = 0;
	char *buf = NULL;
	while (len < max) {
		size_t chunk = 65536;
		if (CORE_GROW(&buf, &cap, len + chunk)) {
			free(buf);
			return -ENOMEM;
		}
		int e = rcall_read(t, addr + len, buf + len, chunk);
		if (e) {
			free(buf);
			return e;
		}
		char *nul = memchr(buf + len, 0, chunk);
		if (nul) {
			*out = buf;
			return 0;
		}
		len += chunk;
	}
	free(buf);
	return -E2BIG;
}

/* Virtual room for the output: MAP_NORESERVE costs nothing until written;
 * hundreds of arenas print a few MB. A PROT_NONE page after it turns an
 * overrun into a fault jeattach catches instead of a write into the
 * neighbouring mapping. */
#define FULL_ROOM (256UL << 20)

/* jemalloc's writers (malloc_stats_print, experimental.prof_recent.alloc_dump)
 * with write_cb NULL write to the target's stderr: not acceptable. The
 * target has no callback of ours, and no code may be written into it, so
 * the callback is libc's strcat: write_cb(cbopaque, s) is strcat(buffer,
 * s), appending into a buffer mapped in the target for the occasion.
 * jemalloc 5.3 hands write_cb 64 KiB chunks (its buf_writer:
 * STATS_PRINT_BUFSIZE, PROF_RECENT_PRINT_BUFSIZE), so strcat's rescans
 * stay cheap. strcat is an IFUNC in glibc: its resolver is called first. */
int rproc_collect(struct target *t, rproc_writer_fn fn, void *arg, size_t max, char **text,
		  int *remote_errno)
{
	*text = NULL;
	*remote_errno = 0;
	if (!t->rp || !t->rp->strcat_fn)
		return -EINVAL;
	uint64_t write_cb = t->rp->strcat_fn;
	int e;
	if (t->rp->strcat_ifunc && (e = rcall(t, t->rp->strcat_fn, NULL, 0, &write_cb)))
		return e;
	long buf = 0, ret;
	e = remote_syscall(t, SYS_mmap, 0, FULL_ROOM + 4096, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, (uint64_t)-1, 0, &buf);
	if (e && e == buf) {
		*remote_errno = (int)-buf;
		return 0;
	}
	if (e)
		return e;
	e = remote_syscall(t, SYS_mprotect, (uint64_t)buf, FULL_ROOM, PROT_READ | PROT_WRITE, 0, 0,
			   0, &ret);
	rcall_scratch_reset(t);
	if (!e)
		e = fn(t, write_cb, (uint64_t)buf, arg);
	if (!e)
		e = read_text(t, (uint64_t)buf, max && max < FULL_ROOM ? max : FULL_ROOM, text);
	int e2 = remote_syscall(t, SYS_munmap, (uint64_t)buf, FULL_ROOM + 4096, 0, 0, 0, 0, &ret);
	if (e || e2) {
		free(*text);
		*text = NULL;
		return e ? e : e2;
	}
	return 0;
}

static int stats_writer(struct target *t, uint64_t write_cb, uint64_t buf, void *arg)
{
	uint64_t a_opts, unused;
	int e = rcall_push_string(t, arg, &a_opts);
	if (e)
		return e;
	uint64_t args[3] = { write_cb, buf, a_opts };
	return rcall(t, t->je.malloc_stats_print, args, 3, &unused);
}

int rproc_stats_print(struct target *t, const char *opts, size_t max, char **text,
		      int *remote_errno)
{
	*text = NULL;
	*remote_errno = 0;
	if (!rproc_has_stats_print(t))
		return -EINVAL;
	return rproc_collect(t, stats_writer, (void *)opts, max, text, remote_errno);
}
