/* SPDX-License-Identifier: BSD-2-Clause */
/* Scratch memory for a held thread's calls: where mallctl names, out
 * parameters, the crash-safe signal frame and the callee's own stack live.
 *
 * Normally a private anonymous mapping made in the target for the hold
 * (mmap through one single-stepped `syscall` instruction, which writes no
 * memory of the thread's) and unmapped at release: no byte of the thread's
 * stack is read or written. A coroutine's stack may be a few KiB carved
 * from a heap block next to data other threads update; saving the bytes
 * below its stack pointer and writing them back later rewinds that data
 * (victim_coro: 5 regressions in 5 dumps), and a deep call could overflow
 * such a stack into its neighbours.
 *
 * Only where the mapping cannot be made (no `syscall` instruction found, a
 * seccomp filter that would refuse or kill mmap or cannot be read, the
 * target out of address space) are the 24 KiB below the thread's red zone
 * used, saved first and written back whole at release, as before. */
#include "config.h"

#include <errno.h>
#include <linux/seccomp.h>
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

/* One syscall, single-stepped at the target's `syscall` instruction, then
 * the thread's registers and mask put back at once: if jeattach dies right
 * after, the thread resumes exactly where it was, not at the instruction
 * after that `syscall` with our arguments in its registers. */
static int step_syscall(struct target *t, struct rcall_hold *h, long nr, const uint64_t *args,
			int nargs, long *ret)
{
	uint32_t verdict;
	uint64_t a6[6] = { 0 };
	memcpy(a6, args, sizeof(*args) * (size_t)nargs);
	/* An answer other than ALLOW (or filters that cannot be read) means
	 * no mapping: the stack fallback makes no system call. */
	if (rcall_seccomp(t, nr, a6, &verdict) || verdict != SECCOMP_RET_ALLOW)
		return -JE_ERR_SECCOMP;
	int was_dirty = h->dirty;
	int e = rcall_syscall_step(t, nr, args, nargs, ret);
	int e2 = pt_set_gpregs(h->tid, &h->regs);
	if (!e2)
		e2 = pt_set_sigmask(h->tid, h->sigmask);
	if (!e2)
		h->dirty = was_dirty;
	return e ? e : e2;
}

static int map_scratch(struct target *t, struct rcall_hold *h)
{
	if (!t->rc->syscall_insn)
		return -ENOSYS;
	const uint64_t args[6] = { 0, SCRATCH_MAP_LEN, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, (uint64_t)-1, 0 };
	long addr;
	int e = step_syscall(t, h, SYS_mmap, args, 6, &addr);
	if (e)
		return e;
	if (addr < 0 && addr > -4096)
		return (int)addr;
	h->map_addr = (uint64_t)addr;
	h->scratch_hi = h->scratch_cur = h->map_addr + SCRATCH_MAP_LEN;
	h->scratch_lo = h->scratch_hi - RCALL_SCRATCH_SIZE;
	return 0;
}

int rcall_scratch_open(struct target *t, struct rcall_hold *h)
{
	if (map_scratch(t, h) == 0)
		return 0;
	uint64_t top = arch_sp(&h->regs) - ARCH_RED_ZONE;
	int e = pt_read(t->io_pid, top - RCALL_SCRATCH_SIZE, h->saved_stack, RCALL_SCRATCH_SIZE);
	if (e)
		return e;
	h->scratch_hi = h->scratch_cur = top;
	h->scratch_lo = top - RCALL_SCRATCH_SIZE;
	h->stack_saved = 1;
	return 0;
}

int rcall_scratch_close(struct target *t, struct rcall_hold *h)
{
	int e = 0;
	if (h->stack_saved)
		e = pt_write(t->io_pid, h->scratch_lo, h->saved_stack, RCALL_SCRATCH_SIZE);
	else if (h->map_addr) {
		long ret = 0;
		const uint64_t args[2] = { h->map_addr, SCRATCH_MAP_LEN };
		e = step_syscall(t, h, SYS_munmap, args, 2, &ret);
		if (!e && ret)
			e = (int)ret;
	}
	h->stack_saved = 0;
	h->map_addr = 0;
	h->scratch_lo = h->scratch_hi = h->scratch_cur = 0;
	return e;
}

void rcall_scratch_reset(struct target *t)
{
	struct rcall_hold *h = t->rc ? t->rc->hold : NULL;
	if (h)
		h->scratch_cur = h->scratch_hi;
}

int rcall_push(struct target *t, const void *data, size_t len, uint64_t *addr)
{
	struct rcall_hold *h = t->rc ? t->rc->hold : NULL;
	if (!h)
		return -EINVAL;
	if (h->left)
		return -JE_ERR_LEFT;
	uint64_t a = (h->scratch_cur - len) & ~15ULL;
	/* Keep 256 bytes at the bottom for the call frame's return address. */
	if (len > RCALL_SCRATCH_SIZE || a < h->scratch_lo + 256)
		return -JE_ERR_SCRATCH;
	int e = pt_write(t->io_pid, a, data, len);
	if (e)
		return e;
	h->scratch_cur = a;
	*addr = a;
	return 0;
}

int rcall_push_string(struct target *t, const char *s, uint64_t *addr)
{
	return rcall_push(t, s, strlen(s) + 1, addr);
}
