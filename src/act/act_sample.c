/* SPDX-License-Identifier: BSD-2-Clause */
/* --sample --for D --dump FILE: a heap profile from a process that was
 * never set up for one. jemalloc 5.2.0-5.3.x run hooks on every
 * allocation, free and in-place expansion once they are installed with
 * experimental.hooks.install (include/jemalloc/internal/hook.h), with or
 * without profiling built in or enabled. jeattach puts a small sampler
 * there for the window (src/sampler/: the hooks, built freestanding, and
 * the memory they keep), reads what it records while the target runs, and
 * takes it out:
 *
 * - begin (one hold): the hooks' control must answer, and the target's
 *   seccomp filter must allow the two system calls the hooks make; one
 *   mapping is made, the hooks' code is written into it and made read and
 *   execute (never writable and executable), the rest is marked
 *   MADV_WIPEONFORK (a fork child's hooks find zeros and remove
 *   themselves) and page 0 and the code are named for /proc/PID/maps;
 *   the hooks are installed, and switched on.
 * - while the window runs: the ring is read with process_vm_readv, no
 *   thread stopped, and each record's stack is unwound at once with the
 *   target's own unwind tables (rcall_unwind_copy), while the code it
 *   names is still mapped.
 * - end (one hold): switched off, removed (jemalloc's removal does not
 *   wait for threads inside a hook: the gate in page 0 counts them, and
 *   the rest of the mapping is unmapped only once none is inside), the
 *   last records read, and the live set: the sampled objects still
 *   allocated. Page 0 and the code stay (a thread may still be about to
 *   enter the hook jemalloc had read before the removal), a few pages,
 *   named. The profile is written after the release.
 *
 * Everything read back is the target's to forge: indices are taken from
 * jeattach's own layout, lengths are bounded, records that do not check
 * out are counted and left out. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/prctl.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "act.h"
#include "act_sample.h"
#include "act_stamp.h"
#include "core_read.h"
#include "core_stamp.h"
#include "errors.h"
#include "rcall.h"
#include "rctl.h"
#include "sampler_abi.h"
#include "sampler_arch.h"
#include "sampler_blob.h"
#include "sampler_layout.h"
#include "sampler_profile.h"
#include "sym.h"
#include "target_limits.h"

/* What the target's memory cgroup must still take beyond the mapping:
 * its pages are charged as the hooks first touch them, inside the
 * target's own allocations. */
#define SAMPLE_MEM_MARGIN (4ULL << 20)
/* How long the end's hold waits for threads inside a hook to leave. */
#define SAMPLE_GATE_US 200000
#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#define PR_SET_VMA_ANON_NAME 0
#endif

struct sampled {
	uint64_t seq, ptr;
	int live; /* found in the live set at the end */
	struct sampler_sample s;
};

struct act_sampler {
	struct sampler_layout l;
	uint64_t base, handle, mean;
	int reused;         /* page 0 and the code an earlier run left */
	int64_t window_end_ns;  /* CLOCK_MONOTONIC, ours, when the window ends */
	int64_t deadline_slack; /* the hooks' deadline past the window's end (ns) */
	uint64_t tail;      /* records read */
	struct sampled *got;
	size_t ngot, cap;
	uint64_t forged;    /* records that did not check out */
	uint64_t unwound_none; /* records with no frame */
};

static const char hooks_install[] = "experimental.hooks.install";
static const char hooks_remove[] = "experimental.hooks.remove";

/* The target's CLOCK_MONOTONIC minus ours: 0 unless it lives in another
 * time namespace (/proc/PID/timens_offsets, Linux 5.6). */
static int64_t monotonic_offset(pid_t pid)
{
	char path[64], *text = NULL;
	size_t len;
	snprintf(path, sizeof(path), "/proc/%d/timens_offsets", (int)pid);
	if (core_read_file(path, 4096, &text, &len))
		return 0;
	int64_t off = 0;
	for (char *line = text; line && *line;) {
		long long sec, nsec;
		char name[32];
		if (sscanf(line, "%31s %lld %lld", name, &sec, &nsec) == 3 &&
		    (!strcmp(name, "monotonic") || !strcmp(name, "1")))
			off = sec * 1000000000LL + nsec;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	free(text);
	return off;
}

/* The hooks' two system calls must be allowed as they make them: a
 * filter that kills on one would kill the target from inside a malloc. */
/* Seccomp filters are each thread's own, and the hooks run in every
 * thread, while only the held thread's filter can be read: every thread
 * must show the same "Seccomp:" and "Seccomp_filters:" lines
 * (/proc/PID/task/TID/status), else the filter read is not theirs. */
static int same_filters(struct target *t)
{
	char path[96], *text = NULL, want[160] = "", got[160];
	static pid_t tids[4096];
	pid_t pid = target_io_pid(t);
	int n = target_threads(target_pid(t), tids, 4096), seen = 0;
	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)pid, (int)tids[i]);
		if (core_read_file(path, 1 << 16, &text, NULL))
			continue; /* gone meanwhile */
		got[0] = 0;
		for (const char *l = text; l && *l;) {
			if (!strncmp(l, "Seccomp", 7)) {
				size_t k = strcspn(l, "\n"), g = strlen(got);
				snprintf(got + g, sizeof(got) - g, "%.*s;", (int)(k < 70 ? k : 70), l);
			}
			l = strchr(l, '\n');
			l = l ? l + 1 : NULL;
		}
		free(text);
		if (!seen++)
			snprintf(want, sizeof(want), "%s", got);
		else if (strcmp(want, got))
			return 0;
	}
	return seen > 0;
}

/* Before the hold: one read of /proc per thread, which with a thousand
 * threads would lengthen the stop by as many. The held thread is one of
 * them. */
void act_sample_before(struct target *t, struct act_result *r)
{
	act_field_bool(r, "seccomp_same_in_threads", same_filters(t));
}

static enum ja_exit check_seccomp(struct target *t, struct act_result *r, const char *doing)
{
	const struct rctl_value *same = act_field_find(r, "seccomp_same_in_threads");
	if (!same || !same->u)
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: the process's threads do not all have the same seccomp "
				"filters, and jeattach can read only the held thread's, while the "
				"sampler's hooks run in every thread; restart the process with "
				"MALLOC_CONF=prof:true and use --for DURATION --dump FILE",
				doing);
	static const struct {
		long nr;
		const char *name;
	} calls[] = { { SYS_process_vm_readv, "process_vm_readv" },
		      { SYS_clock_gettime, "clock_gettime" },
		      /* And jeattach's own, made in the held thread: one
		       * refused would leave the sampler half made, or its
		       * megabytes behind. */
		      { SYS_mmap, "mmap" },
		      { SYS_mprotect, "mprotect" },
		      { SYS_madvise, "madvise" },
		      { SYS_munmap, "munmap" } };
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		uint64_t args[6] = { (uint64_t)target_pid(t), 0, 1, 0, 1, 0 };
		if (calls[i].nr == SYS_clock_gettime)
			args[0] = CLOCK_MONOTONIC;
		uint32_t ret = 0;
		int e = rcall_seccomp(t, calls[i].nr, args, &ret);
		if (e == -JA_ERR_SECCOMP_UNREADABLE)
			return act_fail(r, JA_EXIT_UNSAFE,
					"%s: the process has a seccomp filter jeattach cannot read (it "
					"needs CAP_SYS_ADMIN), and the sampler's hooks call %s: run "
					"jeattach as root, or restart the process with "
					"MALLOC_CONF=prof:true and use --for DURATION --dump FILE",
					doing, calls[i].name);
		if (e)
			return act_transport_error(t, r, doing, e);
		if ((ret & SECCOMP_RET_ACTION_FULL) != SECCOMP_RET_ALLOW)
			return act_fail(r, JA_EXIT_UNSAFE,
					"%s: the process's seccomp filter does not allow %s, which "
					"the sampler needs; restart it with MALLOC_CONF=prof:true "
					"and use --for DURATION --dump FILE",
					doing, calls[i].name);
	}
	return JA_EXIT_OK;
}

/* The mapping is charged to the target's memory cgroup page by page as
 * the hooks touch it: refused where that could be the charge that tips
 * the process over its limit. */
static enum ja_exit check_room(struct target *t, const struct act_sampler *sm,
			       struct act_result *r, const char *doing)
{
	struct target_limits l;
	target_limits_read(rcall_held_tid(t) ? rcall_held_tid(t) : target_io_pid(t), &l);
	if (l.mem_headroom < sm->l.total + SAMPLE_MEM_MARGIN)
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: the process's memory cgroup can take only %llu more bytes "
				"(%s), and the sampler needs %llu KiB in it; raise that limit or "
				"let the process free memory first",
				doing, (unsigned long long)l.mem_headroom, l.mem_file,
				(unsigned long long)((sm->l.total + SAMPLE_MEM_MARGIN) >> 10));
	return JA_EXIT_OK;
}

static int sys(struct target *t, long nr, uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3,
	       uint64_t a4, uint64_t a5, long *ret)
{
	uint64_t args[6] = { a0, a1, a2, a3, a4, a5 };
	return rcall_syscall(t, nr, args, 6, ret);
}

/* Unmap the rest: the part no hook can reach once the gate is shut. */
static int unmap_rest(struct target *t, const struct act_sampler *sm)
{
	long ret;
	int e = sys(t, SYS_munmap, sm->base + sm->l.ctl_off, sm->l.rest_len, 0, 0, 0, 0, &ret);
	return e ? e : (int)(ret < 0 ? ret : 0);
}

/* The mapping made, written and protected: 0, or the exit code in r. With
 * reuse, the kept pages (page 0 and the code, this jeattach's) an earlier
 * run left there: only the rest is made, apart. */
static enum ja_exit lay_out(struct target *t, struct act_sampler *sm, const char *doing,
			    const struct act *a, uint64_t reuse, struct act_result *r)
{
	struct sampler_layout *l = &sm->l;
	long ret;
	int e = sys(t, SYS_mmap, 0, reuse ? l->rest_len : l->total, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, (uint64_t)-1, 0, &ret);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (ret < 0 && ret > -4096)
		return act_syscall_failed(t, r, doing, "mmap", (int)-ret);
	sm->base = reuse ? reuse : (uint64_t)ret;
	sm->reused = reuse != 0;
	if (reuse)
		sampler_layout_move_rest(l, (uint64_t)ret - (reuse + l->ctl_off));
	struct sampler_keep keep;
	struct sampler_ctl ctl;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t deadline = now.tv_sec * 1000000000LL + now.tv_nsec + (a->us + a->grace_us) * 1000 +
			   monotonic_offset(target_pid(t));
	uint64_t seed = (uint64_t)now.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	sampler_layout_keep(l, &keep, target_jemalloc(t)->mallctl);
	/* The hooks' process_vm_readv names the process as it knows itself:
	 * its pid in its own pid namespace. */
	sampler_layout_ctl(l, &ctl, target_get_info(t)->ns_pid ? target_get_info(t)->ns_pid :
								 target_pid(t),
			   sm->mean, seed, deadline);
	sm->window_end_ns = now.tv_sec * 1000000000LL + now.tv_nsec + a->us * 1000;
	sm->deadline_slack = deadline - sm->window_end_ns; /* --timeout, margin, namespace */
	const char *call = NULL;
	/* Reused, page 0 keeps its gate's counts (a thread may be inside
	 * the old hooks' code still) and the code is the same bytes. */
	if ((e = rcall_write(t, sm->base, &keep,
			     reuse ? offsetof(struct sampler_keep, busy) : sizeof(keep))) ||
	    (e = rcall_write(t, sm->base + l->ctl_off, &ctl, sizeof(ctl))) ||
	    (!reuse && (e = rcall_write(t, sm->base + l->code_off, sampler_blob, sampler_blob_len))))
		goto fail;
	if (!reuse && (e = sys(t, SYS_mprotect, sm->base + l->code_off, l->code_len,
			       PROT_READ | PROT_EXEC, 0, 0, 0, &ret)))
		goto fail;
	if (!reuse && ret) {
		call = "mprotect";
		goto fail;
	}
	if ((e = sys(t, SYS_madvise, sm->base + l->ctl_off, l->rest_len, MADV_WIPEONFORK,
		     0, 0, 0, &ret)))
		goto fail;
	if (ret) {
		call = "madvise(MADV_WIPEONFORK)";
		goto fail;
	}
	/* Named where the kernel can (5.17, CONFIG_ANON_VMA_NAME): what
	 * stays is then "[anon:jeattach-sampler]" in the target's maps. */
	uint64_t name;
	rcall_scratch_reset(t);
	if (!reuse && !rcall_push_string(t, "jeattach-sampler", &name))
		(void)sys(t, SYS_prctl, PR_SET_VMA, PR_SET_VMA_ANON_NAME, sm->base, l->keep_len, name, 0,
			  &ret);
	return JA_EXIT_OK;
fail:;
	long r2;
	/* Nothing installed yet: all of what was made goes (the kept pages
	 * reused stay, as the earlier run left them). */
	if (reuse)
		(void)sys(t, SYS_munmap, sm->base + l->ctl_off, l->rest_len, 0, 0, 0, 0, &r2);
	else
		(void)sys(t, SYS_munmap, sm->base, l->total, 0, 0, 0, 0, &r2);
	sm->base = 0;
	if (call)
		return act_syscall_failed(t, r, doing, call, (int)-ret);
	return act_transport_error(t, r, doing, e);
}

/* The hooks' install and removal left every other thread's tsd in the
 * "recompute" state (act.h pass_settle): each thread is borrowed once
 * after this hold, to make one mallctl of its own. */
static void settle(struct target *t, struct act_session *s)
{
	s->pass_settle = 1;
	if (s->counters.state == 0)
		act_counters_learn(t, &s->counters);
}

enum ja_exit act_sample_begin(struct target *t, struct act_session *s, const struct act *a,
			      struct act_result *r)
{
	const char *doing = "cannot start the sampler";
	if (s->sampler)
		return act_fail(r, JA_EXIT_INTERNAL, "%s: one is running already", doing);
	int exists = 0, merr = 0;
	int e = rctl_probe(t, hooks_install, &exists);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (!exists)
		return act_fail(r, JA_EXIT_MALLCTL,
				"%s: this jemalloc has no %s (5.2.0 to 5.3.x have it); restart the "
				"process with MALLOC_CONF=prof:true and use --for DURATION --dump FILE",
				doing, hooks_install);
	uint64_t reuse = 0;
	enum ja_exit c = check_seccomp(t, r, doing);
	if (!c)
		c = act_sample_left(t, s, r, &reuse);
	if (c)
		return c;
	struct act_sampler *sm = calloc(1, sizeof(*sm));
	if (!sm)
		return act_fail(r, JA_EXIT_INTERNAL, "%s: out of memory", doing);
	sm->mean = a->n > 0 ? (uint64_t)a->n : 524288;
	if (sampler_layout_plan(&sm->l, (size_t)sysconf(_SC_PAGESIZE), sampler_blob_len,
				SAMPLE_THREADS, SAMPLE_LIVE, SAMPLE_RECS)) {
		free(sm);
		return act_fail(r, JA_EXIT_INTERNAL, "%s: no layout for the sampler", doing);
	}
	if ((c = check_room(t, sm, r, doing)) || (c = lay_out(t, sm, doing, a, reuse, r))) {
		free(sm);
		return c;
	}
	/* A thread stopped inside a hook is inside jemalloc's call: never a
	 * safe point (rcall_safepoint.c), though the hooks have no unwind
	 * tables of their own to show it. */
	if (target_add_unsafe(t, sm->base + sm->l.code_off, sm->base + sm->l.code_off + sm->l.code_len)) {
		free(sm);
		return act_fail(r, JA_EXIT_INTERNAL, "%s: out of memory", doing);
	}
	/* One call in the target's own code installs the hooks, stores
	 * their handle and switches them on: a jeattach that dies meanwhile
	 * cannot leave hooks installed that page 0 does not know of. */
	uint64_t hooks[4], args[2] = { sm->base, 0 }, ret = 0;
	sampler_layout_hooks(&sm->l, sm->base, hooks);
	rcall_scratch_reset(t);
	e = rcall_push(t, hooks, sizeof(hooks), &args[1]);
	if (!e)
		e = rcall(t, sm->base + sm->l.code_off + sampler_blob_install, args, 2, &ret);
	merr = (int)ret;
	if (!e && !merr)
		e = rcall_read(t, sm->base + offsetof(struct sampler_keep, handle), &sm->handle, 8);
	if (e) {
		/* The call's outcome is not known (it may still run, or have
		 * installed the hooks): nothing is unmapped. The next run
		 * reads page 0 and knows (act_sample_left.c). */
		act_field_u64(r, "left_at", sm->base);
		free(sm);
		return act_transport_error(t, r, doing, e);
	}
	if (merr || !sm->handle) {
		long r2;
		/* Not installed (mallctl's error, or jemalloc's four slots
		 * are taken: EAGAIN): nothing of this run can run the code,
		 * all of it goes (kept pages reused stay, as they were left). */
		if (sm->reused)
			(void)sys(t, SYS_munmap, sm->base + sm->l.ctl_off, sm->l.rest_len, 0, 0, 0, 0,
				  &r2);
		else
			(void)sys(t, SYS_munmap, sm->base, sm->l.total, 0, 0, 0, 0, &r2);
		free(sm);
		if (merr == EAGAIN)
			return act_fail(r, JA_EXIT_MALLCTL,
					"%s: jemalloc's hook slots are all taken (it has four); "
					"another tool has hooks in this process", doing);
		return act_mallctl_error(t, r, doing, hooks_install, merr ? merr : EINVAL);
	}
	s->sampler = sm;
	settle(t, s);
	act_field_u64(r, "sample_rate", sm->mean);
	act_field_u64(r, "mapping", sm->base);
	act_field_u64(r, "mapping_bytes", sm->reused ? sm->l.rest_len : sm->l.total);
	act_field_bool(r, "reused_kept_pages", sm->reused);
	return JA_EXIT_OK;
}

static int add(struct act_sampler *sm, const struct sampled *x)
{
	if (sm->ngot == sm->cap) {
		size_t cap = sm->cap ? sm->cap * 2 : 256;
		struct sampled *v = realloc(sm->got, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		sm->got = v;
		sm->cap = cap;
	}
	sm->got[sm->ngot++] = *x;
	return 0;
}

/* Read every committed record after the last read, unwind each, and let
 * the hooks reuse their slots. No thread is stopped. */
static int drain(struct target *t, struct act_sampler *sm)
{
	const struct sampler_layout *l = &sm->l;
	uint64_t head;
	int e = rcall_read(t, sm->base + l->ctl_off + offsetof(struct sampler_ctl, head), &head, 8);
	if (e)
		return e;
	/* The target's word: never more than a ring's worth ahead. */
	if (head < sm->tail || head - sm->tail > l->nrecs)
		head = sm->tail + l->nrecs;
	static struct sampler_rec rec; /* 16 KiB: not on the stack */
	static struct sampled x;
	for (; sm->tail < head; sm->tail++) {
		uint64_t at = sm->base + l->recs_off + (sm->tail & (l->nrecs - 1)) * sizeof(rec);
		/* seq first, then the rest: a record is whole once its seq
		 * says so (stored last, with release, by the hook). */
		if ((e = rcall_read(t, at, &rec.seq, 8)))
			return e;
		if (rec.seq != sm->tail + 1)
			break; /* reserved, not written yet: the next read takes it */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if ((e = rcall_read(t, at, &rec, offsetof(struct sampler_rec, stack))))
			return e;
		size_t len = rec.stack_len <= SAMPLER_STACK_MAX ? rec.stack_len : 0;
		if (len && (e = rcall_read(t, at + offsetof(struct sampler_rec, stack), rec.stack, len)))
			return e;
		if (rec.usize > (1ULL << 42) || rec.usize < rec.size) {
			sm->forged++;
			continue;
		}
		/* No stack copied: an unwind would read the target's stack as
		 * it is now, not as it was. Left out (counted in no_stack). */
		if (!len || (rec.flags & SAMPLER_REC_NOSTACK))
			continue;
		arch_gpregs_t regs;
		arch_regs_from_sample(&regs, rec.regs);
		memset(&x, 0, sizeof(x));
		x.seq = rec.seq;
		x.ptr = rec.ptr;
		x.s.usize = rec.usize;
		x.s.nframes = rcall_unwind_copy(t, &regs, rec.regs[SAMPLER_REG_SP], rec.stack, len,
						x.s.ips, SAMPLER_MAX_FRAMES);
		if (x.s.nframes <= 0) {
			sm->unwound_none++;
			continue;
		}
		if ((e = add(sm, &x)))
			return e;
	}
	/* The slots are read before the hooks may reuse them. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	return rcall_write(t, sm->base + l->ctl_off + offsetof(struct sampler_ctl, tail), &sm->tail,
			   8);
}

void act_sample_tick(struct target *t, struct act_session *s)
{
	struct act_sampler *sm = s->sampler;
	char fate[300];
	if (!sm)
		return;
	/* Another program now (execve), or gone: its memory is not the
	 * sampler's any more, and nothing is written there. */
	if (target_fate(t, fate, sizeof(fate)) != TARGET_AS_WAS) {
		s->sampler = NULL;
		free(sm->got);
		free(sm);
		return;
	}
	(void)drain(t, sm);
	/* The deadline moves on while jeattach reads the ring: it passes
	 * only when jeattach stops coming (it died), whatever the holds and
	 * passes before cost. */
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t n = now.tv_sec * 1000000000LL + now.tv_nsec,
		d = (n > sm->window_end_ns ? n : sm->window_end_ns) + sm->deadline_slack;
	(void)rcall_write(t, sm->base + sm->l.ctl_off + offsetof(struct sampler_ctl, deadline_ns), &d,
			  8);
}

static int by_seq(const void *a, const void *b)
{
	const struct sampled *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The sampled objects still allocated: the live set's entries whose
 * record was read, matched by sequence number and address. */
static size_t keep_live(struct target *t, struct act_sampler *sm, struct act_result *r)
{
	size_t n = (size_t)sm->l.nlive;
	struct sampler_live *live = malloc(n * sizeof(*live));
	if (!live || rcall_read(t, sm->base + sm->l.live_off, live, n * sizeof(*live))) {
		free(live);
		return 0;
	}
	if (sm->ngot) /* qsort and bsearch take no NULL, even for none */
		qsort(sm->got, sm->ngot, sizeof(*sm->got), by_seq);
	for (size_t i = 0; i < sm->ngot; i++)
		sm->got[i].live = 0; /* a snapshot before this one marked its own */
	size_t kept = 0;
	for (size_t i = 0; i < n; i++) {
		if (live[i].ptr <= 1)
			continue;
		struct sampled key = { .seq = live[i].rec };
		struct sampled *g =
			sm->ngot ? bsearch(&key, sm->got, sm->ngot, sizeof(*sm->got), by_seq) : NULL;
		if (!g || g->live || g->ptr != live[i].ptr)
			continue; /* a forged or repeated entry counts nothing */
		/* An in-place expansion changed its size: the bytes it holds
		 * now (a class of the same law). */
		if (live[i].usize >= g->s.usize && live[i].usize < (1ULL << 42))
			g->s.usize = live[i].usize;
		g->live = 1;
		kept++;
	}
	free(live);
	struct sampler_sample *v = malloc((kept ? kept : 1) * sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; v && i < sm->ngot; i++)
		if (sm->got[i].live)
			v[k++] = sm->got[i].s;
	r->out.sample.v = v;
	r->out.sample.n = v ? k : 0;
	r->out.sample.mean = sm->mean;
	return k;
}

enum ja_exit act_sample_end(struct target *t, struct act_session *s, struct act_result *r)
{
	const char *doing = "cannot take the sampler out";
	struct act_sampler *sm = s->sampler;
	if (!sm)
		return act_fail(r, JA_EXIT_INTERNAL, "%s: none is running", doing);
	int merr = 0;
	/* One call in the held thread, in the hooks' own code: off (the
	 * gate's store, sampler_abi.h), the once-only flag taken, removed,
	 * and page 0 marked removed; a jeattach that dies meanwhile leaves
	 * it done, or known undone. */
	uint64_t ret = 0, arg = sm->base;
	int e = rcall(t, sm->base + sm->l.code_off + sampler_blob_remove, &arg, 1, &ret);
	if (!e && ret == SAMPLER_NOT_CLAIMED)
		act_field_str(r, "hooks", "their removal was begun by another jeattach");
	else if (!e)
		merr = (int)ret;
	if (!e && !merr)
		settle(t, s);
	if (e || merr) {
		/* Off (if the claim ran), still installed: each hook returns
		 * at once; left mapped, all of it. */
		s->sampler = NULL;
		free(sm->got);
		free(sm);
		if (e)
			return act_transport_error(t, r, doing, e);
		return act_mallctl_error(t, r, doing, hooks_remove, merr);
	}
	int clear = 0;
	for (int waited = 0; waited < SAMPLE_GATE_US; waited += 1000) {
		if ((clear = act_sample_gate_shut(t, sm->base)))
			break;
		usleep(1000);
	}
	e = drain(t, sm);
	struct sampler_ctl ctl;
	if (!e)
		e = rcall_read(t, sm->base + sm->l.ctl_off, &ctl, sizeof(ctl));
	size_t live = e ? 0 : keep_live(t, sm, r);
	uint64_t left = sm->l.keep_len;
	if (!clear || unmap_rest(t, sm))
		left += sm->l.rest_len;
	if (!e) {
		act_field_u64(r, "samples", ctl.taken);
		act_field_u64(r, "dropped_ring_full", ctl.dropped_ring);
		act_field_u64(r, "dropped_set_full", ctl.dropped_live);
		act_field_u64(r, "dropped_threads", ctl.dropped_threads);
		act_field_u64(r, "no_stack", ctl.nostack);
		act_field_u64(r, "expired", ctl.expired);
		/* The hooks found jeattach late and switched themselves off:
		 * frees after that were not seen. */
		if (ctl.expired)
			snprintf(r->warning, sizeof(r->warning),
				 "the sampler switched itself off before the window ended (jeattach "
				 "was late by more than --timeout and 10 s): objects freed after "
				 "that may show as live");
		/* The ring filled between two reads: the profile lacks those
		 * samples and reads low by about their share. */
		else if (ctl.dropped_ring)
			snprintf(r->warning, sizeof(r->warning),
				 "%llu of %llu samples were dropped (the process allocated faster "
				 "than jeattach read the sampler's ring): the profile reads low by "
				 "about that share; a larger --sample-rate takes fewer",
				 (unsigned long long)ctl.dropped_ring,
				 (unsigned long long)(ctl.taken + ctl.dropped_ring));
		act_field_u64(r, "not_unwound", sm->unwound_none);
		act_field_u64(r, "refused", sm->forged);
		act_field_u64(r, "live", live);
	}
	act_field_u64(r, "left_in_target_bytes", left);
	act_field_u64(r, "left_at", sm->base);
	s->sampler = NULL;
	free(sm->got);
	free(sm);
	if (e)
		return act_transport_error(t, r, doing, e);
	return JA_EXIT_OK;
}

/* --sample --every: the sampled objects allocated since the sampler went
 * in and live now, with no thread stopped: the ring and the live set read
 * while the hooks run. An entry being written as it is read is one a
 * record's address does not match: left out of this snapshot. */
enum ja_exit act_sample_snapshot(struct target *t, struct act_session *s, struct act_result *r)
{
	struct act_sampler *sm = s->sampler;
	if (!sm)
		return act_fail(r, JA_EXIT_INTERNAL, "cannot take a snapshot: no sampler is in");
	int e = drain(t, sm);
	if (e)
		return act_transport_error(t, r, "cannot read the sampler", e);
	act_field_u64(r, "live", keep_live(t, sm, r));
	return JA_EXIT_OK;
}

/* The profile, the target's maps, jeattach's stamps and the sampler's
 * mark, as a prof.dump's file with jeattach's stamps. */
struct profile_job {
	struct target *t;
	struct act_sample_out *so;
};

static int write_profile(FILE *out, int fd, void *arg)
{
	struct profile_job *j = arg;
	char path[64], *maps = NULL;
	size_t mlen = 0;
	int mapped = 0;
	int e = sampler_profile_write(out, j->so->v, j->so->n, j->so->mean);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)target_pid(j->t));
	if (!e && !core_read_file(path, 64 << 20, &maps, &mlen)) {
		fprintf(out, "\nMAPPED_LIBRARIES:\n%s", maps);
		mapped = 1;
	}
	free(maps);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (!e && fflush(out))
		e = -errno;
	if (!e)
		e = act_stamp(j->t, fd, &now);
	/* Marked as the sampler's, inside the block a reader believes
	 * (core_stamp.h): jeheap tells its empties apart. */
	if (!e && mapped)
		e = core_write_all(fd, CORE_STAMP_SOURCE "sampler\n",
				   sizeof(CORE_STAMP_SOURCE "sampler\n") - 1);
	return e;
}

/* After the release: the profile to the --dump file. */
enum ja_exit act_sample_finish(struct target *t, const struct act *a, struct act_result *r)
{
	char file[4200];
	if (!a->arg)
		return act_fail(r, JA_EXIT_USAGE, "--sample needs --dump FILE");
	if (act_expand_pattern(a->arg, target_pid(t), a->seq, file, sizeof(file)))
		return act_fail(r, JA_EXIT_USAGE, "bad file pattern %s: %%p, %%t and %%%% are known",
				a->arg);
	struct profile_job job = { t, &r->out.sample };
	return act_write_file(r, file, a->force, "the profile", write_profile, &job);
}
