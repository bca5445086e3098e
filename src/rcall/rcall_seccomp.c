/* SPDX-License-Identifier: BSD-2-Clause */
/* The held thread's seccomp filters, and what they answer to a system call
 * before it is made. A filter is per thread (SECCOMP_FILTER_FLAG_TSYNC
 * makes them equal, nothing requires it), so the one read is the held
 * thread's, the one whose code will run. systemd's SystemCallFilter= kills
 * the whole process on a filtered call unless SystemCallErrorNumber= is set:
 * a dump's pipe2 or jemalloc's creat() would be its last. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include "errors.h"
#include "rcall_internal.h"
#include "sec_bpf.h"

/* A filter is at most BPF_MAXINSNS (4096) instructions; a thread may have
 * many (each prctl/seccomp call adds one): bound what is read. */
#define MAX_FILTERS 256

void rcall_seccomp_free(struct rcall_held *h)
{
	for (size_t i = 0; i < h->nfilters; i++)
		free(h->filters[i]);
	free(h->filters);
	free(h->filter_len);
	h->filters = NULL;
	h->filter_len = NULL;
	h->nfilters = 0;
}

/* Seccomp: of /proc/PID/task/TID/status: 0, 1 (strict) or 2 (filter). */
static int seccomp_mode(pid_t pid, pid_t tid)
{
	char *text = target_thread_status(pid, tid);
	if (!text)
		return 2; /* unknown: assume the worst */
	const char *v = target_status_field(text, "Seccomp");
	int mode = v ? atoi(v) : 0;
	free(text);
	return mode;
}

static int read_filters(struct target *t, struct rcall_held *h)
{
	h->sec_mode = seccomp_mode(t->io_pid, h->tid);
	if (h->sec_mode != 2)
		return 0;
	h->filters = calloc(MAX_FILTERS, sizeof(*h->filters));
	h->filter_len = calloc(MAX_FILTERS, sizeof(*h->filter_len));
	if (!h->filters || !h->filter_len)
		return -ENOMEM;
	for (unsigned long i = 0; i < MAX_FILTERS; i++) {
		int n = pt_seccomp_filter(h->tid, i, NULL, 0);
		if (n == -ENOENT)
			return 0; /* past the oldest */
		if (n > BPF_MAXINSNS)
			n = -E2BIG;
		if (n >= 0 && !(h->filters[i] = malloc((size_t)n * sizeof(struct sock_filter))))
			n = -ENOMEM;
		if (n >= 0)
			n = pt_seccomp_filter(h->tid, i, h->filters[i], (size_t)n);
		if (n < 0) {
			target_reason(t, (struct ja_reason){ .kind = JA_WHY_SECCOMP_UNREADABLE,
							     .tid = h->tid, .err = -n });
			return n == -ENOMEM ? n : -JA_ERR_SECCOMP_UNREADABLE;
		}
		h->filter_len[i] = (size_t)n;
		h->nfilters = i + 1;
	}
	target_reason(t, (struct ja_reason){ .kind = JA_WHY_SECCOMP_TOO_MANY, .tid = h->tid,
					     .n = MAX_FILTERS });
	return -JA_ERR_SECCOMP_UNREADABLE;
}

int rcall_seccomp(struct target *t, long nr, const uint64_t args[6], uint32_t *ret)
{
	struct rcall_held *h = t->rc ? t->rc->hold : NULL;
	if (!h)
		return -EINVAL;
	if (!h->sec_state)
		h->sec_state = read_filters(t, h) ?: 1;
	if (h->sec_state < 0)
		return h->sec_state;
	if (h->sec_mode == 1) { /* strict: read, write, exit, sigreturn only */
		*ret = nr == SYS_read || nr == SYS_write || nr == SYS_exit ||
			       nr == ARCH_NR_RT_SIGRETURN
			       ? SECCOMP_RET_ALLOW
			       : SECCOMP_RET_KILL_THREAD;
		return 0;
	}
	struct seccomp_data d = { .nr = (int)nr, .arch = ARCH_AUDIT_ARCH };
	memcpy(d.args, args, sizeof(d.args));
	*ret = SECCOMP_RET_ALLOW;
	for (size_t i = 0; i < h->nfilters; i++)
		*ret = sec_bpf_stronger(*ret, sec_bpf_run(h->filters[i], h->filter_len[i], &d));
	return 0;
}

int rcall_syscall_allowed(struct target *t, long nr, const uint64_t *args, int nargs, long *ret)
{
	uint32_t verdict;
	uint64_t a6[6] = { 0 };
	memcpy(a6, args, sizeof(*args) * (size_t)nargs);
	if (rcall_seccomp(t, nr, a6, &verdict) || verdict != SECCOMP_RET_ALLOW)
		return -JA_ERR_SECCOMP;
	return rcall_syscall(t, nr, args, nargs, ret);
}
