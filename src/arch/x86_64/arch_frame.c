/* SPDX-License-Identifier: BSD-2-Clause */
/* The x86_64 signal frame, built by hand so that an injected call can end in
 * rt_sigreturn(2) and the kernel itself puts the borrowed thread back
 * (CRIU's compel ends its parasite the same way). Layouts from the kernel's
 * uapi: arch/x86/include/uapi/asm/sigcontext.h (struct sigcontext_64),
 * asm/ucontext.h (struct ucontext: flags, link, stack, mcontext, 8-byte
 * sigmask) and arch/x86/include/asm/sigframe.h (struct rt_sigframe:
 * pretcode, uc, info, then the FP state). */
#include "config.h"

#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include "arch.h"
#include "kernel_restart.h"

/* uc_flags bits (uapi/asm/ucontext.h). */
#define UC_FP_XSTATE 0x1
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4
/* The extended FP state in a signal frame ends with this word at
 * fpstate + xstate_size (uapi/asm/sigcontext.h, FP_XSTATE_MAGIC2). */
#define FP_XSTATE_MAGIC1 0x46505853U
#define FP_XSTATE_MAGIC2 0x46505845U
#define FX_SW_OFFSET 464 /* sw_reserved in the 512-byte legacy area */
#define NR_RESTART_SYSCALL 219

struct k_ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct {
		uint64_t ss_sp;
		int32_t ss_flags;
		int32_t pad;
		uint64_t ss_size;
	} uc_stack;
	struct sigcontext uc_mcontext; /* glibc's x86_64 copy of the kernel's sigcontext_64 */
	uint64_t uc_sigmask;
};

struct k_rt_sigframe {
	uint64_t pretcode;
	struct k_ucontext uc;
	unsigned char info[128]; /* siginfo: rt_sigreturn does not read it */
};

_Static_assert(sizeof(struct sigcontext) == 256, "sigcontext_64 is 256 bytes");
_Static_assert(offsetof(struct k_rt_sigframe, uc.uc_mcontext) == 48, "rt_sigframe layout");
_Static_assert(sizeof(struct k_rt_sigframe) == 440, "rt_sigframe size");

void arch_rewind_for_sigreturn(arch_gpregs_t *r)
{
	/* What the kernel does before building a frame for a handler of a
	 * syscall-interrupting signal (arch/x86/kernel/signal.c, handle_signal
	 * with SA_RESTART, and the no-handler path): rt_sigreturn sets
	 * orig_ax = -1, so an interrupted syscall must already be rewound to
	 * re-execute, or the program would see -ERESTART* as a result. */
	if ((long)r->orig_rax < 0)
		return;
	switch (-(long)r->rax) {
	case ERESTARTSYS:
	case ERESTARTNOINTR:
	case ERESTARTNOHAND:
		r->rax = r->orig_rax;
		r->rip -= ARCH_SYSCALL_INSN_LEN;
		break;
	case ERESTART_RESTARTBLOCK:
		r->rax = NR_RESTART_SYSCALL;
		r->rip -= ARCH_SYSCALL_INSN_LEN;
		break;
	default:
		break;
	}
}

void arch_prepare_release(arch_gpregs_t *r)
{
	(void)r; /* orig_rax is written back as found: the kernel restarts */
}

void arch_syscall_interrupted(arch_gpregs_t *r, long code)
{
	/* As the call left it for arch_do_signal_or_restart: orig_ax the
	 * call, ax its -ERESTART* code, ip past the `syscall`. That function
	 * runs after get_signal, so at a stop inside get_signal (an interrupt
	 * stop, a signal-delivery stop) what the tracer writes is what it
	 * applies: a handler turns -ERESTARTNOHAND into -EINTR (handle_signal),
	 * no handler rewinds the call to be made again. */
	r->orig_rax = r->rax;
	r->rax = (unsigned long long)-code;
	r->rip += ARCH_SYSCALL_INSN_LEN;
}


int arch_restarts_by_block(const arch_gpregs_t *r)
{
	return (long)r->orig_rax >= 0 && (long)r->rax == -ERESTART_RESTARTBLOCK;
}

size_t arch_sigframe_size(size_t fplen)
{
	/* frame, then the FP state 64-byte aligned (XRSTOR needs it), then
	 * the trailing magic word */
	return ((sizeof(struct k_rt_sigframe) + 63) & ~(size_t)63) + 64 + fplen + 4;
}

/* The XSAVE area's size in the frame, as xstate_size says it. PTRACE_GETREGSET
 * gives the largest user layout (AMX's 8 KiB of tile data included), but
 * rt_sigreturn takes a larger xstate_size than the thread's own (its
 * fpstate's user_size: no tile data unless the process asked for AMX) for a
 * broken frame and restores x87/SSE only, clearing the AVX state
 * (check_xstate_in_sigframe, arch/x86/kernel/fpu/signal.c). Where the tile
 * data is not in use (XSTATE_BV bit 18 clear: an unpermitted thread never
 * has it) the area ends with the last other component XCR0 enables
 * (CPUID leaf 0xD: each component's size and offset). */
#define XFEATURE_XTILEDATA 18

/* Where each XSAVE component ends in the standard layout (CPUID leaf 0xD,
 * sub-leaf i: size in EAX, offset in EBX), 0 for one the CPU lacks: asked
 * once, before any thread is stopped (arch_frame_prepare). CPUID traps to
 * the hypervisor in a virtual machine: asked at every frame, these queries
 * made each hold here about 2 ms longer (bench/hold_ab.py: --status 0.45 ->
 * 2.4 ms); asked at a hold's first frame, they were 60 us of a 0.6 ms
 * hold. */
static uint32_t comp_end[64];
static int comp_known;

void arch_frame_prepare(void)
{
	unsigned a, b, c, d;
	if (comp_known)
		return;
	comp_known = 1;
	/* Sub-leaf 0: the components the CPU supports (EDX:EAX). */
	if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d))
		return;
	const uint64_t supported = ((uint64_t)d << 32) | a;
	for (int i = 2; i < 63; i++)
		if (supported & (1ULL << i) && __get_cpuid_count(0xd, (unsigned)i, &a, &b, &c, &d) && a)
			comp_end[i] = b + a;
}

/* Where the components XCR0 enables, tile data left out, end. */
static size_t end_without_tiles(uint64_t xcr0)
{
	arch_frame_prepare();
	size_t end = 576; /* the legacy area and the header */
	for (int i = 2; i < 63; i++)
		if (i != XFEATURE_XTILEDATA && xcr0 & (1ULL << i) && comp_end[i] > end)
			end = comp_end[i];
	return end;
}

static size_t xstate_size(const unsigned char *fp, size_t fplen, uint64_t xcr0)
{
	uint64_t bv;
	memcpy(&bv, fp + 512, 8); /* the XSAVE header's XSTATE_BV */
	if (bv & (1ULL << XFEATURE_XTILEDATA) || !(xcr0 & (1ULL << XFEATURE_XTILEDATA)))
		return fplen;
	size_t end = end_without_tiles(xcr0);
	return end < fplen ? end : fplen;
}

size_t arch_sigframe_fplen(const void *fp, size_t fplen)
{
	uint64_t xcr0;
	if (fplen < 576)
		return fplen;
	memcpy(&xcr0, (const unsigned char *)fp + FX_SW_OFFSET, 8);
	return xstate_size(fp, fplen, xcr0);
}

int arch_sigframe_build(unsigned char *buf, size_t len, uint64_t frame_addr,
			const arch_gpregs_t *r, const void *fp, size_t fplen, uint64_t sigmask,
			uint64_t restorer)
{
	if (len < arch_sigframe_size(fplen) || fplen < 576)
		return -EINVAL;
	memset(buf, 0, len);
	struct k_rt_sigframe f;
	memset(&f, 0, sizeof(f));
	f.pretcode = restorer;
	/* The FP state as PTRACE_GETREGSET(NT_X86_XSTATE) gave it: the
	 * standard (non-compacted) XSAVE layout. In that ABI the legacy area's
	 * sw_reserved bytes start with XCR0; a signal frame wants struct
	 * _fpx_sw_bytes there instead (magic1, extended size, features, xsave
	 * size), and magic2 right after the XSAVE area, or the kernel restores
	 * only x87/SSE and clears the AVX and later state (check_xstate_in_
	 * sigframe in arch/x86/kernel/fpu/signal.c). */
	uint64_t fp_addr = (frame_addr + sizeof(f) + 63) & ~(uint64_t)63;
	size_t fp_off = (size_t)(fp_addr - frame_addr);
	memcpy(buf + fp_off, fp, fplen);
	uint64_t xcr0;
	memcpy(&xcr0, (const unsigned char *)fp + FX_SW_OFFSET, 8);
	size_t xsize = xstate_size(fp, fplen, xcr0);
	struct {
		uint32_t magic1, extended_size;
		uint64_t xfeatures;
		uint32_t xstate_size, padding[7];
	} sw = { FP_XSTATE_MAGIC1, (uint32_t)xsize + 4, xcr0, (uint32_t)xsize, { 0 } };
	_Static_assert(sizeof(sw) == 48, "_fpx_sw_bytes");
	memcpy(buf + fp_off + FX_SW_OFFSET, &sw, sizeof(sw));
	uint32_t magic2 = FP_XSTATE_MAGIC2;
	memcpy(buf + fp_off + xsize, &magic2, 4);
	f.uc.uc_flags = UC_FP_XSTATE | UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
	/* restore_altstack() ignores every error but EFAULT (kernel/signal.c),
	 * and do_sigaltstack() rejects an unknown mode with EINVAL before
	 * changing anything: an invalid mode keeps the thread's alternate
	 * signal stack as it is, whatever it is. */
	f.uc.uc_stack.ss_flags = 0x7fff;
	struct sigcontext *sc = &f.uc.uc_mcontext;
	sc->r8 = r->r8, sc->r9 = r->r9, sc->r10 = r->r10, sc->r11 = r->r11;
	sc->r12 = r->r12, sc->r13 = r->r13, sc->r14 = r->r14, sc->r15 = r->r15;
	sc->rdi = r->rdi, sc->rsi = r->rsi, sc->rbp = r->rbp, sc->rbx = r->rbx;
	sc->rdx = r->rdx, sc->rax = r->rax, sc->rcx = r->rcx, sc->rsp = r->rsp;
	sc->rip = r->rip;
	sc->eflags = r->eflags;
	sc->cs = (unsigned short)r->cs;
	sc->gs = (unsigned short)r->gs;
	sc->fs = (unsigned short)r->fs;
	sc->__pad0 = (unsigned short)r->ss; /* the ss slot (UC_SIGCONTEXT_SS) */
	sc->fpstate = (struct _fpstate *)(uintptr_t)fp_addr;
	f.uc.uc_sigmask = sigmask;
	memcpy(buf, &f, sizeof(f));
	return 0;
}

int arch_ret_sp_aligned(uint64_t sp)
{
	return sp % 16 == 8; /* the ABI: rsp + 8 aligned at function entry */
}

int arch_sigframe_possible(const void *fp, size_t fplen)
{
	(void)fp;
	return fplen >= 576; /* the legacy area and the XSAVE header */
}

int arch_call_setup_ret(arch_gpregs_t *r, uint64_t fn, const uint64_t *args, int nargs,
			uint64_t sp, uint64_t result_slot, uint64_t restorer)
{
	(void)restorer; /* the frame's pretcode, popped by the gadget's ret */
	if (nargs < 0 || nargs > ARCH_MAX_CALL_ARGS)
		return -EINVAL;
	uint64_t zero[ARCH_MAX_CALL_ARGS] = { 0 };
	struct arch_stack_write unused;
	/* Reuse the plain call setup for arguments and flags; the return
	 * address is written by the caller (the gadget), sp is exact. */
	int e = arch_call_setup(r, fn, nargs ? args : zero, nargs, sp + 8, 0, &unused);
	if (e)
		return e;
	r->rsp = sp;
	r->rbx = result_slot; /* callee-saved: the gadget stores rax through it */
	return 0;
}

int arch_gadget_pops(const unsigned char *p, size_t n)
{
	if (n < ARCH_GADGET_STORE_LEN + 1 || memcmp(p, ARCH_GADGET_STORE, ARCH_GADGET_STORE_LEN))
		return -1;
	int pops = 0;
	for (size_t i = ARCH_GADGET_STORE_LEN; i < n && pops < 6;) {
		if (p[i] == 0xc3) /* ret */
			return pops;
		if (p[i] >= 0x58 && p[i] <= 0x5f && p[i] != 0x5c) { /* pop r64, not %rsp */
			i++;
			pops++;
		} else if (p[i] == 0x41 && i + 1 < n && p[i + 1] >= 0x58 && p[i + 1] <= 0x5f) {
			i += 2; /* pop r8-r15 */
			pops++;
		} else {
			return -1;
		}
	}
	return -1;
}

uint64_t arch_rewound_arg(const arch_gpregs_t *r, int i)
{
	return arch_syscall_arg(r, i);
}

void arch_set_rewound_arg(arch_gpregs_t *r, int i, uint64_t v)
{
	arch_set_syscall_arg(r, i, v);
}

size_t arch_sigframe_spare(void)
{
	return offsetof(struct k_rt_sigframe, info);
}
