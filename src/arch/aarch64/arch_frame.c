/* SPDX-License-Identifier: BSD-2-Clause */
/* aarch64: an interrupted system call's restart, and the crash-safe return:
 * the callee returns (x30) straight into the vDSO's rt_sigreturn trampoline
 * with sp on a signal frame holding the thread's state, so the kernel puts
 * the thread back even if jeattach is gone. No result-storing gadget is
 * needed, unlike x86_64: the trampoline (mov x8, #139; svc #0) leaves x0
 * alone, so the callee's result is the syscall's first argument at
 * rt_sigreturn's entry stop (ARCH_RESULT_AT_SIGRETURN). */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <asm/sigcontext.h>
#include "arch.h"
#include "kernel_restart.h"

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
	/* As do_signal left it (forget_syscall): a stale number would make a
	 * later signal's do_signal take the thread's x0 for a restart code. */
	r->syscallno = -1;
}

/* The -ERESTART* code system call nr, made with args, returns when a signal
 * breaks it (what x86_64 keeps in rax, and strace shows there), as a
 * positive errno. They differ once a handler runs (signal(7), do_signal's
 * switch): -ERESTARTSYS restarts only under SA_RESTART, -ERESTARTNOHAND and
 * -ERESTART_RESTARTBLOCK never, -ERESTARTNOINTR always.
 * - RESTARTBLOCK: nanosleep and a relative clock_nanosleep
 *   (hrtimer_nanosleep), a futex wait with a timeout (futex_wait), and
 *   restart_syscall itself;
 * - NOHAND: an absolute clock_nanosleep (TIMER_ABSTIME), ppoll and pselect6
 *   (do_poll, core_sys_select: glibc's poll, select and pause all come here
 *   on arm64, which has no poll, select or pause), rt_sigsuspend, msgrcv
 *   and msgsnd (ipc/msg.c);
 * - NOINTR: a PI lock (futex_lock_pi: "ret != -EINTR ? ret :
 *   -ERESTARTNOINTR"; glibc's PI mutexes never expect EINTR);
 * - SYS: the rest (reads, writes, waits, futex waits without a timeout).
 * Measured on x86_64 with strace (ppoll, clock_nanosleep, msgrcv,
 * FUTEX_LOCK_PI), the same generic code as arm64's. */
#define NR_PSELECT6 72
#define NR_PPOLL 73
#define NR_FUTEX 98
#define NR_NANOSLEEP 101
#define NR_CLOCK_NANOSLEEP 115
#define NR_RT_SIGSUSPEND 133
#define NR_MSGRCV 188
#define NR_MSGSND 189
static int restart_code(long nr, const uint64_t *args)
{
	unsigned cmd = (unsigned)args[1] & ~(128u | 256u); /* FUTEX_CMD_MASK */
	switch (nr) {
	case NR_NANOSLEEP:
	case NR_RESTART_SYSCALL:
		return ERESTART_RESTARTBLOCK;
	case NR_CLOCK_NANOSLEEP:
		return args[1] & 1 ? ERESTARTNOHAND : ERESTART_RESTARTBLOCK; /* TIMER_ABSTIME */
	case NR_PSELECT6:
	case NR_PPOLL:
	case NR_RT_SIGSUSPEND:
	case NR_MSGRCV:
	case NR_MSGSND:
		return ERESTARTNOHAND;
	case NR_FUTEX:
		if (cmd == 6 || cmd == 13) /* FUTEX_LOCK_PI, FUTEX_LOCK_PI2 */
			return ERESTARTNOINTR;
		/* FUTEX_WAIT, FUTEX_WAIT_BITSET */
		return (cmd == 0 || cmd == 9) && args[3] ? ERESTART_RESTARTBLOCK : ERESTARTSYS;
	default:
		return ERESTARTSYS;
	}
}

void arch_at_interrupt_stop(arch_gpregs_t *r, const struct arch_blocked_call *b)
{
	/* do_signal (arch/arm64/kernel/signal.c) has already run its first
	 * half when the thread stops in get_signal: syscallno is -1
	 * (forget_syscall) and, for -ERESTART*, x0 = orig_x0 and pc is back on
	 * the svc ("so that a debugger will see the already changed PC"); the
	 * code itself is gone. Which happened shows against the call the
	 * thread was blocked in a moment before (x8 keeps its number). */
	if (!b->valid || r->syscallno >= 0 || r->g.regs[8] != (uint64_t)b->nr)
		return;
	if (r->g.pc == b->pc) {
		/* It returned: x0 is its result (-EINTR for a wait the
		 * interrupt broke: rcall_stop.c undoes that). */
		r->syscallno = (int32_t)b->nr;
		r->orig_x0 = b->args[0];
	} else if (r->g.pc == b->pc - ARCH_SYSCALL_INSN_LEN && r->g.regs[0] == b->args[0]) {
		/* Rewound for a restart. Which code it was follows from the call
		 * (restart_code). The one guess: a thread whose call ended by
		 * itself and that was stopped about to make it again with the
		 * same x0 reads as this. */
		r->syscallno = (int32_t)b->nr;
		r->orig_x0 = b->args[0];
		r->g.pc = b->pc;
		r->g.regs[0] = (uint64_t)-restart_code(b->nr, b->args);
	}
}

void arch_syscall_interrupted(arch_gpregs_t *r, long code)
{
	/* do_signal (arch/arm64/kernel/signal.c) reads the restart code into
	 * a local and rewinds before get_signal, where a ptrace stop is: a
	 * code written at the stop is never seen. The call stays rewound; the
	 * EINTR a handler would make is decided at release instead
	 * (rcall_signal.c). */
	(void)r, (void)code;
}


int arch_restarts_by_block(const arch_gpregs_t *r)
{
	return r->syscallno >= 0 && (long)r->g.regs[0] == -ERESTART_RESTARTBLOCK;
}

/* The signal frame rt_sigreturn reads (arch/arm64/kernel/signal.c:
 * rt_sigreturn, restore_sigframe, parse_user_sigframe): struct rt_sigframe
 * { siginfo; ucontext } at sp, 16-byte aligned; the ucontext as the uapi
 * has it (asm/ucontext.h), with the kernel's 8-byte sigset_t and glibc's
 * 1024-bit room after it, written out here because glibc's sigset_t is not
 * the kernel's; in uc_mcontext.__reserved, an fpsimd_context record (the
 * kernel refuses a frame without one) and the terminator. */
struct k_ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	struct {
		uint64_t ss_sp;
		int32_t ss_flags;
		int32_t pad;
		uint64_t ss_size;
	} uc_stack;
	uint64_t uc_sigmask;
	uint8_t unused[128 - 8];
	struct sigcontext uc_mcontext;
};

struct k_rt_sigframe {
	unsigned char info[128]; /* siginfo: rt_sigreturn does not read it */
	struct k_ucontext uc;
};

_Static_assert(offsetof(struct k_rt_sigframe, uc.uc_mcontext) == 304, "rt_sigframe layout");
_Static_assert(offsetof(struct sigcontext, __reserved) == 288, "sigcontext layout");
_Static_assert(sizeof(struct fpsimd_context) == 528, "fpsimd_context");

/* The thread's FPSIMD state within what pt_get_fpstate read: the note it
 * came from, then its bytes (pt.c). NULL when the thread's vector state is
 * live SVE (the Z registers' upper bits, which an fpsimd_context record
 * cannot carry; the frame would need an sve_context, not built yet). */
static const struct user_fpsimd_state *fpsimd_of(const void *fp, size_t fplen)
{
	const unsigned char *b = fp;
	int note;
	if (fplen < 8)
		return NULL;
	memcpy(&note, b, sizeof(note));
	b += 8, fplen -= 8;
	if (note == NT_PRFPREG)
		return fplen >= sizeof(struct user_fpsimd_state) ? (const void *)b : NULL;
	if (note != NT_ARM_SVE || fplen < SVE_PT_FPSIMD_OFFSET + sizeof(struct user_fpsimd_state))
		return NULL;
	struct user_sve_header h;
	memcpy(&h, b, sizeof(h));
	if ((h.flags & SVE_PT_REGS_MASK) != SVE_PT_REGS_FPSIMD)
		return NULL;
	return (const void *)(b + SVE_PT_FPSIMD_OFFSET);
}

int arch_sigframe_possible(const void *fp, size_t fplen)
{
	return fpsimd_of(fp, fplen) != NULL;
}

void arch_frame_prepare(void)
{
	/* Nothing to ask: the frame's layout is fixed (struct rt_sigframe). */
}

size_t arch_sigframe_fplen(const void *fp, size_t fplen)
{
	(void)fp;
	return fplen;
}

size_t arch_sigframe_size(size_t fplen)
{
	(void)fplen; /* the FP state goes inside the frame's reserved area */
	return (sizeof(struct k_rt_sigframe) + 15) & ~(size_t)15;
}

int arch_sigframe_build(unsigned char *buf, size_t len, uint64_t frame_addr,
			const arch_gpregs_t *r, const void *fp, size_t fplen, uint64_t sigmask,
			uint64_t restorer)
{
	const struct user_fpsimd_state *v = fpsimd_of(fp, fplen);
	if (len < arch_sigframe_size(fplen) || !v || frame_addr % 16)
		return -EINVAL;
	(void)restorer; /* the link register's, set with the call */
	static struct k_rt_sigframe f;
	memset(&f, 0, sizeof(f));
	/* restore_altstack() ignores every error but EFAULT (kernel/signal.c),
	 * and do_sigaltstack() rejects an unknown mode with EINVAL before
	 * changing anything: the thread's alternate stack stays as it is. */
	f.uc.uc_stack.ss_flags = 0x7fff;
	f.uc.uc_sigmask = sigmask;
	struct sigcontext *sc = &f.uc.uc_mcontext;
	memcpy(sc->regs, r->g.regs, sizeof(sc->regs));
	sc->sp = r->g.sp;
	sc->pc = r->g.pc;
	sc->pstate = r->g.pstate;
	struct fpsimd_context fc;
	memset(&fc, 0, sizeof(fc));
	fc.head.magic = FPSIMD_MAGIC;
	fc.head.size = sizeof(fc);
	fc.fpsr = v->fpsr;
	fc.fpcr = v->fpcr;
	memcpy(fc.vregs, v->vregs, sizeof(fc.vregs));
	memcpy(sc->__reserved, &fc, sizeof(fc)); /* then zeros: the terminator */
	memset(buf, 0, len);
	memcpy(buf, &f, sizeof(f));
	return 0;
}

int arch_ret_sp_aligned(uint64_t sp)
{
	return sp % ARCH_STACK_ALIGN == 0; /* rt_sigreturn refuses sp & 15 */
}

int arch_call_setup_ret(arch_gpregs_t *r, uint64_t fn, const uint64_t *args, int nargs,
			uint64_t sp, uint64_t result_slot, uint64_t restorer)
{
	struct arch_stack_write w;
	(void)result_slot; /* the result is x0 at rt_sigreturn's entry */
	/* The callee returns to the restorer with sp as at its entry: the
	 * frame. */
	return arch_call_setup(r, fn, args, nargs, sp, restorer, &w);
}

int arch_gadget_pops(const unsigned char *p, size_t n)
{
	(void)p, (void)n;
	return -1;
}

uint64_t arch_rewound_arg(const arch_gpregs_t *r, int i)
{
	/* Rewound, x0 holds argument 0 again (arch_syscall_rewind). */
	return i >= 0 && i < 8 ? r->g.regs[i] : 0;
}

void arch_set_rewound_arg(arch_gpregs_t *r, int i, uint64_t v)
{
	if (i >= 0 && i < 8)
		r->g.regs[i] = v;
	if (!i)
		r->orig_x0 = v;
}

size_t arch_sigframe_spare(void)
{
	return offsetof(struct k_rt_sigframe, info);
}
