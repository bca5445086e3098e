/* SPDX-License-Identifier: BSD-2-Clause */
/* For tests/check_arch.c only: a thread's registers as the kernel leaves
 * them when it stops in system call nr (made at insn_addr with first
 * argument arg0) that returned ret. */
#ifndef JEATTACH_ARCH_CHECK_H
#define JEATTACH_ARCH_CHECK_H

#include <string.h>
#include "arch.h"

static inline void arch_check_in_syscall(arch_gpregs_t *r, uint64_t insn_addr, long nr,
					 uint64_t arg0, long ret)
{
	memset(r, 0, sizeof(*r));
	r->syscallno = (int32_t)nr;
	r->g.regs[0] = (uint64_t)ret;
	r->g.regs[8] = (uint64_t)nr;
	r->orig_x0 = arg0;
	r->g.pc = insn_addr + ARCH_SYSCALL_INSN_LEN;
	r->g.sp = 0x7ffd0000;
}

/* What the svc at the thread's pc would be asked if it ran now: x8 and x0. */
#define ARCH_CHECK_NR_RESTART_SYSCALL 128
static inline void arch_check_reexec(const arch_gpregs_t *r, long *nr, uint64_t *arg0)
{
	*nr = (long)r->g.regs[8];
	*arg0 = r->g.regs[0];
}

/* Where a call made by arch_call_setup returns to: the link register. */
static inline uint64_t arch_check_return_address(const arch_gpregs_t *r,
						 const struct arch_stack_write *w)
{
	return w->present ? 0 : r->g.regs[30];
}

#endif
