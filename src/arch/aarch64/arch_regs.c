/* SPDX-License-Identifier: BSD-2-Clause */
/* aarch64 (AAPCS64 and the Linux syscall ABI) for injected calls and system
 * calls. Pure functions over arch_gpregs_t; the caller does all ptrace
 * work. Kernel behaviour relied on: arch/arm64/kernel/signal.c do_signal
 * (the restart of an interrupted syscall: x0 = orig_x0, pc -= 4, and x8 =
 * __NR_restart_syscall for -ERESTART_RESTARTBLOCK, only while
 * syscallno != -1) and arch/arm64/kernel/ptrace.c (NT_ARM_SYSTEM_CALL
 * sets syscallno, so -1 takes a thread out of that logic). */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "arch.h"

/* PSTATE.SS, the software-step bit (the kernel's DBG_SPSR_SS): never
 * carried into a call. PSR_MODE32_BIT and PSR_BTYPE_MASK (the branch type
 * BTI checks at a branch's target) come from asm/ptrace.h. */
#define PSTATE_SS 0x200000UL

const struct arch_regset arch_regsets[] = {
	{ NT_PRSTATUS, offsetof(arch_gpregs_t, g), sizeof(struct user_pt_regs), 1, 0 },
	{ NT_ARM_SYSTEM_CALL, offsetof(arch_gpregs_t, syscallno), sizeof(int32_t), 1, 0 },
	{ NT_ARM_TLS, offsetof(arch_gpregs_t, tls), sizeof(uint64_t), 0, 0 },
	/* Headers only: the kernel copies as much of a regset as asked. */
	{ NT_ARM_SSVE, offsetof(arch_gpregs_t, ssve), sizeof(struct user_sve_header), 0, 1 },
	{ NT_ARM_ZA, offsetof(arch_gpregs_t, za), sizeof(struct user_za_header), 0, 1 },
	{ ARCH_NT_ARM_GCS, offsetof(arch_gpregs_t, gcs), sizeof(struct arch_user_gcs), 0, 1 },
	{ ARCH_NT_ARM_POE, offsetof(arch_gpregs_t, por_el0), sizeof(uint64_t), 0, 1 },
};
const int arch_nregsets = sizeof(arch_regsets) / sizeof(arch_regsets[0]);

uint64_t arch_pc(const arch_gpregs_t *r)
{
	return r->g.pc;
}

void arch_regs_seen(arch_gpregs_t *r, uint64_t sp, uint64_t pc)
{
	/* No x30: a leaf function's return address is there, so a walk
	 * from these ends at its first frame. */
	memset(r, 0, sizeof(*r));
	r->g.sp = sp;
	r->g.pc = pc;
}

void arch_regs_from_sample(arch_gpregs_t *r, const uint64_t *s)
{
	/* x19..x28 x29 x30 sp pc (src/arch/aarch64/sampler_entry.S) */
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < 12; i++)
		r->g.regs[19 + i] = s[i];
	r->g.sp = s[12];
	r->g.pc = s[13];
}

uint64_t arch_sp(const arch_gpregs_t *r)
{
	return r->g.sp;
}

uint64_t arch_thread_pointer(const arch_gpregs_t *r)
{
	return r->tls;
}

int arch_in_syscall(const arch_gpregs_t *r)
{
	return r->syscallno >= 0;
}

long arch_syscall_nr(const arch_gpregs_t *r)
{
	return r->syscallno;
}

long arch_syscall_nr_register(const arch_gpregs_t *r)
{
	return (long)r->g.regs[8];
}

long arch_syscall_nr_next(const arch_gpregs_t *r)
{
	return (long)r->g.regs[8];
}

void arch_syscall_rewind(arch_gpregs_t *r)
{
	/* What do_signal does to restart: the first argument back in x0, pc
	 * back over the 4-byte svc. syscallno -1, so that the kernel does not
	 * also apply its own restart when the thread resumes from this stop. */
	r->g.regs[0] = r->orig_x0;
	r->g.pc -= ARCH_SYSCALL_INSN_LEN;
	r->syscallno = -1;
}

void arch_set_syscall_result(arch_gpregs_t *r, long ret)
{
	r->g.regs[0] = (uint64_t)ret;
	r->syscallno = -1; /* nothing left to restart */
}

long arch_syscall_ret(const arch_gpregs_t *r)
{
	return (long)r->g.regs[0];
}

uint64_t arch_syscall_arg(const arch_gpregs_t *r, int i)
{
	/* x0 holds the result once the call returned: argument 0 is orig_x0. */
	return i ? r->g.regs[i] : r->orig_x0;
}

void arch_set_syscall_arg(arch_gpregs_t *r, int i, uint64_t v)
{
	if (i)
		r->g.regs[i] = v;
	else
		r->orig_x0 = v;
}

int arch_is_compat(const arch_gpregs_t *r)
{
	return (r->g.pstate & PSR_MODE32_BIT) != 0;
}

/* SME (Documentation/arm64/sme.rst). In streaming mode (PSTATE.SM) most
 * Advanced SIMD instructions trap, and jemalloc and libc use them: a call
 * would die of SIGILL. A system call leaves streaming mode, so only a
 * thread stopped in its own code can be there; NT_ARM_SSVE reports the SVE
 * register format exactly then. ZA storage (PSTATE.ZA) survives system
 * calls, not a call: the SME procedure-call ABI lets any function that
 * uses SME itself turn it off when its caller left it active without a
 * lazy-save block, and the frame a crash-safe call returns through has no
 * za_context record (what rt_sigreturn then does with ZA is the kernel's
 * version's: not relied on). Either way the thread could lose its
 * matrix. Both cases: another thread is tried.
 *
 * GCS (Documentation/arch/arm64/gcs.rst, Linux 6.13+; glibc 2.41+ turns it
 * on for a program built with it): a `ret` checks x30 against the top of
 * the thread's guarded control stack, which only `bl`/`blr` push. An
 * injected call is entered by setting pc, so the callee's return to x30
 * would not match and the thread would die of a GCS fault (SIGSEGV); the
 * crash-safe frame has no gcs_context either. Such a thread is passed
 * over, as x86 shadow stacks are refused (cli_run.c). Not run on a kernel:
 * no machine here has GCS (Debian 12's qemu 7.2 does not emulate it).
 *
 * POE (Linux 6.12+, FEAT_S1POE; Debian 13's kernel has CONFIG_ARM64_POE):
 * a call runs with the thread's POR_EL0, and jemalloc's code and memory,
 * libc's and the scratch mapping all carry protection key 0 (mmap's
 * default). A thread that has shut part of key 0 to itself (a sandboxed
 * stretch of code on a stack of another key) would fault in the call; the
 * crash-safe frame has no poe_context to switch POR_EL0 for it, so such a
 * thread is passed over. A zero POR_EL0 is the regset missing (no thread
 * can run with key 0 shut to execution). Not run on a kernel either:
 * qemu 7.2 does not emulate POE. */
const char *arch_call_blocker(const arch_gpregs_t *r)
{
	if ((r->ssve.flags & SVE_PT_REGS_MASK) == SVE_PT_REGS_SVE)
		return "is in SME streaming mode (ordinary code would trap there)";
	if (r->za.size > sizeof(struct user_za_header))
		return "has SME's ZA storage on (a call's return would not keep it)";
	if (r->gcs.features_enabled & ARCH_GCS_ENABLED)
		return "has a guarded control stack (GCS) on (a call's return would fault on it)";
	if (r->por_el0 && (r->por_el0 & ARCH_POE_KEY0_MASK) != ARCH_POE_RWX)
		return "has protection key 0 partly shut by its POR_EL0 (a call into jemalloc would fault)";
	return NULL;
}

/* Out of any syscall (the kernel's restart logic then leaves pc and x0
 * alone), no single step, no pending branch type for BTI to check at the
 * first instruction (pc is set, not branched to). */
void arch_enter_sigreturn(arch_gpregs_t *r, uint64_t sp)
{
	/* syscall_trace_enter returns syscallno as the tracer left it, and
	 * seccomp judges that one. */
	r->syscallno = ARCH_NR_RT_SIGRETURN;
	r->g.regs[8] = ARCH_NR_RT_SIGRETURN;
	r->g.sp = sp;
	r->g.pstate &= ~PSTATE_SS;
}

static void clean_entry_state(arch_gpregs_t *r)
{
	r->syscallno = -1;
	r->g.pstate &= ~(PSTATE_SS | (uint64_t)PSR_BTYPE_MASK);
}

int arch_call_setup(arch_gpregs_t *r, uint64_t fn, const uint64_t *args, int nargs,
		    uint64_t stack_top, uint64_t ret_addr, struct arch_stack_write *w)
{
	if (nargs < 0 || nargs > ARCH_MAX_CALL_ARGS)
		return -EINVAL;
	clean_entry_state(r);
	for (int i = 0; i < nargs; i++)
		r->g.regs[i] = args[i];
	/* sp 16-byte aligned at all times (a misaligned sp faults on use);
	 * the return address is the link register's, nothing on the stack. */
	r->g.sp = stack_top & ~(uint64_t)(ARCH_STACK_ALIGN - 1);
	r->g.regs[30] = ret_addr;
	r->g.pc = fn;
	w->present = 0;
	return 0;
}

uint64_t arch_call_result(const arch_gpregs_t *r)
{
	return r->g.regs[0];
}

int arch_syscall_setup(arch_gpregs_t *r, uint64_t insn_addr, long nr, const uint64_t *args,
		       int nargs)
{
	if (nargs < 0 || nargs > 6)
		return -EINVAL;
	clean_entry_state(r);
	for (int i = 0; i < nargs; i++)
		r->g.regs[i] = args[i];
	r->g.regs[8] = (uint64_t)nr;
	r->g.pc = insn_addr;
	return 0;
}

long arch_syscall_result(const arch_gpregs_t *r)
{
	return (long)r->g.regs[0];
}
