/* SPDX-License-Identifier: BSD-2-Clause */
/* The sampler's hooks, as they run inside the target: jemalloc calls them
 * for every allocation, free and in-place expansion once jeattach has
 * installed them with experimental.hooks.install (jemalloc 5.2.0-5.3.x,
 * include/jemalloc/internal/hook.h). Freestanding: no libc, no lock that
 * can block, no allocation, nothing that is not async-signal-safe; the two
 * system calls it makes (process_vm_readv on its own process, for a stack
 * copy that cannot fault, and clock_gettime for the deadline) are checked
 * against the target's seccomp filter by jeattach before it installs them.
 * Built position-independent with no relocation (its only data is the
 * mapping `extra` points to) and copied into the target as bytes
 * (sampler_blob.c, made at build time).
 *
 * What it does, per thread: counts bytes down from an exponentially
 * drawn interval (mean ctl->mean, as jemalloc's own prof_sample_next: a
 * sample is a Poisson process over bytes), and at zero records the sample
 * (registers, a copy of the stack, the object) in the ring and the object
 * in the live set; a free of a sampled object takes it out of the set. */
#include <stddef.h>
#include <stdint.h>
#include "sampler_abi.h"
#include "sampler_arch.h"
#include "sampler_hooks.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* jemalloc's hook types (hook.h): the alloc kinds whose arguments hold
 * the size differently. */
enum { A_MALLOC, A_POSIX_MEMALIGN, A_ALIGNED_ALLOC, A_CALLOC, A_MEMALIGN, A_VALLOC, A_MALLOCX,
       A_REALLOC, A_RALLOCX };

struct iov {
	uint64_t base, len;
};
struct ts {
	int64_t sec, nsec;
};

static inline struct sampler_ctl *ctl_of(struct sampler_keep *k)
{
	return (struct sampler_ctl *)(void *)((char *)k + k->ctl_off);
}

/* The gate (sampler_abi.h): counted in before on is read. A slot is
 * shared by the threads that hash to it; the counts only need to be 0
 * when no thread is inside. */
static inline uint64_t *gate_slot(struct sampler_keep *k, uint64_t tp)
{
	return &k->busy[((tp >> 6) * 0x9e3779b97f4a7c15ULL) >> 56];
}

static inline int gate_in(struct sampler_keep *k, uint64_t *slot)
{
	__atomic_fetch_add(slot, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&k->on, __ATOMIC_SEQ_CST))
		return 1;
	__atomic_fetch_sub(slot, 1, __ATOMIC_RELEASE);
	return 0;
}

static inline void gate_out(uint64_t *slot)
{
	__atomic_fetch_sub(slot, 1, __ATOMIC_RELEASE);
}

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);

/* Remove the hooks, once (the flag goes 0 -> 1 -> 2): 0 removed now,
 * SAMPLER_NOT_CLAIMED when a removal was made or begun already, else
 * mallctl's error (the flag then stays 1: installed, off, and known to
 * be). A second experimental.hooks.remove of one handle would free the
 * slot again, maybe under another tool's hook. */
static uint64_t remove_once(struct sampler_keep *k)
{
	uint32_t no = 0;
	__atomic_store_n(&k->on, 0, __ATOMIC_SEQ_CST);
	if (!__atomic_compare_exchange_n(&k->removing, &no, 1, 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return SAMPLER_NOT_CLAIMED;
	mallctl_fn mallctl = (mallctl_fn)(uintptr_t)k->mallctl;
	uint64_t handle = k->handle;
	__atomic_store_n(&k->in_call, 1, __ATOMIC_SEQ_CST);
	int e = mallctl(k->remove_name, NULL, NULL, &handle, sizeof(handle));
	__atomic_store_n(&k->in_call, 0, __ATOMIC_SEQ_CST);
	if (!e)
		__atomic_store_n(&k->removing, 2, __ATOMIC_SEQ_CST);
	return (uint64_t)(uint32_t)e;
}

/* Take the hooks out from inside one, in a fork child (its copy of the
 * sampler's memory reads zeros, MADV_WIPEONFORK). Safe there, where it is
 * not in the parent: the child has one thread, and jemalloc's fork
 * handler left only its tsd in the list of threads (tsd_postfork_child),
 * so the removal's recompute reaches no thread but this one, which is
 * inside an allocator call and settles at its next. Hooks may call the
 * allocator's functions (hook.h "Reentrancy": they are not invoked
 * again), and hook_remove takes only the hooks' own mutex. */
static void remove_self(struct sampler_keep *k)
{
	/* Forked during the install or a removal: the hook mutex may be
	 * held by a thread this child does not have; the hooks stay, off. */
	if (k->handle && !__atomic_load_n(&k->in_call, __ATOMIC_SEQ_CST))
		(void)remove_once(k);
}

/* Install and removal as jeattach calls them, each one injected call
 * made in the target: a call ends even if jeattach dies during it (the
 * crash-safe calls end in rt_sigreturn), so a page 0 never shows hooks
 * installed without their handle, nor removed without saying so.
 * hooks: the hooks_t in the target's memory (alloc, dalloc, expand,
 * extra). 0, or mallctl's error. */
HIDDEN uint64_t sampler_install(struct sampler_keep *k, void *hooks)
{
	mallctl_fn mallctl = (mallctl_fn)(uintptr_t)k->mallctl;
	uint64_t handle = 0;
	size_t len = sizeof(handle);
	__atomic_store_n(&k->in_call, 1, __ATOMIC_SEQ_CST);
	int e = mallctl(k->install_name, &handle, &len, hooks, 4 * sizeof(uint64_t));
	if (!e && handle)
		k->handle = handle;
	__atomic_store_n(&k->in_call, 0, __ATOMIC_SEQ_CST);
	if (e)
		return (uint64_t)(uint32_t)e;
	if (!handle)
		return 11; /* EAGAIN: no slot, as hook_install says it */
	__atomic_store_n(&k->on, 1, __ATOMIC_SEQ_CST);
	return 0;
}

HIDDEN uint64_t sampler_remove(struct sampler_keep *k)
{
	return remove_once(k);
}

/* jemalloc's size classes (src/sc.c with LG_QUANTUM 4, the x86_64 and
 * aarch64 default, and SC_LG_NGROUP 2: four classes per doubling): the
 * bytes an allocation of n holds, as sz_s2u computes them. */
HIDDEN uint64_t sampler_usize(uint64_t n)
{
	if (n <= 8)
		return 8;
	if (n <= 16)
		return 16;
	unsigned x = 64 - (unsigned)__builtin_clzll((n << 1) - 1); /* ceil(log2 n) + 1 */
	unsigned lg_delta = x - 1 < 7 ? 4 : x - 1 - 3;
	uint64_t mask = ((uint64_t)1 << lg_delta) - 1;
	return (n + mask) & ~mask;
}

/* ln(u) for u in (0, 1], without libm: u = m * 2^e with m in [1, 2), and
 * ln m = 2 atanh((m - 1)/(m + 1)) by its series (|s| <= 1/3: five terms
 * leave an error below 1e-6, far inside the sampling's own noise). */
static double ln(double u)
{
	union {
		double d;
		uint64_t b;
	} v = { u };
	int e = (int)((v.b >> 52) & 0x7ff) - 1023;
	v.b = (v.b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
	double s = (v.d - 1) / (v.d + 1), s2 = s * s;
	double series = s * (1 + s2 * (1.0 / 3 + s2 * (1.0 / 5 + s2 * (1.0 / 7 + s2 / 9))));
	return 2 * series + e * 0.69314718055994530942;
}

/* The bytes until the next sample: -ln(U) * mean, U uniform in (0, 1]
 * from xorshift64* (Vigna), seeded per thread. */
HIDDEN int64_t sampler_interval(uint64_t *rng, uint64_t mean)
{
	uint64_t x = *rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*rng = x;
	uint64_t r = x * 0x2545f4914f6cdd1dULL;
	double u = (double)((r >> 11) + 1) * (1.0 / 9007199254740992.0);
	double b = -ln(u) * (double)mean;
	return b < 1 ? 1 : b > 9.0e18 ? (int64_t)9.0e18 : (int64_t)b;
}

/* This thread's entry, claimed on its first allocation; NULL when the
 * table has no room near its hash (counted: its allocations go unsampled). */
static struct sampler_thread *thread_of(struct sampler_keep *k, struct sampler_ctl *c, uint64_t tp)
{
	struct sampler_thread *t = (struct sampler_thread *)(void *)((char *)k + c->threads_off);
	uint32_t mask = c->nthreads - 1, h = (uint32_t)(((tp >> 6) * 0x9e3779b97f4a7c15ULL) >> 32);
	for (uint32_t i = 0; i < SAMPLER_PROBES; i++) {
		struct sampler_thread *e = &t[(h + i) & mask];
		uint64_t cur = __atomic_load_n(&e->tp, __ATOMIC_ACQUIRE);
		if (cur == tp)
			return e;
		if (cur)
			continue;
		uint64_t zero = 0;
		if (__atomic_compare_exchange_n(&e->tp, &zero, tp, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			e->rng = (c->seed ^ tp) | 1;
			e->left = sampler_interval(&e->rng, c->mean);
			return e;
		}
		if (zero == tp)
			return e;
	}
	__atomic_fetch_add(&c->dropped_threads, 1, __ATOMIC_RELAXED);
	return NULL;
}

static inline uint32_t live_hash(uint64_t p, uint32_t mask)
{
	return (uint32_t)(((p >> 4) * 0x9e3779b97f4a7c15ULL) >> 32) & mask;
}

/* Put p in the live set: 0, or -1 when no slot near its hash is free. */
static int live_add(struct sampler_keep *k, struct sampler_ctl *c, uint64_t p, uint64_t rec,
		    uint64_t usize)
{
	struct sampler_live *l = (struct sampler_live *)(void *)((char *)k + c->live_off);
	uint32_t mask = c->nlive - 1, h = live_hash(p, mask);
	for (uint32_t i = 0; i < SAMPLER_PROBES; i++) {
		struct sampler_live *e = &l[(h + i) & mask];
		uint64_t cur = __atomic_load_n(&e->ptr, __ATOMIC_RELAXED);
		if (cur > 1)
			continue;
		/* The slot's fields first, then the address that makes it
		 * found: a reader that finds p finds its record. */
		e->rec = rec;
		e->usize = usize;
		if (__atomic_compare_exchange_n(&e->ptr, &cur, p, 0, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return 0;
	}
	return -1;
}

/* Find p in the live set: its entry, or NULL. An empty slot ends the
 * search (an insertion never empties one: removal leaves a tombstone). */
static struct sampler_live *live_find(struct sampler_keep *k, struct sampler_ctl *c, uint64_t p)
{
	struct sampler_live *l = (struct sampler_live *)(void *)((char *)k + c->live_off);
	uint32_t mask = c->nlive - 1, h = live_hash(p, mask);
	for (uint32_t i = 0; i < SAMPLER_PROBES; i++) {
		struct sampler_live *e = &l[(h + i) & mask];
		uint64_t cur = __atomic_load_n(&e->ptr, __ATOMIC_ACQUIRE);
		if (cur == p)
			return e;
		if (!cur)
			return NULL;
	}
	return NULL;
}

static int past_deadline(const struct sampler_ctl *c)
{
	struct ts now;
	if (!c->deadline_ns)
		return 0;
	if (sampler_syscall6(SAMPLER_NR_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, (long)&now, 0, 0, 0,
			     0))
		return 0;
	return now.sec * 1000000000LL + now.nsec >= c->deadline_ns;
}

/* One sample: a ring slot reserved (never waited for: a full ring drops),
 * filled, committed by its seq; the object into the live set. */
static void record(struct sampler_keep *k, struct sampler_ctl *c, uint64_t tp, uint64_t p,
		   uint64_t size, uint64_t usize, const uint64_t *regs)
{
	uint64_t h = __atomic_load_n(&c->head, __ATOMIC_RELAXED);
	for (;;) {
		uint64_t t = __atomic_load_n(&c->tail, __ATOMIC_ACQUIRE);
		if (h - t >= c->nrecs) {
			__atomic_fetch_add(&c->dropped_ring, 1, __ATOMIC_RELAXED);
			return;
		}
		if (__atomic_compare_exchange_n(&c->head, &h, h + 1, 1, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;
	}
	struct sampler_rec *r =
		(struct sampler_rec *)(void *)((char *)k + c->recs_off) + (h & (c->nrecs - 1));
	r->ptr = p;
	r->size = size;
	r->usize = usize;
	r->tp = tp;
	r->flags = 0;
	for (int i = 0; i < SAMPLER_NREGS; i++)
		r->regs[i] = i < SAMPLER_ARCH_NREGS ? regs[i] : 0;
	/* The stack above the hook's entry, as far as it is mapped: the
	 * kernel copies page by page and stops at the first that faults
	 * (mm/process_vm_access.c), so the copy never faults here. */
	struct iov local = { (uint64_t)(uintptr_t)r->stack, SAMPLER_STACK_MAX };
	struct iov remote = { regs[SAMPLER_REG_SP], SAMPLER_STACK_MAX };
	long n = sampler_syscall6(SAMPLER_NR_PROCESS_VM_READV, c->pid, (long)&local, 1,
				  (long)&remote, 1, 0);
	if (n <= 0) {
		n = 0;
		r->flags |= SAMPLER_REC_NOSTACK;
		__atomic_fetch_add(&c->nostack, 1, __ATOMIC_RELAXED);
	}
	r->stack_len = (uint32_t)n;
	if (live_add(k, c, p, h + 1, usize)) {
		r->flags |= SAMPLER_REC_UNTRACKED;
		__atomic_fetch_add(&c->dropped_live, 1, __ATOMIC_RELAXED);
	}
	__atomic_fetch_add(&c->taken, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&r->seq, h + 1, __ATOMIC_RELEASE);
}

static uint64_t asked(int type, uintptr_t *args)
{
	switch (type) {
	case A_POSIX_MEMALIGN:
		return args[2];
	case A_ALIGNED_ALLOC:
	case A_MEMALIGN:
	case A_REALLOC:
	case A_RALLOCX:
		return args[1];
	case A_CALLOC:
		return args[0] * args[1]; /* jemalloc refused an overflow before */
	default: /* malloc, valloc, mallocx */
		return args[0];
	}
}

/* Called by sampler_alloc_entry (src/arch/<arch>/sampler_entry.S). */
HIDDEN void sampler_alloc(void *extra, int type, void *result, uintptr_t result_raw,
			  uintptr_t *args, const uint64_t *regs)
{
	struct sampler_keep *k = extra;
	uint64_t tp = sampler_tp(), *slot = gate_slot(k, tp);
	/* posix_memalign's result is *memptr whatever happened; its return
	 * value (result_raw) says whether it is an allocation. */
	if (!result || (type == A_POSIX_MEMALIGN && result_raw) || !gate_in(k, slot))
		return;
	struct sampler_ctl *c = ctl_of(k);
	if (c->magic != SAMPLER_CTL_MAGIC) { /* a fork child */
		gate_out(slot);
		remove_self(k);
		return;
	}
	struct sampler_thread *t = thread_of(k, c, tp);
	if (t) {
		uint64_t size = asked(type, args), usize = sampler_usize(size);
		t->left -= (int64_t)usize;
		if (t->left <= 0) {
			t->left = sampler_interval(&t->rng, c->mean);
			if (past_deadline(c)) {
				/* jeattach is gone. Off, not removed: a removal
				 * here would leave the other threads in jemalloc's
				 * "recompute" state with nobody to settle them
				 * (sampler_abi.h), and one that exits so corrupts
				 * jemalloc's thread list. The next jeattach
				 * --sample removes them, and settles every thread. */
				__atomic_fetch_add(&c->expired, 1, __ATOMIC_RELAXED);
				__atomic_store_n(&k->on, 0, __ATOMIC_SEQ_CST);
				gate_out(slot);
				return;
			}
			record(k, c, tp, (uint64_t)(uintptr_t)result, size, usize, regs);
		}
	}
	gate_out(slot);
}

HIDDEN void sampler_dalloc(void *extra, int type, void *address, uintptr_t *args)
{
	struct sampler_keep *k = extra;
	uint64_t *slot = gate_slot(k, sampler_tp());
	(void)type;
	(void)args;
	if (!address || !gate_in(k, slot))
		return;
	struct sampler_ctl *c = ctl_of(k);
	if (c->magic != SAMPLER_CTL_MAGIC) {
		gate_out(slot);
		remove_self(k);
		return;
	}
	struct sampler_live *e = live_find(k, c, (uint64_t)(uintptr_t)address);
	if (e) {
		uint64_t p = (uint64_t)(uintptr_t)address;
		__atomic_compare_exchange_n(&e->ptr, &p, 1, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
	gate_out(slot);
}

HIDDEN void sampler_expand(void *extra, int type, void *address, size_t old_usize,
			   size_t new_usize, uintptr_t result_raw, uintptr_t *args)
{
	struct sampler_keep *k = extra;
	uint64_t *slot = gate_slot(k, sampler_tp());
	(void)type;
	(void)old_usize;
	(void)result_raw;
	(void)args;
	if (!address || !gate_in(k, slot))
		return;
	struct sampler_ctl *c = ctl_of(k);
	if (c->magic == SAMPLER_CTL_MAGIC) {
		struct sampler_live *e = live_find(k, c, (uint64_t)(uintptr_t)address);
		if (e)
			__atomic_store_n(&e->usize, new_usize, __ATOMIC_RELAXED);
	}
	gate_out(slot);
}
