/* SPDX-License-Identifier: BSD-2-Clause */
/* The sampler's memory, as both sides see it: the freestanding hooks put
 * into the target (src/sampler/parasite/) and jeattach, which lays it out,
 * reads its ring while the target runs, and takes it out. Fixed-width
 * fields only, every offset from the start of the mapping, no pointer the
 * target could make jeattach follow: jeattach reads this memory with
 * process_vm_readv and checks every index against its own copy of the
 * sizes (the target can write here too).
 *
 * The mapping, from its start:
 *   page 0          struct sampler_keep: what a late thread may still read
 *                   after the hooks are removed (jemalloc's hook_remove does
 *                   not wait for threads inside a hook, include/jemalloc/
 *                   internal/hook.h "Threading"); it stays, with the code
 *   code pages      the hooks (read and execute)
 *   the rest        struct sampler_ctl, the thread table, the live set and
 *                   the ring (MADV_WIPEONFORK: a child of fork reads zeros
 *                   there, and its hooks stop and remove themselves)
 */
#ifndef JEATTACH_SAMPLER_ABI_H
#define JEATTACH_SAMPLER_ABI_H

#include <stdint.h>

#define SAMPLER_MAGIC 0x324c504d4153454aULL     /* "JESAMPL2": page 0 (2: in_call) */
#define SAMPLER_CTL_MAGIC 0x3154434d4153454aULL /* "JESAMCT1": struct sampler_ctl */
#define SAMPLER_VERSION 2

/* Bytes of stack copied above the hook's entry for each sample: perf's
 * --call-graph=dwarf default is 8 KiB; a server's allocation sites are
 * rarely deeper than that. */
#define SAMPLER_STACK_MAX 16384
/* Probes of the open-addressing tables before giving up (a drop, counted):
 * a free must cost a bounded amount whatever the table holds. */
#define SAMPLER_PROBES 16

/* The registers as the alloc hook was entered: what the caller's frame
 * (jemalloc's hook_invoke_alloc) needs to be unwound, callee-saved ones and
 * the stack pointer and return address. Order per architecture:
 *   x86_64:  rbx rbp r12 r13 r14 r15 sp pc
 *   aarch64: x19..x28 x29 x30 sp pc
 * (sp is the value at the call's return, pc the return address). */
#define SAMPLER_NREGS 14

/* sampler_remove's answer when a removal was made or begun already. */
#define SAMPLER_NOT_CLAIMED 0xffffffffULL

/* Slots of the gate's counters, hashed by thread pointer. */
#define SAMPLER_NBUSY 256

/* Page 0: never unmapped while a hook may run. The gate: a hook counts
 * itself in (busy[]) before it reads on, and out when it is done; jeattach
 * clears on before it removes the hooks, and unmaps the rest only once
 * every busy[] reads 0. Both sides order that store and those loads with
 * full fences, so a hook that saw on == 1 is counted when jeattach looks
 * (it is the store-buffer pattern: at least one side sees the other). */
struct sampler_keep {
	uint64_t magic;
	uint32_t on;           /* 0: every hook returns at once */
	uint32_t removing;     /* 0; 1 a removal begun (CAS, once); 2 removed */
	/* 1 while sampler_install or sampler_remove runs, jemalloc's hook
	 * mutex maybe taken: in a fork child's copy (a fork during that call)
	 * it stays 1 for good, and that mutex (hook.c hooks_mu, no fork
	 * handler in jemalloc 5.2-5.3) may stay taken, by a thread the child
	 * does not have: such a page is never touched (act_sample_left). */
	uint32_t in_call;
	uint32_t spare;
	uint64_t mallctl;      /* jemalloc's mallctl in the target */
	uint64_t handle;       /* experimental.hooks.install's answer */
	uint64_t ctl_off;      /* where struct sampler_ctl is, from page 0 */
	char remove_name[32];  /* "experimental.hooks.remove" */
	char install_name[32]; /* "experimental.hooks.install" */
	uint64_t busy[SAMPLER_NBUSY];
};

/* One thread's sampling state, keyed by its thread pointer (the TCB glibc
 * made for it: unique among live threads; a new thread that gets a dead
 * one's TCB goes on with its countdown, which the exponential law does
 * not mind). 64 bytes: one cache line per thread, no sharing. */
struct sampler_thread {
	uint64_t tp;      /* 0: free; claimed with a CAS */
	int64_t left;     /* bytes until this thread's next sample */
	uint64_t rng;     /* xorshift64* state */
	uint64_t spare[5];
};

/* A sampled object still live: its address and the record of its
 * allocation. ptr 0 is a free slot, 1 a removed one (a tombstone). */
struct sampler_live {
	uint64_t ptr;
	uint64_t rec;   /* the record's sequence number, from 1 */
	uint64_t usize; /* updated by an in-place expansion */
};

/* One sample, written by the allocating thread, committed by its seq. */
struct sampler_rec {
	uint64_t seq;       /* sequence number + 1, stored last (release) */
	uint64_t ptr;
	uint64_t size;      /* as asked */
	uint64_t usize;     /* its size class (the bytes it holds) */
	uint64_t tp;
	uint64_t regs[SAMPLER_NREGS];
	uint32_t stack_len; /* bytes of stack copied from regs' sp */
	uint32_t flags;     /* SAMPLER_REC_* */
	uint8_t stack[SAMPLER_STACK_MAX];
};
#define SAMPLER_REC_UNTRACKED 1u /* the live set was full: its free is not seen */
#define SAMPLER_REC_NOSTACK 2u   /* the stack copy failed */

struct sampler_ctl {
	uint64_t magic;       /* SAMPLER_CTL_MAGIC; zero in a fork child (MADV_WIPEONFORK) */
	uint32_t version;
	int32_t pid;          /* the process the stack copies read */
	uint32_t nthreads, nlive, nrecs; /* table sizes, powers of two */
	uint64_t mean;        /* mean bytes between samples */
	uint64_t seed;
	int64_t deadline_ns;  /* CLOCK_MONOTONIC: past it, the hooks switch themselves off */
	uint64_t threads_off, live_off, recs_off; /* from the mapping's start */
	/* Written by the hooks (atomics). */
	uint64_t head;        /* records reserved */
	uint64_t taken, dropped_ring, dropped_live, dropped_threads, nostack;
	uint64_t expired;     /* the deadline passed in a hook */
	/* Written by jeattach: records below it are read and may be reused. */
	uint64_t tail;
};

#endif
