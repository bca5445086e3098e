/* SPDX-License-Identifier: BSD-2-Clause */
/* Scratch memory for a held thread's calls: where mallctl names, out
 * parameters, the crash-safe signal frame and the callee's own stack live.
 *
 * Normally a private anonymous mapping made in the target for the hold and
 * unmapped at release, so that no byte of the thread's stack is written
 * back: a coroutine's stack may be a few KiB carved from a heap block next
 * to data other threads update, and saving the bytes below its stack
 * pointer to write them back later rewinds that data (victim_coro: 5
 * regressions in 5 dumps); a deep call could also overflow such a stack.
 *
 * The mmap and munmap are crash-safe calls of libc's syscall() like every
 * other (a single step would not do: a tracer that dies at the step's
 * SIGTRAP stop leaves that SIGTRAP to be delivered, and the target dies of
 * it, as the kill storm showed). Their frame, and that of the errno lookup
 * before the mapping exists, goes below the thread's red zone, where the
 * kernel puts a signal handler's frame: memory the thread no longer uses,
 * written as a signal delivery would write it and not written back.
 *
 * Where calls cannot be crash-safe (return trap) or the mapping cannot be
 * made (a seccomp filter, no address space), the 24 KiB below the red zone
 * are used, saved first and written back at release, as before. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "errors.h"
#include "rcall_internal.h"

/* The mapping: the callee's stack below, pushed objects in the top
 * RCALL_SCRATCH_SIZE. A mallctl, even prof.dump or malloc_stats_print
 * with lazy binding and a sampled allocation's backtrace inside, uses tens
 * of KiB; untouched pages cost nothing (MAP_NORESERVE). The odd size
 * (1 MiB + 64 KiB) lets tests tell it from jemalloc's own mappings. */
#define SCRATCH_MAP_LEN (1024 * 1024 + 64 * 1024)

/* The region below the red zone, as a signal frame would use it. */
static void use_dead_stack(struct rcall_hold *h)
{
	h->scratch_hi = h->scratch_cur = arch_sp(&h->regs) - ARCH_RED_ZONE;
	h->scratch_lo = h->scratch_hi - RCALL_SCRATCH_SIZE;
}

int rcall_scratch_begin(struct target *t, struct rcall_hold *h)
{
	use_dead_stack(h);
	if (rcall_crash_safe(t))
		return 0; /* the errno lookup's frame, as a signal's; then the mapping */
	int e = pt_read(h->tid, h->scratch_lo, h->saved_stack, RCALL_SCRATCH_SIZE);
	if (!e)
		h->stack_saved = 1;
	return e;
}

int rcall_scratch_map(struct target *t, struct rcall_hold *h)
{
	if (h->stack_saved)
		return 0;
	if (!rcall_syscall_crash_safe(t, 6))
		goto saved; /* errno unknown, or a gadget too short for 7 arguments */
	const uint64_t args[6] = { 0, SCRATCH_MAP_LEN, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, (uint64_t)-1, 0 };
	long addr = 0;
	int e;
	e = rcall_syscall_allowed(t, SYS_mmap, args, 6, &addr);
	if (e == -JE_ERR_LEFT || e == -ESRCH)
		return e;
	if (e || (addr < 0 && addr > -4096))
		goto saved;
	h->map_addr = (uint64_t)addr;
	h->scratch_hi = h->scratch_cur = h->map_addr + SCRATCH_MAP_LEN;
	h->scratch_lo = h->scratch_hi - RCALL_SCRATCH_SIZE;
	return 0;
saved:
	/* No mapping: the saved and written-back stack. */
	use_dead_stack(h);
	e = pt_read(h->tid, h->scratch_lo, h->saved_stack, RCALL_SCRATCH_SIZE);
	if (!e)
		h->stack_saved = 1;
	return e;
}

int rcall_scratch_close(struct target *t, struct rcall_hold *h)
{
	int e = 0;
	if (h->stack_saved) {
		e = pt_write(h->tid, h->scratch_lo, h->saved_stack, RCALL_SCRATCH_SIZE);
	} else if (h->map_addr) {
		/* Not from the mapping itself: rt_sigreturn reads its frame
		 * after munmap has run. */
		long ret = 0;
		const uint64_t args[2] = { h->map_addr, SCRATCH_MAP_LEN };
		use_dead_stack(h);
		e = rcall_syscall_allowed(t, SYS_munmap, args, 2, &ret);
		if (!e && ret)
			e = (int)ret;
	}
	h->stack_saved = 0;
	h->map_addr = 0;
	h->scratch_lo = h->scratch_hi = h->scratch_cur = 0;
	return e;
}
