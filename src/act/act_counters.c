/* SPDX-License-Identifier: BSD-2-Clause */
/* Every thread's allocated/deallocated byte counters from one borrow.
 *
 * jemalloc hands a thread the addresses of its own counters
 * (thread.allocatedp / thread.deallocatedp, 5.0+, ctl.c
 * thread_allocatedp_ctl: tsd_thread_allocatedp_get), but only to the thread
 * itself: asking each thread means borrowing each, and on a thread that
 * never allocated, the mallctl makes jemalloc create its tsd and a tcache
 * (5.3 src/tsd.c tsd_fetch_slow -> tsd_data_init ->
 * tsd_tcache_enabled_data_init), about 32 KiB of metadata that every later
 * "epoch" merges (measured: epoch hold 837 -> 2403 us on 1000 idle
 * threads). Worse, such a thread caught after its pthread key destructors
 * ran keeps that tsd and tcache for ever, on memory the next thread reuses,
 * and the next epoch walks it (a SIGSEGV with jemalloc's ctl lock taken,
 * doc/robustness.md).
 *
 * But the counters live in the tsd, and on Linux jemalloc's tsd is a
 * static TLS variable (tsd_tls.h: __thread tsd_t tsd_tls, initial-exec
 * model, JEMALLOC_TLS_MODEL): the ELF TLS ABI places a module's static TLS
 * block at the same offset from the thread pointer in every thread (x86_64
 * variant II: below fs_base). So one thread's answer, minus its thread
 * pointer, locates every thread's counters, read from then on with
 * process_vm_readv, nothing borrowed.
 *
 * That holds only for static TLS. A jemalloc built with
 * --disable-initial-exec-tls (dynamic TLS: a block malloc'd per thread on
 * first use) or with tsd_generic.h (pthread_getspecific) keeps the tsd
 * elsewhere; then the answer does not lie next to the thread pointer, in
 * its mapping (glibc allocates a thread's static TLS and its descriptor
 * together: nptl/allocatestack.c, with the stack; the main thread's in one
 * block by ld.so, elf/dl-tls.c _dl_allocate_tls_storage), and this is
 * refused. A thread's counters reading zero mean jemalloc has not set up
 * its tsd (TLS starts zeroed, elf/dl-tls.c _dl_allocate_tls_init), or it
 * made no allocation yet. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "act.h"
#include "act_counters.h"
#include "errors.h"
#include "rcall.h"

/* Static TLS is small (glibc reserves the initial modules' blocks plus a
 * surplus of a few KiB, elf/dl-tls.c); a counter farther than this from
 * the thread pointer is not in it. */
#define ACT_COUNTERS_MAX_OFF (16 << 20)

int act_counters_held(struct target *t, uint64_t *allocp, uint64_t *deallocp, char *why,
		      size_t whylen)
{
	const char *names[] = { "thread.allocatedp", "thread.deallocatedp" };
	uint64_t *out[] = { allocp, deallocp };
	for (int i = 0; i < 2; i++) {
		struct rctl_value v;
		int merr = 0;
		int e = rctl_read(t, names[i], &v, &merr);
		if (e) {
			snprintf(why, whylen, "%s", ja_err_text(-e));
			return e;
		}
		if (merr || !v.u) {
			snprintf(why, whylen, "%s: mallctl returned %d", names[i], merr);
			return -EIO;
		}
		*out[i] = v.u;
	}
	return 0;
}

/* Do addr and tp lie in one mapping, within reach of each other? */
static int near(const struct sym_maps *maps, uint64_t tp, uint64_t addr)
{
	const struct sym_map *m = sym_maps_find(maps, tp);
	uint64_t d = addr > tp ? addr - tp : tp - addr;
	return m && d <= ACT_COUNTERS_MAX_OFF && addr >= m->start && addr + 8 <= m->end;
}

void act_counters_learn(struct target *t, struct act_counters *k)
{
	uint64_t a, d;
	if (k->state)
		return;
	k->state = -1;
	if (act_counters_held(t, &a, &d, k->why, sizeof(k->why)))
		return;
	if (rcall_held_tp(t, &k->tp)) {
		snprintf(k->why, sizeof(k->why), "no thread is held");
		return;
	}
	k->tid = rcall_held_tid(t);
	k->alloc_off = (int64_t)(a - k->tp);
	k->dealloc_off = (int64_t)(d - k->tp);
	k->state = 2;
}

void act_counters_check(struct act_counters *k, const struct sym_maps *maps)
{
	if (k->state != 2)
		return;
	uint64_t a = k->tp + (uint64_t)k->alloc_off, d = k->tp + (uint64_t)k->dealloc_off;
	k->state = 1;
	if (!k->tp || !near(maps, k->tp, a) || !near(maps, k->tp, d)) {
		k->state = -1;
		snprintf(k->why, sizeof(k->why),
			 "jemalloc's thread data is not in static TLS here (counter at 0x%llx, "
			 "thread pointer 0x%llx)",
			 (unsigned long long)a, (unsigned long long)k->tp);
	}
}

int act_counters_at(const struct act_counters *k, const struct sym_maps *maps, uint64_t tp,
		    uint64_t out[2])
{
	if (k->state != 1 || !tp)
		return -1;
	out[0] = tp + (uint64_t)k->alloc_off;
	out[1] = tp + (uint64_t)k->dealloc_off;
	return near(maps, tp, out[0]) && near(maps, tp, out[1]) ? 0 : -1;
}
