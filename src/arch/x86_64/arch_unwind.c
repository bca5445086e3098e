/* SPDX-License-Identifier: BSD-2-Clause */
/* libunwind's x86_64 register numbers (libunwind-x86_64.h: UNW_X86_64_RAX
 * = 0 ... UNW_X86_64_RIP = 16, the DWARF order) mapped onto the registers a
 * stopped thread had, so unwinding never asks ptrace for a register. */
#include "config.h"

#include <libunwind.h>
#include "arch.h"

int arch_unwind_reg(const arch_gpregs_t *r, int regnum, uint64_t *val)
{
	const unsigned long long *slot[] = {
		[UNW_X86_64_RAX] = &r->rax, [UNW_X86_64_RDX] = &r->rdx, [UNW_X86_64_RCX] = &r->rcx,
		[UNW_X86_64_RBX] = &r->rbx, [UNW_X86_64_RSI] = &r->rsi, [UNW_X86_64_RDI] = &r->rdi,
		[UNW_X86_64_RBP] = &r->rbp, [UNW_X86_64_RSP] = &r->rsp, [UNW_X86_64_R8] = &r->r8,
		[UNW_X86_64_R9] = &r->r9,   [UNW_X86_64_R10] = &r->r10, [UNW_X86_64_R11] = &r->r11,
		[UNW_X86_64_R12] = &r->r12, [UNW_X86_64_R13] = &r->r13, [UNW_X86_64_R14] = &r->r14,
		[UNW_X86_64_R15] = &r->r15, [UNW_X86_64_RIP] = &r->rip,
	};
	if (regnum < 0 || regnum >= (int)(sizeof(slot) / sizeof(slot[0])) || !slot[regnum])
		return -1;
	*val = *slot[regnum];
	return 0;
}
