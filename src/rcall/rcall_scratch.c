/* SPDX-License-Identifier: BSD-2-Clause */
/* Scratch memory for a held thread's calls: where mallctl names, out
 * parameters, the crash-safe signal frame and the callee's own stack live.
 *
 * An anonymous mapping made in the target for the hold and unmapped at
 * release (private; growing down where RLIMIT_DATA refuses a plain one;
 * kept from fork children either way). No byte of the thread's stack is ever saved and
 * written back: a coroutine's stack may be a few KiB carved from a heap
 * block next to data other threads update, and a thread's stack may be a
 * guardless 16 KiB block beside another thread's frames and TLS; saving the
 * bytes below its stack pointer and writing them back later rewinds
 * whatever changed there meanwhile (victim_coro: 5 regressions in 5 dumps,
 * double frees and a SIGSEGV in the guardless-stack case), and a
 * deep call could overflow such a stack.
 *
 * Before the mapping exists, two or three calls run on the thread's own
 * stack below its red zone, where the kernel puts a signal handler's frame
 * (arch/x86/kernel/signal.c get_sigframe): the errno lookup, the mmap and
 * its madvise, written as a signal delivery would write them and never
 * written back. In a hold whose calls are crash-safe they are crash-safe
 * calls of libc's syscall() (a single step would not do: a tracer that
 * dies at the step's SIGTRAP stop leaves that SIGTRAP to be delivered, and
 * the target dies of it, as the kill storm showed). In a hold that returns
 * through the trap (rcall.c) the mmap is a single step, no worse than the
 * hold's other calls.
 *
 * That frame is as deep as a signal's (about 3.5 KiB on x86_64 with AVX-512
 * state), and only a stack known to be at least that deep below the red
 * zone takes it (rcall_scratch_stack_known): the main thread's, or one
 * glibc allocated with its guard. A stack the program made itself may be
 * smaller (a 2 KiB coroutine stack whose thread blocks every signal never
 * receives a signal frame: 1,576 bytes below it were written before). On
 * such a stack the hold's first round passes the thread over; a later one
 * makes the mmap, the madvise and, at the end, the munmap by single steps
 * of a `syscall` instruction, which write nothing in memory, putting the
 * thread's registers and mask back after each; the errno lookup waits for
 * the mapping. Those three steps are not crash-safe (a jeattach killed at
 * one leaves a SIGTRAP the target dies of): microseconds, on a thread no
 * other could replace.
 *
 * Where no mapping can be had (the address-space limit, the map count, a
 * seccomp filter that forbids mmap or that jeattach cannot read) the calls
 * may run below the red zone, as a signal handler would, written and never
 * written back, but only on a stack that is a real one with room for them
 * (rcall_stack_room): the main thread's [stack], or a mapping with glibc's
 * inaccessible guard right below it and the thread's own descriptor (its
 * thread pointer) in it, SCRATCH_MAP_LEN or more of it free
 * below the red zone. A coroutine's stack carved from a heap block, or a
 * guardless thread stack, is never written past: the hold is refused with
 * the cause. */
#include "config.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "errors.h"
#include "rcall_internal.h"
#include "rcall_reads.h"
#include "sym_maps.h"

/* The mapping: the callee's stack below, pushed objects in the top
 * RCALL_SCRATCH_SIZE. A mallctl, even prof.dump or malloc_stats_print
 * with lazy binding and a sampled allocation's backtrace inside, uses tens
 * of KiB; untouched pages cost nothing (MAP_NORESERVE). The odd size
 * (1 MiB + 64 KiB) lets tests tell it from jemalloc's own mappings. */
#define SCRATCH_MAP_LEN RCALL_SCRATCH_MAP_LEN

/* What the calls before the mapping use of the stack beyond a signal
 * frame: the gadget's slots, the result slot, syscall()'s return. */
#define PREMAP_SLACK 1024

/* The region below the red zone, as a signal frame would use it. */
static void use_dead_stack(struct rcall_held *h)
{
	h->scratch_hi = h->scratch_cur = arch_sp(&h->regs) - ARCH_RED_ZONE;
	h->scratch_lo = h->scratch_hi - RCALL_SCRATCH_SIZE;
	h->scratch_on_stack = 1;
}

int rcall_scratch_begin(struct target *t, struct rcall_held *h)
{
	(void)t;
	use_dead_stack(h);
	return 0;
}

/* mmap in the target: the result, or -errno. A crash-safe hold makes it
 * crash-safe or not at all. */
static int map_once(struct target *t, int flags, long *addr)
{
	const uint64_t args[6] = { 0, SCRATCH_MAP_LEN, PROT_READ | PROT_WRITE,
				   (uint64_t)(flags | MAP_ANONYMOUS | MAP_NORESERVE), (uint64_t)-1, 0 };
	if (rcall_crash_safe(t) && !t->rc->hold->stack_unknown && !rcall_syscall_crash_safe(t, 6))
		return -JA_ERR_NO_SCRATCH; /* errno unknown, or a gadget too short for 7 arguments */
	int e = rcall_syscall_allowed(t, SYS_mmap, args, 6, addr);
	if (!e && *addr < 0 && *addr > -4096)
		e = (int)*addr;
	return e;
}

int rcall_stack_room(const struct sym_maps *maps, uint64_t sp, uint64_t tp, uint64_t need)
{
	const struct sym_map *m = sym_maps_find(maps, sp);
	if (!m || !m->r || !m->w || m->x || m->p != 1 || sp - m->start < need)
		return 0;
	if (!strcmp(m->path, "[stack]"))
		return 1;
	if (m->path[0] || m == maps->v)
		return 0;
	/* glibc puts the thread's descriptor (where its thread pointer
	 * points) at the top of the stack it allocated: a region of many
	 * stacks with one guard at its bottom (a coroutine pool) has the
	 * neighbour but is not this thread's own stack. */
	if (tp < m->start || tp >= m->end)
		return 0;
	/* glibc's allocate_stack: one mapping, its lowest guardsize bytes
	 * mprotect'ed PROT_NONE, which /proc shows as a mapping of its own
	 * ending where the stack begins. A stack the program carved itself
	 * (a coroutine's, pthread_attr_setstack's) has no such neighbour. */
	const struct sym_map *below = m - 1;
	return below->end == m->start && !below->r && !below->w && !below->x && !below->path[0];
}

int rcall_scratch_stack_known(struct target *t, const struct rcall_held *h)
{
	uint64_t sp = arch_sp(&h->regs) - ARCH_RED_ZONE;
	uint64_t tp = arch_thread_pointer(&h->regs);
	uint64_t need = arch_sigframe_size(arch_sigframe_fplen(h->fpstate, h->fplen)) + PREMAP_SLACK;
	/* The main thread's stack is where target_open saw it. */
	const struct sym_map *m = sym_maps_find(&t->maps, sp);
	if (m && !strcmp(m->path, "[stack]") && sp - m->start >= need)
		return 1;
	/* Another thread's, in the mappings read before this round's stops
	 * (rcall_hold): a stack a live thread runs on was there then, guard
	 * and all (glibc frees a stack only after its thread ended). A thread
	 * newer than that read, or a stack the read does not show as one:
	 * read again now. */
	if (t->rc && t->rc->stack_maps.n && rcall_stack_room(&t->rc->stack_maps, sp, tp, need))
		return 1;
	struct sym_maps maps = { 0 };
	int room = !rcall_reads.maps(t->io_pid, &maps) && rcall_stack_room(&maps, sp, tp, need);
	sym_maps_free(&maps);
	return room;
}

/* No mapping (e: why): the region below the red zone if the thread's
 * stack is a real one with room (rcall_stack_room), else refused with the
 * cause. */
static int no_mapping(struct target *t, struct rcall_held *h, int e)
{
	struct sym_maps maps = { 0 };
	uint64_t sp = arch_sp(&h->regs) - ARCH_RED_ZONE;
	/* The thread may be newer than target_open's snapshot: read now. */
	int room = !rcall_reads.maps(t->io_pid, &maps) &&
		   rcall_stack_room(&maps, sp, arch_thread_pointer(&h->regs), SCRATCH_MAP_LEN);
	sym_maps_free(&maps);
	if (room) {
		use_dead_stack(h);
		return 0;
	}
	target_reason(t, (struct ja_reason){ .kind = JA_WHY_NO_SCRATCH, .err = -e,
					     .n = SCRATCH_MAP_LEN / 1024 });
	return -JA_ERR_NO_SCRATCH;
}

/* Keep the mapping from fork children (MADV_DONTFORK: dup_mmap skips
 * VM_DONTCOPY areas): nothing of jeattach's may outlive the hold there
 * either. Its frame goes where the mmap's went, below the red zone:
 * nothing is written into the mapping before it is marked (a frame written
 * there first was copied, 12 KiB of it, into a child forked in between:
 * t_fork). */
static int keep_from_children(struct target *t, struct rcall_held *h)
{
	const uint64_t adv[3] = { h->map_addr, SCRATCH_MAP_LEN, MADV_DONTFORK };
	long ret = 0;
	int e = rcall_syscall_allowed(t, SYS_madvise, adv, 3, &ret);
	if (e == -JA_ERR_LEFT || e == -ESRCH)
		return e;
	if (e || ret) {
		target_reason(t, (struct ja_reason){ .kind = JA_WHY_NO_DONTFORK,
						     .err = e ? -e : (int)-ret });
		return -JA_ERR_NO_SCRATCH;
	}
	return 0;
}

int rcall_scratch_still_made(const struct sym_maps *maps, uint64_t addr)
{
	const struct sym_map *m = sym_maps_find(maps, addr);
	if (!m || m->path[0] || !m->r || !m->w || m->x || m->p != 1 || m->start > addr)
		return 0;
	/* A neighbour made the same way (MADV_DONTFORK, MAP_NORESERVE: an
	 * RDMA buffer, another jeattach's) merges with it into one area
	 * (mm/mmap.c vma_merge): the range is still inside. The token
	 * (take_kept) tells it from a program's mapping made there since. */
	return m->end >= addr + SCRATCH_MAP_LEN;
}

/* The label's token (rcall_label.c): a value this run drew, written when
 * the mapping is made and again when it is kept, read back before it is
 * taken over. The maps alone cannot tell the mapping from one the program
 * made in its place after unmapping it (same flags, same range). */
static uint64_t draw_token(uint64_t addr)
{
	return ((uint64_t)core_now_us() * 0x9e3779b97f4a7c15ULL) ^ addr;
}

/* Pushes go below the label. */
static void use_mapping(struct rcall_held *h)
{
	h->scratch_hi = h->scratch_cur = rcall_label_addr(h->map_addr + SCRATCH_MAP_LEN);
	h->scratch_lo = h->scratch_hi - RCALL_SCRATCH_SIZE;
	h->scratch_on_stack = 0;
}

/* The label says which thread's calls run on the mapping now. */
static int label_in_hold(struct rcall_held *h)
{
	const struct rcall_label_state st = { draw_token(h->map_addr), RCALL_LABEL_IN_HOLD, h->tid,
					      h->map_grows };
	return rcall_label_write(h->tid, h->map_addr, &st);
}

/* The mapping an earlier hold left for this one (rcall_keep_scratch), or
 * one a killed jeattach left (rcall_scratch_adopt), if the mappings read
 * before this hold's stop still show it as made and its label and token
 * are in place: 1 taken over. 0 when it is gone or replaced (an
 * execve, a program that unmapped what it never mapped): forgotten, never
 * touched. -1 when that cannot be told now (the maps unreadable): it stays
 * kept for rcall_scratch_drop, and this hold makes its own. */
static int take_kept(struct target *t, struct rcall_held *h)
{
	struct rcall_ctx *c = t->rc;
	const uint64_t addr = c->kept_addr;
	if (!addr)
		return 0;
	struct sym_maps now = { 0 };
	const struct sym_maps *maps = &c->stack_maps;
	if (!maps->n) {
		if (rcall_reads.maps(t->io_pid, &now))
			return -1;
		maps = &now;
	}
	struct rcall_label l;
	/* A killed run's: every field of its label as read at attach. */
	const int same = rcall_scratch_still_made(maps, addr) &&
			 (c->kept_foreign ? rcall_label_same(h->tid, addr + SCRATCH_MAP_LEN, &c->kept_label)
					  : !rcall_label_read(h->tid, addr + SCRATCH_MAP_LEN, &l) &&
						    l.token == c->kept_token && rcall_label_mine(&l));
	sym_maps_free(&now);
	const int foreign = c->kept_foreign;
	c->kept_addr = 0;
	c->kept_foreign = 0;
	if (!same)
		return 0;
	c->nstale_removed += foreign; /* ours now, it goes with ours */
	h->map_addr = addr;
	h->map_grows = c->kept_grows;
	/* Ours now, this thread's calls on it: what a later jeattach reads
	 * if this one is killed in the hold. */
	if (label_in_hold(h)) {
		h->map_addr = 0;
		return 0;
	}
	use_mapping(h);
	return 1;
}

int rcall_scratch_map(struct target *t, struct rcall_held *h)
{
	long addr = 0;
	/* A mapping the filter would not let release unmap stays in the
	 * target for good (jemalloc never unmaps on Linux: an allowlist may
	 * leave munmap out): none is made, and a kept one is not taken over
	 * by this thread (another unmaps it: rcall_scratch_drop). */
	uint32_t verdict;
	const uint64_t unmap[6] = { 0, SCRATCH_MAP_LEN };
	if (rcall_seccomp(t, SYS_munmap, unmap, &verdict) || verdict != SECCOMP_RET_ALLOW)
		return no_mapping(t, h, -JA_ERR_SECCOMP);
	if (take_kept(t, h) > 0)
		return 0;
	int e = map_once(t, MAP_PRIVATE, &addr);
	if (!e) {
		h->map_addr = (uint64_t)addr;
		e = keep_from_children(t, h);
	} else if (e == -ENOMEM) {
		/* A private writable mapping counts against RLIMIT_DATA, one
		 * that grows down does not (mm/mmap.c, is_data_mapping: VM_WRITE
		 * without VM_SHARED or VM_STACK; VM_STACK is VM_GROWSDOWN), and is
		 * still private: a child forked before its madvise gets an
		 * untouched copy, never the pages themselves. (A shared mapping,
		 * used before, gave such a child the very pages the hold then
		 * wrote: victim_fork -q's children saw them; and no list of
		 * children can tell such a fork, whose child joins its parent's
		 * list only after dup_mmap, kernel/fork.c copy_process.) Only
		 * here: a mapping that grows down makes the kernel keep a gap
		 * below it (vm_start_gap) where the program's own mappings would
		 * otherwise go. */
		e = map_once(t, MAP_PRIVATE | MAP_GROWSDOWN, &addr);
		if (!e) {
			h->map_addr = (uint64_t)addr;
			h->map_grows = 1;
			e = keep_from_children(t, h);
		} else if (e != -JA_ERR_LEFT && e != -ESRCH) {
			return no_mapping(t, h, e);
		}
	} else if (e != -JA_ERR_LEFT && e != -ESRCH) {
		return no_mapping(t, h, e);
	}
	/* Labelled before anything else is written in it. Unlabelled, a
	 * mapping no later jeattach could recognise: not used. */
	if (!e)
		e = label_in_hold(h); /* on failure, release unmaps it */
	if (e)
		return e;
	use_mapping(h);
	return 0;
}

/* Where the mapping begins now: one that grows down may have grown (a
 * callee deeper than it: the kernel expands a VM_GROWSDOWN area on a fault
 * below it, mm/mmap.c expand_stack, instead of faulting), and all of it
 * goes. */
static uint64_t map_start(struct target *t, uint64_t addr, int grows)
{
	uint64_t start = addr;
	struct sym_maps maps = { 0 };
	if (grows && !rcall_reads.maps(t->io_pid, &maps)) {
		const struct sym_map *m = sym_maps_find(&maps, addr);
		if (m && m->end == addr + SCRATCH_MAP_LEN && !m->path[0] && m->start < addr)
			start = m->start;
	}
	sym_maps_free(&maps);
	return start;
}

/* munmap of [start, end) from below the red zone (not from the mapping
 * itself: rt_sigreturn reads its frame after munmap has run). */
static int unmap_range(struct target *t, struct rcall_held *h, uint64_t start, uint64_t end)
{
	long ret = 0;
	const uint64_t args[2] = { start, end - start };
	use_dead_stack(h);
	int e = rcall_syscall_allowed(t, SYS_munmap, args, 2, &ret);
	return !e && ret ? (int)ret : e;
}

static int unmap(struct target *t, struct rcall_held *h, uint64_t addr)
{
	return unmap_range(t, h, map_start(t, addr, h->map_grows), addr + SCRATCH_MAP_LEN);
}

/* What killed jeattach runs left (rcall_label.c), each still labelled as
 * found at attach: unmapped, from below the red zone as this hold's own
 * munmap is, the hold's scratch put back after each. */
static void unmap_stale(struct target *t, struct rcall_held *h)
{
	struct rcall_ctx *c = t->rc;
	const uint64_t lo = h->scratch_lo, hi = h->scratch_hi, cur = h->scratch_cur;
	const int on_stack = h->scratch_on_stack;
	for (int i = 0; i < c->nstale; i++) {
		const struct rcall_stale *s = &c->stale[i];
		if (!rcall_label_same(h->tid, s->end, &s->label))
			continue; /* gone or changed since attach: not ours to take */
		const uint64_t start = s->label.grows ? map_start(t, s->end - SCRATCH_MAP_LEN, 1) : s->lo;
		if (!unmap_range(t, h, start, s->end))
			c->nstale_removed++;
		h->scratch_lo = lo, h->scratch_hi = hi, h->scratch_cur = cur;
		h->scratch_on_stack = on_stack;
	}
	c->nstale = 0;
}

int rcall_scratch_close(struct target *t, struct rcall_held *h)
{
	int e = 0;
	struct rcall_ctx *c = t->rc;
	if (c->nstale)
		unmap_stale(t, h);
	const struct rcall_label_state kept = { draw_token(h->map_addr), RCALL_LABEL_KEPT, 0,
						h->map_grows };
	/* What killed runs left is taken over or gone: the next attach may
	 * look. */
	if (!c->kept_foreign)
		rcall_label_unlock(c);
	/* One that grows down only for the next hold at once: kept across a
	 * wait, the gap the kernel keeps below it (vm_start_gap) would stay
	 * where the program's own mappings or stack would go. */
	const int keep = c->keep_scratch == RCALL_KEEP_ACROSS ? !h->map_grows : c->keep_scratch;
	if (h->map_addr && keep && !c->kept_addr && !rcall_label_write(h->tid, h->map_addr, &kept)) {
		/* For the next hold, which follows at once (one kept at a
		 * time: a hold that could not tell whether the kept one is
		 * still there made its own, which goes now). */
		c->kept_addr = h->map_addr;
		c->kept_grows = h->map_grows;
		c->kept_tid = h->tid;
		c->kept_token = kept.token;
	} else if (h->map_addr) {
		e = unmap(t, h, h->map_addr);
	}
	h->map_addr = 0;
	h->map_grows = 0;
	h->scratch_lo = h->scratch_hi = h->scratch_cur = 0;
	return e;
}
