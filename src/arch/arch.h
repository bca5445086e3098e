/* SPDX-License-Identifier: BSD-2-Clause */
/* arch.h: what generic code may ask of an architecture. Each port lives in
 * src/arch/<cpu>/ (chosen once by configure from $host_cpu) and provides
 * arch_defs.h (types and constants) and arch_*.c (the ABI, as data and pure
 * functions: no ptrace, no I/O; the mechanism stays in pt_ and rcall_). */
#ifndef JEATTACH_ARCH_H
#define JEATTACH_ARCH_H

#include <stddef.h>
#include <stdint.h>
#include "arch_defs.h"

/* A small write the ABI needs before a call starts (x86_64: the pushed
 * return address; an architecture with a link register needs none). */
struct arch_stack_write {
	uint64_t addr;
	uint64_t value;
	int present;
};

/* The register sets an arch_gpregs_t is read from (PTRACE_GETREGSET) and
 * written back to, in order, the first NT_PRSTATUS: where each lies in the
 * struct, its size, and whether it is written back. An architecture that
 * keeps the syscall number or the thread pointer outside the general
 * registers (arm64: NT_ARM_SYSTEM_CALL, NT_ARM_TLS) lists them here. */
struct arch_regset {
	int note;
	size_t offset, size;
	int write;
	/* Read only where the kernel and CPU have it: an error reads as zeros
	 * (arm64's SME state on a machine without SME). Never written. */
	int optional;
};
extern const struct arch_regset arch_regsets[];
extern const int arch_nregsets;

uint64_t arch_pc(const arch_gpregs_t *r);
/* Registers as far as a running thread's /proc syscall line tells them:
 * its pc and sp, every other one zero (a walk from them ends at the first
 * frame that needs another). */
void arch_regs_seen(arch_gpregs_t *r, uint64_t sp, uint64_t pc);
/* The registers the sampler's alloc hook saved at its entry (sampler_abi.h,
 * in sampler_entry.S's order): callee-saved ones, sp and pc; the rest 0. */
void arch_regs_from_sample(arch_gpregs_t *r, const uint64_t *saved);
uint64_t arch_sp(const arch_gpregs_t *r);
/* Is this thread stopped inside a system call (its orig syscall number is set)? */
int arch_in_syscall(const arch_gpregs_t *r);
long arch_syscall_nr(const arch_gpregs_t *r);
/* The register the system call ABI passes the call's number in, as it is
 * now (arm64: x8, which the kernel never writes; x86_64: orig_rax, as
 * arch_syscall_nr): what a call just made was, where the stop forgot it. */
long arch_syscall_nr_register(const arch_gpregs_t *r);
/* The call a thread stopped on its system call instruction makes when let
 * go (x86_64: rax, which orig_rax may not match: it keeps the last call's
 * number until the next kernel entry; arm64: x8). */
long arch_syscall_nr_next(const arch_gpregs_t *r);
/* Make the thread re-execute the system call it just returned from, with the
 * same arguments (what the kernel does itself for -ERESTARTNOHAND). */
void arch_syscall_rewind(arch_gpregs_t *r);
/* Make the syscall the thread is stopped after return ret. */
void arch_set_syscall_result(arch_gpregs_t *r, long ret);
/* The return value of the syscall the thread was stopped in. */
long arch_syscall_ret(const arch_gpregs_t *r);
/* Argument i (0-5) of the system call the registers are in or about to
 * make, by the syscall ABI. */
uint64_t arch_syscall_arg(const arch_gpregs_t *r, int i);
void arch_set_syscall_arg(arch_gpregs_t *r, int i, uint64_t v);
/* The thread pointer, from which static TLS is found at fixed offsets
 * (x86_64: fs_base, TLS variant II: the blocks lie below it). */
uint64_t arch_thread_pointer(const arch_gpregs_t *r);
/* Is the thread running code of another ABI (32-bit compat mode)? */
int arch_is_compat(const arch_gpregs_t *r);
/* A system call a thread was blocked in (/proc/TID/syscall, pt_blocked_call):
 * valid 0 if none; its number, arguments, and the pc after the instruction
 * that made it. */
struct arch_blocked_call {
	int valid;
	long nr;
	uint64_t args[6];
	uint64_t sp, pc;
};
/* At the stop an interrupt caused (PTRACE_EVENT_STOP), given the call the
 * thread was blocked in just before (b): make *r show what the kernel
 * showed before it handled the interruption, the system call and its
 * -ERESTART* or result, so that the generic code decides as on an
 * architecture that keeps them (x86_64: nothing to do). arm64's do_signal
 * forgets the syscall and applies the restart before get_signal, where the
 * stop is; *r then is that state turned back, never written as is
 * (arch_prepare_release turns it forward again). */
void arch_at_interrupt_stop(arch_gpregs_t *r, const struct arch_blocked_call *b);

/* NULL, or why no call may run in this thread as it is now (a mode of the
 * CPU that ordinary code cannot run in, or state the call's return would
 * lose): the thread is let go and another one is tried. */
const char *arch_call_blocker(const arch_gpregs_t *r);

/* Turn *r into the state at the first instruction of fn(args...), with the
 * stack top at stack_top (already below the red zone) and returning to
 * ret_addr. Fills *w with the memory write the call frame needs. */
int arch_call_setup(arch_gpregs_t *r, uint64_t fn, const uint64_t *args, int nargs,
		    uint64_t stack_top, uint64_t ret_addr, struct arch_stack_write *w);
uint64_t arch_call_result(const arch_gpregs_t *r);

/* Turn *r into the state that executes one system call instruction found at
 * insn_addr with number nr and the given arguments. */
int arch_syscall_setup(arch_gpregs_t *r, uint64_t insn_addr, long nr, const uint64_t *args,
		       int nargs);
long arch_syscall_result(const arch_gpregs_t *r);

/* Crash-safe calls (rcall.c, rcall_safe): the call returns to a gadget that
 * stores its result, then to libc's rt_sigreturn restorer, which restores
 * the thread from a signal frame built here, even if jeattach is dead. */
void arch_rewind_for_sigreturn(arch_gpregs_t *r);
/* The saved registers of a thread whose state was changed (calls ran in
 * it), as they must be written back: x86_64 writes orig_rax back, so the
 * kernel restarts an interrupted syscall itself; arm64 cannot write the
 * kernel's orig_x0, which the calls overwrote, and rewinds the syscall
 * instead. */
void arch_prepare_release(arch_gpregs_t *r);
/* Registers rewound to make a system call again (arch_syscall_rewind):
 * make them that call interrupted with restart code code (ERESTARTNOHAND:
 * a handler makes it return EINTR, otherwise the kernel makes it again),
 * where the kernel still applies a restart code when the tracer lets go of
 * the stop (ARCH_RESTART_AT_STOP: x86_64, whose arch_do_signal_or_restart
 * reads orig_ax and ax after get_signal, where ptrace stops are); left
 * rewound elsewhere (arm64's do_signal took its decision before the stop). */
void arch_syscall_interrupted(arch_gpregs_t *r, long code);
/* Argument i of a rewound call, and setting it (arm64: x0, where the
 * result was). */
uint64_t arch_rewound_arg(const arch_gpregs_t *r, int i);
void arch_set_rewound_arg(arch_gpregs_t *r, int i, uint64_t v);
/* Where in a frame arch_sigframe_build makes lie 128 bytes rt_sigreturn
 * never reads (the siginfo): room for a re-made call's timeout. */
size_t arch_sigframe_spare(void);
/* Stopped in a syscall that restarts through the restart block? */
int arch_restarts_by_block(const arch_gpregs_t *r);
/* How much of the FP state as saved (fplen bytes) a signal frame carries:
 * the thread's own layout (x86_64: no AMX tile data it does not use). */
size_t arch_sigframe_fplen(const void *fp, size_t fplen);
/* Where the function at addr whose first len bytes are code finds the
 * TLS variable it returns the address of (glibc's __errno_location):
 * its offset from the thread pointer is in memory at where (a GOT slot,
 * in_memory 1), or is offset itself. 0, or -1 for code of another shape
 * (arch_tls.c). */
struct arch_tls_ref {
	int in_memory;
	uint64_t where;
	int64_t offset;
};
#define ARCH_TLS_CODE_LEN 32
int arch_tls_ref_decode(const unsigned char *code, size_t len, uint64_t addr,
			struct arch_tls_ref *out);
/* Can off be a static TLS variable's distance from the thread pointer
 * here (x86_64, TLS variant II: below it; arm64, variant I: past the
 * 16-byte TCB)? 0 also for what an unrelocated slot reads (0). */
int arch_tls_offset_plausible(int64_t off);
/* What frames need of the CPU, asked once before any thread is stopped
 * (x86_64: the XSAVE layout, by CPUID, which a hypervisor traps). */
void arch_frame_prepare(void);
/* At a syscall-entry stop: the system call made becomes rt_sigreturn, its
 * frame found from sp as the restorer would have it (ARCH_RESTORER_SP_OFF). */
void arch_enter_sigreturn(arch_gpregs_t *r, uint64_t sp);
size_t arch_sigframe_size(size_t fplen);
int arch_sigframe_build(unsigned char *buf, size_t len, uint64_t frame_addr,
			const arch_gpregs_t *r, const void *fp, size_t fplen, uint64_t sigmask,
			uint64_t restorer);
/* Registers for fn(args) entered with the stack pointer at sp, returning
 * through the restorer: x86_64 by the gadget whose address is already at
 * sp, which stores the result at result_slot; arm64 straight, the link
 * register set to restorer. */
int arch_call_setup_ret(arch_gpregs_t *r, uint64_t fn, const uint64_t *args, int nargs,
			uint64_t sp, uint64_t result_slot, uint64_t restorer);
/* Is sp what a crash-safe call's callee must be entered with (x86_64: sp +
 * 8 aligned, a return address pushed; arm64: aligned)? */
int arch_ret_sp_aligned(uint64_t sp);
/* Can the FP state saved for a hold go into a signal frame (arm64: not a
 * live SVE state yet)? If not, the hold's calls return to the trap. */
int arch_sigframe_possible(const void *fp, size_t fplen);
/* Number of pops in a store gadget at bytes p (n available) ending in ret;
 * -1 if it is not one. */
int arch_gadget_pops(const unsigned char *p, size_t n);

/* Value of libunwind's register number regnum in r; -1 if not a general
 * register. */
int arch_unwind_reg(const arch_gpregs_t *r, int regnum, uint64_t *val);

#endif
