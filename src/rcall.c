/* SPDX-License-Identifier: BSD-2-Clause */
/* Injected calls. The call returns to ARCH_RETURN_TRAP, an address below
 * vm.mmap_min_addr: the `ret` faults there and the kernel reports a SIGSEGV
 * signal-delivery-stop with that pc, which we catch and suppress. No code is
 * written into the target, so no other thread can ever run a breakpoint. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "rcall.h"
#include "rcall_internal.h"

/* How long a started call may run past --timeout before it is abandoned. */
#define CALL_GRACE_US 1000000

/* si_code of a seccomp SECCOMP_RET_TRAP SIGSYS (include/uapi/asm-generic/
 * siginfo.h); glibc's headers do not name it. */
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif

int rcall_fault_signal(const struct target *t)
{
	return t->hold ? t->hold->fault_sig : 0;
}

int rcall_seccomp_denied(const struct target *t)
{
	return t->hold ? t->hold->seccomp_nr : 0;
}

pid_t rcall_held_tid(const struct target *t)
{
	return t->hold ? t->hold->tid : 0;
}

void rcall_scratch_reset(struct target *t)
{
	if (t->hold)
		t->hold->scratch_cur = t->hold->scratch_hi;
}

int rcall_push(struct target *t, const void *data, size_t len, uint64_t *addr)
{
	struct target_hold_state *h = t->hold;
	if (!h)
		return -EINVAL;
	uint64_t a = (h->scratch_cur - len) & ~15ULL;
	/* Keep 256 bytes at the bottom for the call frame's return address. */
	if (len > RCALL_SCRATCH_SIZE || a < h->scratch_lo + 256)
		return -ENOSPC;
	int e = pt_write(t->pid, a, data, len);
	if (e)
		return e;
	h->scratch_cur = a;
	*addr = a;
	return 0;
}

int rcall_push_string(struct target *t, const char *s, uint64_t *addr)
{
	return rcall_push(t, s, strlen(s) + 1, addr);
}

static int is_fault_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	       sig == SIGSYS || sig == SIGTRAP || sig == SIGABRT;
}

/* Run the thread from regs until it stops with expect_sig at expect_pc.
 * Returns 0 with *out the registers at that stop. */
static int run_until(struct target *t, const arch_gpregs_t *regs, int step, int expect_sig,
		     uint64_t expect_pc, arch_gpregs_t *out)
{
	struct target_hold_state *h = t->hold;
	pid_t tid = h->tid;
	/* Never start a call after the deadline: one that is started is
	 * given at least CALL_GRACE_US to finish, because abandoning it midway
	 * could leave a jemalloc lock held by this thread forever. */
	pt_usec_t now = pt_now_us();
	if (now >= t->deadline) {
		target_why(t, "the timeout passed before the call could start");
		return -ETIMEDOUT;
	}
	pt_usec_t until = t->deadline > now + CALL_GRACE_US ? t->deadline : now + CALL_GRACE_US;
	int e = pt_set_gpregs(tid, regs);
	if (e)
		return e;
	e = step ? pt_singlestep(tid) : pt_cont(tid, 0);
	for (;;) {
		if (e)
			return e;
		int status;
		e = pt_wait(tid, until, &status);
		if (e == -ETIMEDOUT) {
			/* Stuck (a lock held elsewhere forever?): stop it so that
			 * release can put the original state back. */
			pt_interrupt(tid);
			int st2;
			if (pt_wait(tid, pt_now_us() + 1000000, &st2) == 0 && !WIFSTOPPED(st2))
				return -ESRCH;
			target_why(t, "the injected call did not return in time and was abandoned "
				      "(a lock it took may stay held; jemalloc's dump lock, if so)");
			return -ETIMEDOUT;
		}
		if (e)
			return e == -ECHILD ? -ESRCH : e;
		if (!WIFSTOPPED(status))
			return -ESRCH; /* the thread, or the whole target, is gone */
		int sig = WSTOPSIG(status), event = status >> 16;
		if (event == PTRACE_EVENT_STOP) {
			/* A group-stop began (someone sent SIGSTOP) or a late
			 * interrupt: finish the call first; detach later leaves
			 * the thread in the group stop. */
			if (sig != SIGTRAP)
				h->group_stop = 1;
			e = pt_cont(tid, 0);
			continue;
		}
		if (event) { /* no other events are enabled; pass through */
			e = step ? pt_singlestep(tid) : pt_cont(tid, 0);
			continue;
		}
		if (sig == expect_sig) {
			e = pt_get_gpregs(tid, out);
			if (e)
				return e;
			if (arch_pc(out) == expect_pc)
				return 0;
		}
		if (is_fault_signal(sig)) {
			siginfo_t si;
			memset(&si, 0, sizeof(si));
			pt_get_siginfo(tid, &si);
			if (sig == SIGSYS && si.si_code == SYS_SECCOMP) {
				/* The target's seccomp filter trapped a syscall of
				 * the injected code (RET_TRAP). Abandoning the call
				 * here would leave whatever jemalloc holds locked
				 * (prof.dump holds its dump mutex around open()), so
				 * answer the syscall with -EPERM, as a RET_ERRNO
				 * filter would, and let the call run to its end:
				 * jemalloc handles the failure and unlocks. The
				 * kernel rolled the registers back to the syscall's
				 * return point (syscall_rollback), so only rax
				 * changes. The target's own SIGSYS handler is not
				 * run: it expects its own code, not ours. */
				if (!h->seccomp_nr)
					h->seccomp_nr = si.si_syscall;
				arch_gpregs_t r;
				if ((e = pt_get_gpregs(tid, &r)))
					return e;
				arch_set_syscall_result(&r, -EPERM);
				if ((e = pt_set_gpregs(tid, &r)))
					return e;
				e = step ? pt_singlestep(tid) : pt_cont(tid, 0);
				continue;
			}
			/* A fault inside the call: do not deliver it (the target
			 * would die of our mistake); report it. */
			if (si.si_code > 0 || sig == SIGSYS) {
				h->fault_sig = sig;
				target_why(t, "the injected call got signal %d (%s) at %#llx", sig,
					   strsignal(sig), (unsigned long long)(uintptr_t)si.si_addr);
				return -ECANCELED;
			}
		}
		/* SIGSTOP cannot be blocked: let it take effect now; the group
		 * stop that follows is handled above. Anything else sent by
		 * kill() while masked cannot reach us; pass it on regardless. */
		e = step ? pt_singlestep(tid) : pt_cont(tid, sig);
	}
}

int rcall(struct target *t, uint64_t fn, const uint64_t *args, int nargs, uint64_t *ret)
{
	struct target_hold_state *h = t->hold;
	if (!h)
		return -EINVAL;
	arch_gpregs_t r = h->regs, out;
	struct arch_stack_write w;
	/* The callee's frame starts below every pushed scratch object. */
	int e = arch_call_setup(&r, fn, args, nargs, h->scratch_cur - 16, ARCH_RETURN_TRAP, &w);
	if (e)
		return e;
	if (w.present && (w.addr < h->scratch_lo || (e = pt_write(t->pid, w.addr, &w.value, 8))))
		return e ? e : -ENOSPC;
	h->fault_sig = 0;
	h->seccomp_nr = 0;
	e = run_until(t, &r, 0, SIGSEGV, ARCH_RETURN_TRAP, &out);
	if (e)
		return e;
	*ret = arch_call_result(&out);
	return 0;
}

int rcall_syscall(struct target *t, long nr, const uint64_t *args, int nargs, long *ret)
{
	struct target_hold_state *h = t->hold;
	if (!h || !t->syscall_insn)
		return -EINVAL;
	arch_gpregs_t r = h->regs, out;
	int e = arch_syscall_setup(&r, t->syscall_insn, nr, args, nargs);
	if (e)
		return e;
	h->fault_sig = 0;
	h->seccomp_nr = 0;
	/* One single-step over the `syscall` instruction: the SIGTRAP stop
	 * comes right after it, at the next byte. */
	e = run_until(t, &r, 1, SIGTRAP, t->syscall_insn + ARCH_SYSCALL_INSN_LEN, &out);
	if (e)
		return e;
	*ret = arch_syscall_result(&out);
	return 0;
}
