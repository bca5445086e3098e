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

/* An FP state as pt_get_fpstate gives it (the note, then NT_PRFPREG's
 * user_fpsimd_state), and the pc a built signal frame restores. */
static inline size_t arch_check_fpstate(unsigned char *buf, size_t len)
{
	int note = NT_PRFPREG;
	memset(buf, 0, len);
	memcpy(buf, &note, sizeof(note));
	buf[8] = 0x5a; /* v0's first byte */
	return 8 + sizeof(struct user_fpsimd_state);
}

static inline uint64_t arch_check_frame_pc(const unsigned char *frame)
{
	uint64_t pc;
	memcpy(&pc, frame + 304 + 8 + 31 * 8 + 8, 8); /* uc_mcontext: fault, x0-x30, sp */
	return pc;
}

/* The state at an interrupt's stop, in get_signal after do_signal's first
 * half: the syscall forgotten and, for a restart code, x0 = orig_x0 and pc
 * back on the svc. */
#define ARCH_CHECK_NR_NANOSLEEP 101
static inline void arch_check_at_stop(arch_gpregs_t *r, int rewound)
{
	r->syscallno = -1;
	if (rewound) {
		r->g.regs[0] = r->orig_x0;
		r->g.pc -= ARCH_SYSCALL_INSN_LEN;
	}
	r->orig_x0 = 0xdead; /* no tracer can see it there */
}

/* The SME state arch_call_blocker looks at, as the kernel's headers give
 * it (sve_init_header_from_task, za_get): 1, the architecture has it. */
static inline int arch_check_set_sme(arch_gpregs_t *r, int streaming, int za)
{
	r->ssve.flags = streaming ? SVE_PT_REGS_SVE : SVE_PT_REGS_FPSIMD;
	r->za.size = za ? sizeof(r->za) + 256 * 256 : sizeof(r->za);
	return 1;
}

/* GCS on or off for the thread, as NT_ARM_GCS reports it: 1, the
 * architecture has it. */
static inline int arch_check_set_gcs(arch_gpregs_t *r, int on)
{
	r->gcs.features_enabled = on ? ARCH_GCS_ENABLED : 0;
	return 1;
}

/* POR_EL0 as NT_ARM_POE reports it (0: no POE): 1, the architecture has
 * permission overlays. */
static inline int arch_check_set_por(arch_gpregs_t *r, uint64_t por)
{
	r->por_el0 = por;
	return 1;
}

/* Where a call made by arch_call_setup returns to: the link register. */
static inline uint64_t arch_check_return_address(const arch_gpregs_t *r,
						 const struct arch_stack_write *w)
{
	return w->present ? 0 : r->g.regs[30];
}

/* A static link's __errno_location (bti c; movz x0, #0, lsl #16; movk x0,
 * #0x10; mrs x1, tpidr_el0; add x0, x1, x0; ret): errno 16 bytes above the
 * thread pointer, past the TCB. */
static const unsigned char arch_check_tls_static[] = {
	0x5f, 0x24, 0x03, 0xd5, 0x00, 0x00, 0xa0, 0xd2, 0x00, 0x02, 0x80, 0xf2,
	0x41, 0xd0, 0x3b, 0xd5, 0x20, 0x00, 0x00, 0x8b, 0xc0, 0x03, 0x5f, 0xd6,
};
#define ARCH_CHECK_TLS_STATIC_OFFSET 16

/* A thread whose stack pointer is sp and whose thread pointer is tp. */
static inline void arch_check_set_stack(arch_gpregs_t *r, uint64_t sp, uint64_t tp)
{
	r->g.sp = sp;
	r->tls = tp;
}

#endif
