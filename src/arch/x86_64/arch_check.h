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
	r->orig_rax = (unsigned long long)nr;
	r->rax = (unsigned long long)ret;
	r->rdi = arg0;
	r->rip = insn_addr + ARCH_SYSCALL_INSN_LEN;
	r->rsp = 0x7ffd0000;
}

/* What the syscall instruction at the thread's pc would be asked if it ran
 * now: the number and first argument registers. */
#define ARCH_CHECK_NR_RESTART_SYSCALL 219
static inline void arch_check_reexec(const arch_gpregs_t *r, long *nr, uint64_t *arg0)
{
	*nr = (long)r->rax;
	*arg0 = r->rdi;
}

/* An FP state as pt_get_fpstate gives it (an XSAVE area: legacy region,
 * header, XCR0 in sw_reserved), and the pc a built signal frame restores. */
static inline size_t arch_check_fpstate(unsigned char *buf, size_t len)
{
	uint64_t xcr0 = 3; /* x87, SSE */
	memset(buf, 0, len);
	memcpy(buf + 464, &xcr0, 8);
	return 576;
}

static inline uint64_t arch_check_frame_pc(const unsigned char *frame)
{
	uint64_t pc;
	memcpy(&pc, frame + 8 + 40 + 16 * 8, 8); /* pretcode, uc head, r8..rsp */
	return pc;
}

/* Where a call made by arch_call_setup returns to. */
static inline uint64_t arch_check_return_address(const arch_gpregs_t *r,
						 const struct arch_stack_write *w)
{
	(void)r;
	return w->present ? w->value : 0;
}

/* The state at an interrupt's stop: on x86_64 the same (the restart
 * comes after get_signal). */
#define ARCH_CHECK_NR_NANOSLEEP 35
static inline void arch_check_at_stop(arch_gpregs_t *r, int rewound)
{
	(void)r, (void)rewound;
}

/* x86_64 has no SME. */
static inline int arch_check_set_sme(arch_gpregs_t *r, int streaming, int za)
{
	(void)r, (void)streaming, (void)za;
	return 0;
}

/* x86_64's shadow stacks are refused for the whole process (cli_run.c),
 * not per thread. */
static inline int arch_check_set_gcs(arch_gpregs_t *r, int on)
{
	(void)r, (void)on;
	return 0;
}

/* x86_64's protection keys (PKRU) are not checked: a thread that shut key 0
 * to itself could not touch its own stack (doc/robustness.md). */
static inline int arch_check_set_por(arch_gpregs_t *r, uint64_t por)
{
	(void)r, (void)por;
	return 0;
}

/* A static link's __errno_location (endbr64; mov $-64,%rax; add %fs:0,%rax;
 * ret): errno 64 bytes below the thread pointer. */
static const unsigned char arch_check_tls_static[] = {
	0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0xc7, 0xc0, 0xc0, 0xff, 0xff, 0xff,
	0x64, 0x48, 0x03, 0x04, 0x25, 0x00, 0x00, 0x00, 0x00, 0xc3,
};
#define ARCH_CHECK_TLS_STATIC_OFFSET (-64)

/* A thread whose stack pointer is sp and whose thread pointer is tp. */
static inline void arch_check_set_stack(arch_gpregs_t *r, uint64_t sp, uint64_t tp)
{
	r->rsp = sp;
	r->fs_base = tp;
}

#endif
