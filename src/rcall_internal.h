/* SPDX-License-Identifier: BSD-2-Clause */
/* State of a held thread, shared by rcall_hold.c and rcall.c only. */
#ifndef JEATTACH_RCALL_INTERNAL_H
#define JEATTACH_RCALL_INTERNAL_H

#include "arch.h"
#include "pt.h"
#include "target.h"

/* Scratch room below the red zone: mallctl names, out-parameters and paths,
 * and for crash-safe calls a signal frame with the full XSAVE area (about
 * 1 KiB with AVX, 3 KiB with AVX-512, 11 KiB with AMX). */
#define RCALL_SCRATCH_SIZE (24 * 1024)

struct target_hold_state {
	pid_t tid;
	pt_usec_t since;        /* when the thread was stopped */
	arch_gpregs_t regs;     /* as found */
	unsigned char *fpstate; /* as found, fplen bytes */
	size_t fplen;
	uint64_t sigmask;       /* as found */
	int mask_saved;
	uint64_t errno_addr;    /* the thread's errno, 0 if unknown */
	int errno_val;          /* as found */
	int group_stop;         /* the process was (or became) stopped by a signal */
	uint64_t scratch_lo, scratch_hi; /* saved stack bytes [lo, hi) */
	unsigned char saved_stack[RCALL_SCRATCH_SIZE];
	uint64_t scratch_cur;   /* next push goes below this */
	int fault_sig;          /* signal of the last injected call that faulted */
	int dirty;              /* registers, FP state or mask differ from what was found */
	int restart_block;      /* its syscall restarts through the restart block */
	int seccomp_nr;         /* first syscall the target's seccomp trapped, answered -EPERM */
};

#endif
