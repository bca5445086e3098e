/* SPDX-License-Identifier: BSD-2-Clause */
/* aarch64: an interrupted system call's restart, and the crash-safe return
 * path, which is not built yet on this architecture (ARCH_HAS_CRASH_SAFE_
 * RETURN 0: every call returns to the trap, doc/arm64.md). */
#include "config.h"

#include <errno.h>
#include "arch.h"

/* Kernel-internal restart codes (include/linux/errno.h). */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516
#define NR_RESTART_SYSCALL 128

void arch_rewind_for_sigreturn(arch_gpregs_t *r)
{
	/* do_signal's restart, done now: the calls made meanwhile (our
	 * injected svc, the callee's own system calls) overwrite the kernel's
	 * orig_x0, which no tracer can write back, so a thread left in its
	 * -ERESTART* state would restart its syscall with another first
	 * argument. Rewound, it re-executes the svc with the argument it had
	 * (read from /proc/TID/syscall when it was stopped). */
	if (r->syscallno < 0)
		return;
	switch (-(long)r->g.regs[0]) {
	case ERESTARTSYS:
	case ERESTARTNOINTR:
	case ERESTARTNOHAND:
		arch_syscall_rewind(r);
		break;
	case ERESTART_RESTARTBLOCK:
		arch_syscall_rewind(r);
		r->g.regs[8] = NR_RESTART_SYSCALL;
		break;
	default:
		break;
	}
}

void arch_prepare_release(arch_gpregs_t *r)
{
	arch_rewind_for_sigreturn(r);
}

int arch_restarts_by_block(const arch_gpregs_t *r)
{
	return r->syscallno >= 0 && (long)r->g.regs[0] == -ERESTART_RESTARTBLOCK;
}

size_t arch_sigframe_size(size_t fplen)
{
	(void)fplen;
	return 0;
}

int arch_sigframe_build(unsigned char *buf, size_t len, uint64_t frame_addr,
			const arch_gpregs_t *r, const void *fp, size_t fplen, uint64_t sigmask,
			uint64_t restorer)
{
	(void)buf, (void)len, (void)frame_addr, (void)r, (void)fp, (void)fplen, (void)sigmask,
		(void)restorer;
	return -ENOSYS;
}

int arch_call_setup_ret(arch_gpregs_t *r, uint64_t fn, const uint64_t *args, int nargs,
			uint64_t sp, uint64_t result_slot)
{
	(void)r, (void)fn, (void)args, (void)nargs, (void)sp, (void)result_slot;
	return -ENOSYS;
}

int arch_gadget_pops(const unsigned char *p, size_t n)
{
	(void)p, (void)n;
	return -1;
}
