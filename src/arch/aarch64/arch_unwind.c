/* SPDX-License-Identifier: BSD-2-Clause */
/* libunwind's aarch64 register numbers (libunwind-aarch64.h: UNW_AARCH64_X0
 * = 0 ... X30 = 30, SP = 31, PC = 32, the DWARF order) mapped onto the
 * registers a stopped thread had, so unwinding never asks ptrace for a
 * register. */
#include "config.h"

#include <libunwind.h>
#include "arch.h"

int arch_unwind_reg(const arch_gpregs_t *r, int regnum, uint64_t *val)
{
	if (regnum >= UNW_AARCH64_X0 && regnum <= UNW_AARCH64_X30)
		*val = r->g.regs[regnum - UNW_AARCH64_X0];
	else if (regnum == UNW_AARCH64_SP)
		*val = r->g.sp;
	else if (regnum == UNW_AARCH64_PC)
		*val = r->g.pc;
	else
		return -1;
	return 0;
}
