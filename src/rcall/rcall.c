/* SPDX-License-Identifier: BSD-2-Clause */
/* Injected calls and system calls. No code is ever written into the target.
 * Normally a call is crash-safe (rcall_safe below): it ends in rt_sigreturn
 * from a signal frame holding the thread's own state, so the thread puts
 * itself back even if jeattach dies. Where that is not possible (no
 * restorer or gadget in the target, or a thread whose syscall restarts
 * through the restart block) the call returns to ARCH_RETURN_TRAP, an
 * address below vm.mmap_min_addr: the `ret` faults there and the SIGSEGV
 * stop is caught and suppressed, and release puts the registers back. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include "errors.h"
#include "rcall_internal.h"

/* si_code of a seccomp SECCOMP_RET_TRAP SIGSYS (include/uapi/asm-generic/
 * siginfo.h); glibc's headers do not name it. */
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif

/* The held thread, or NULL. */
static struct rcall_held *held(const struct target *t)
{
	return t->rc ? t->rc->hold : NULL;
}

int rcall_crash_safe(const struct target *t)
{
	const struct rcall_held *h = held(t);
	return h && t->rc->ret_restorer && h->fpstate && h->fplen && !h->restart_block &&
	       !h->no_sigreturn;
}

const char *rcall_unsafe_why(const struct target *t)
{
	const struct rcall_held *h = held(t);
	if (!h)
		return NULL;
	/* Its mapping was made by single steps and goes the same way. */
	if (h->stack_unknown)
		return "its stack has no room known for a signal frame";
	if (rcall_crash_safe(t))
		return NULL;
	if (!t->rc->ret_restorer)
		return "libc's rt_sigreturn restorer was not found";
	if (h->restart_block)
		return "it sleeps in a call the kernel restarts through its restart block";
	if (h->no_sigreturn)
		return "its seccomp filter or its vector state rules out rt_sigreturn";
	return "its FP state could not be read";
}

int rcall_seccomp_denied(const struct target *t)
{
	const struct rcall_held *h = held(t);
	return h ? h->seccomp_nr : 0;
}

pid_t rcall_held_tid(const struct target *t)
{
	const struct rcall_held *h = held(t);
	return h ? h->tid : 0;
}

/* Whose id memory is read and written through: the held thread's while
 * one is held (a tracee is not reaped behind its tracer's back, so its id
 * cannot pass to another process meanwhile), else io_pid. */
pid_t rcall_mem_pid(const struct target *t)
{
	const struct rcall_held *h = held(t);
	return h ? h->tid : t->io_pid;
}

int rcall_read(struct target *t, uint64_t addr, void *buf, size_t len)
{
	return pt_read(rcall_mem_pid(t), addr, buf, len);
}

/* Once a call was left running, the thread's stack below its frame is the
 * call's: nothing more may be written (a new frame there overwrote the
 * running call's return address). */
static int left(const struct target *t)
{
	const struct rcall_held *h = held(t);
	return h && h->left;
}

int rcall_write(struct target *t, uint64_t addr, const void *buf, size_t len)
{
	if (left(t))
		return -JA_ERR_LEFT;
	return pt_write(rcall_mem_pid(t), addr, buf, len);
}

int rcall_read_string(struct target *t, uint64_t addr, char *buf, size_t cap)
{
	return pt_read_string(rcall_mem_pid(t), addr, buf, cap);
}

void rcall_scratch_reset(struct target *t)
{
	struct rcall_held *h = held(t);
	if (h)
		h->scratch_cur = h->scratch_hi;
}

int rcall_push(struct target *t, const void *data, size_t len, uint64_t *addr)
{
	struct rcall_held *h = held(t);
	if (!h)
		return -EINVAL;
	if (h->left)
		return -JA_ERR_LEFT;
	uint64_t a = (h->scratch_cur - len) & ~15ULL;
	/* Keep 256 bytes at the bottom for the call frame's return address. */
	if (len > RCALL_SCRATCH_SIZE || a < h->scratch_lo + 256)
		return -JA_ERR_SCRATCH;
	int e = pt_write(h->tid, a, data, len);
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

enum run_mode { RUN_CONT, RUN_STEP, RUN_SYSCALL };

/* The mask a call runs with: every signal blocked but the synchronous
 * fault signals. A fault signal forced on a thread that blocks it makes
 * the kernel reset its handler to SIG_DFL for the whole process
 * (force_sig_info_to_task: "if (blocked || ignored) ... SIG_DFL"), and the
 * calls here force some on purpose (the return trap's SIGSEGV, a single
 * step's SIGTRAP, a seccomp RET_TRAP's SIGSYS): a JVM or a sandbox would
 * lose its handler and die of its next fault. Unblocked, the signal stops
 * the thread for ptrace first, before any handler runs, and is not
 * delivered (run_until). */
#define SIGBIT(s) (1ULL << ((s) - 1))
#define CALL_SIGMASK                                                                    \
	(~0ULL & ~(SIGBIT(SIGSEGV) | SIGBIT(SIGBUS) | SIGBIT(SIGILL) | SIGBIT(SIGFPE) |   \
		   SIGBIT(SIGTRAP) | SIGBIT(SIGSYS)))

static int resume(pid_t tid, enum run_mode mode, int sig)
{
	switch (mode) {
	case RUN_STEP:
		return pt_singlestep(tid);
	case RUN_SYSCALL:
		return pt_syscall(tid, sig);
	default:
		return pt_cont(tid, sig);
	}
}

/* Leave while a crash-safe call runs (the user asked: SIGINT, SIGTERM).
 * The call ends in rt_sigreturn from a frame holding the thread's own
 * registers, FP state and mask, so the thread finishes it and restores
 * itself with no tracer; cutting it off instead would leave whatever lock
 * the callee holds (jemalloc's dump lock) taken forever. PTRACE_DETACH
 * needs a stopped tracee: interrupt, take the next stop, let go, giving a
 * signal that stop was delivering back. The scratch bytes and errno are
 * the running call's now: they are not written back. */
static int leave_call(struct target *t, pid_t tid, int stopped)
{
	struct rcall_held *h = t->rc->hold;
	int status, sig = 0;
	h->left = 1;
	if (stopped) { /* at a syscall stop of the callee: nothing to give back */
		pt_detach(tid, 0);
		goto out;
	}
	pt_interrupt(tid);
	for (;;) {
		int e = pt_wait(tid, core_now_us() + 1000000, &status);
		if (e == -ETIMEDOUT) { /* let go at its first stop, as a thread slow to stop */
			rcall_add_straggler(t, tid, NULL); /* stopped in the call, not its own */
			break;
		}
		if (e || !WIFSTOPPED(status))
			break; /* gone */
		int event = status >> 16;
		sig = WSTOPSIG(status);
		if (event == PTRACE_EVENT_STOP || sig == (SIGTRAP | 0x80))
			sig = 0; /* our interrupt, or a syscall stop: nothing to give back */
		pt_detach(tid, sig);
		break;
	}
out:
	if (h->frozen)
		return -JA_ERR_FROZEN; /* its reason says so: set by tick */
	target_reason(t, (struct ja_reason){ .kind = JA_WHY_LEFT, .tid = tid });
	return -JA_ERR_LEFT;
}

/* A fault signal stopped the injected code. 0: answered, resume without
 * it; 1: not ours (sent by kill()), pass it on; <0: the call ends. */
static int on_fault(struct target *t, int sig)
{
	struct rcall_held *h = t->rc->hold;
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	pt_get_siginfo(h->tid, &si);
	if (sig == SIGSYS && si.si_code == SYS_SECCOMP) {
		/* The target's seccomp filter trapped a syscall of the injected
		 * code (RET_TRAP). Abandoning the call here would leave whatever
		 * jemalloc holds locked (prof.dump holds its dump mutex around
		 * open()), so answer the syscall with -EPERM, as a RET_ERRNO
		 * filter would, and let the call run to its end: jemalloc
		 * handles the failure and unlocks. The kernel rolled the
		 * registers back to the syscall's return point
		 * (syscall_rollback), so only rax changes. The target's own
		 * SIGSYS handler is not run: it expects its own code, not ours. */
		if (!h->seccomp_nr)
			h->seccomp_nr = si.si_syscall;
		arch_gpregs_t r;
		int e = pt_get_gpregs(h->tid, &r);
		if (e)
			return e;
		arch_set_syscall_result(&r, -EPERM);
		return pt_set_gpregs(h->tid, &r);
	}
	/* A fault inside the call: do not deliver it (the target would die of
	 * our mistake); report it. */
	if (si.si_code > 0 || sig == SIGSYS) {
		target_reason(t, (struct ja_reason){ .kind = JA_WHY_CALL_SIGNAL, .sig = sig,
						     .addr = (uintptr_t)si.si_addr });
		return sig == SIGSYS ? -JA_ERR_SECCOMP : -JA_ERR_FAULT;
	}
	return 1;
}

/* A running call's tick (every RCALL_TICK_US, whether the thread is
 * running or stopped at one of its syscalls): tell the progress hook; 1 if
 * it asks to leave and the call can be left (RUN_SYSCALL: a crash-safe call,
 * it ends in rt_sigreturn). */
static int tick(struct target *t, enum run_mode mode, core_usec_t start, core_usec_t *next)
{
	const struct rcall_ctx *c = t->rc;
	/* RUN_SYSCALL: a crash-safe call, or one a drain hook watches (which
	 * can be left only if crash-safe). */
	int can_leave = mode == RUN_SYSCALL && rcall_crash_safe(t);
	*next = core_now_us() + RCALL_TICK_US;
	rcall_sweep(t); /* a thread passed over may have stopped meanwhile */
	/* Frozen by its cgroup since the hold began: the thread will not run
	 * the call before the thaw. A crash-safe call is left to finish then
	 * by itself; another can only be waited for. */
	char frozen[300];
	if (can_leave && target_frozen(t, frozen, sizeof(frozen))) {
		target_reason_text(t, JA_WHY_FROZEN_IN_CALL, "%s", frozen);
		t->rc->hold->frozen = 1;
		return 1;
	}
	return c->progress && c->progress(c->progress_arg, core_now_us() - start, can_leave) &&
	       can_leave;
}

/* Decides whether a stop ends the call: 1 yes, 0 no (resume), <0 error.
 * si: what PTRACE_GET_SYSCALL_INFO said at a syscall stop, else NULL. */
typedef int (*stop_check)(struct target *t, int sig, const struct __ptrace_syscall_info *si,
			  void *arg);

/* The call waits on a lock its own thread holds (rcall_selflock.c): stop
 * it where it waits (it returns there with -ERESTARTSYS, never to run on),
 * for release to put the thread back. */
static int abandon_selflock(pid_t tid)
{
	int status;
	pt_interrupt(tid);
	int e = pt_wait(tid, core_now_us() + 1000000, &status);
	if (e)
		return e == -ECHILD ? -ESRCH : e;
	return WIFSTOPPED(status) ? -JA_ERR_SELFLOCK : -ESRCH;
}

/* A syscall stop of the callee, shown to the drain hook (rcall_set_drain).
 * *pend: the hook asked, at the entry, for the result *pend_val, set here
 * at the exit stop that follows it. Registers are written only when the
 * hook changed something: a dump stops here twice a write. si: what
 * run_until read at this stop. */
static int drain_stop(struct target *t, pid_t tid, const struct __ptrace_syscall_info *si,
		      int *pend, long *pend_val)
{
	struct rcall_ctx *c = t->rc;
	int e;
	struct rcall_sysstop s = { 0 };
	arch_gpregs_t r;
	if (si->op == PTRACE_SYSCALL_INFO_EXIT) {
		s.ret = (long)si->exit.rval;
		c->drain(c->drain_arg, &s);
		if (!*pend)
			return 0;
		*pend = 0;
		if ((e = pt_get_gpregs(tid, &r)))
			return e;
		arch_set_syscall_result(&r, *pend_val);
		return pt_set_gpregs(tid, &r);
	}
	if (si->op != PTRACE_SYSCALL_INFO_ENTRY)
		return 0;
	s.entry = 1;
	s.nr = (long)si->entry.nr;
	memcpy(s.args, si->entry.args, sizeof(s.args));
	c->drain(c->drain_arg, &s);
	*pend = s.set_result;
	*pend_val = s.result;
	if (!s.args_changed)
		return 0;
	if ((e = pt_get_gpregs(tid, &r)))
		return e;
	for (int i = 0; i < 6; i++)
		arch_set_syscall_arg(&r, i, s.args[i]);
	return pt_set_gpregs(tid, &r);
}


/* Run the thread from regs until check says the call is over. Every signal
 * the thread would have is blocked meanwhile (a signal meant for it stays
 * pending with its siginfo; the mask comes back at release, or from the
 * signal frame of a crash-safe call). */
static int run_until(struct target *t, const arch_gpregs_t *regs, enum run_mode mode,
		     stop_check check, void *arg)
{
	struct rcall_ctx *c = t->rc;
	struct rcall_held *h = c->hold;
	pid_t tid = h->tid;
	/* No deadline here: --timeout bounded finding the thread (rcall_hold);
	 * a call that has started runs to its end, however long it takes. */
	if (h->left)
		return -JA_ERR_LEFT;
	core_usec_t start = core_now_us(), next_tick = start + RCALL_TICK_US, next_drain = start;
	int abandoned = 0, pend = 0;
	long pend_val = 0;
	h->dirty = 1;
	h->ran = 1;
	/* Registers first: killed between the two writes, jeattach leaves a
	 * call running with the thread's own mask (a crash-safe call's frame
	 * puts everything back), never the thread's own code with every
	 * signal blocked for good. */
	int e = pt_set_gpregs(tid, regs);
	if (!e)
		e = pt_set_sigmask(tid, CALL_SIGMASK);
	if (e)
		return e;
	e = resume(tid, mode, 0);
	for (;;) {
		if (e)
			return e;
		int status;
		/* A drain hook wakes every RCALL_DRAIN_TICK_US (cheap: no
		 * /proc read, unlike a tick). */
		if (c->drain && next_drain <= core_now_us())
			next_drain = core_now_us() + RCALL_DRAIN_TICK_US;
		e = pt_wait(tid, c->drain && next_drain < next_tick ? next_drain : next_tick, &status);
		if (e == -ETIMEDOUT) { /* still running */
			const int due = core_now_us() >= next_tick;
			/* A call that returns through the trap makes no
			 * syscall stops: a wait on its own lock is seen here. */
			if (due && mode == RUN_CONT && rcall_selflock_blocked(t, tid))
				return abandon_selflock(tid);
			if (c->drain)
				c->drain(c->drain_arg, NULL);
			if (due && tick(t, mode, start, &next_tick))
				return leave_call(t, tid, 0);
			e = 0;
			continue;
		}
		if (e == -ECHILD) {
			/* No longer our tracee, with no exit reported: a held
			 * leader that another thread's execve released
			 * (de_thread; target_fate.c). */
			target_thread_ended(t, -1);
			return -ESRCH;
		}
		if (e)
			return e;
		if (!WIFSTOPPED(status)) {
			/* The thread, or the whole target, is gone: how is the
			 * story the message tells (target_fate). */
			target_thread_ended(t, status);
			return -ESRCH;
		}
		int sig = WSTOPSIG(status), event = status >> 16;
		if (event == PTRACE_EVENT_STOP) {
			/* A group-stop began (someone sent SIGSTOP) or a late
			 * interrupt: finish the call first; detach later leaves
			 * the thread in the group stop. */
			if (sig != SIGTRAP)
				h->group_stop = 1;
			e = resume(tid, mode, 0);
			continue;
		}
		if (event) { /* no other events are enabled; pass through */
			e = resume(tid, mode, 0);
			continue;
		}
		struct __ptrace_syscall_info si, *sip = NULL;
		if (sig == (SIGTRAP | 0x80)) {
			if ((e = pt_get_syscall_info(tid, &si, sizeof(si))))
				return e;
			sip = &si;
			/* The rt_sigreturn the abandoned call was turned into
			 * has put the thread back. */
			if (abandoned && si.op == PTRACE_SYSCALL_INFO_EXIT) {
				h->dirty = 0;
				return -JA_ERR_SELFLOCK;
			}
			/* A crash-safe call's wait becomes, at its entry, the
			 * rt_sigreturn of the call's own frame: the thread is put
			 * back with jeattach or without (killed here, it left the
			 * thread waiting on itself for ever). Never skipped with
			 * number -1: seccomp judges the number the tracer leaves,
			 * and an allowlist kills the process on -1 (rt_sigreturn
			 * it allows, or the hold would not be crash-safe). */
			if (si.op == PTRACE_SYSCALL_INFO_ENTRY && !abandoned &&
			    rcall_selflock(t, tid, (long)si.entry.nr, (const uint64_t *)si.entry.args)) {
				if (mode != RUN_SYSCALL || !h->restorer_sp)
					return -JA_ERR_SELFLOCK;
				arch_gpregs_t now;
				if ((e = pt_get_gpregs(tid, &now)))
					return e;
				arch_enter_sigreturn(&now, h->restorer_sp);
				if ((e = pt_set_gpregs(tid, &now)))
					return e;
				abandoned = 1;
				e = resume(tid, mode, 0);
				continue;
			}
		}
		int done = check(t, sig, sip, arg);
		if (done < 0)
			return done;
		if (done)
			return 0;
		if (sip && c->drain && (e = drain_stop(t, tid, sip, &pend, &pend_val)))
			return e;
		if (sig == (SIGTRAP | 0x80)) { /* another syscall of the callee */
			/* A dump's writes stop here every few milliseconds: the
			 * tick must come between them too. */
			if (core_now_us() >= next_tick && tick(t, mode, start, &next_tick))
				return leave_call(t, tid, 1);
			e = resume(tid, mode, 0);
			continue;
		}
		if (is_fault_signal(sig) && (e = on_fault(t, sig)) <= 0) {
			if (e < 0)
				return e;
			e = resume(tid, mode, 0); /* answered: the call goes on */
			continue;
		}
		/* SIGSTOP cannot be blocked: let it take effect now; the group
		 * stop that follows is handled above. Anything else sent by
		 * kill() while masked cannot reach us; pass it on regardless. */
		e = resume(tid, mode, sig);
	}
}

/* The return trap: a stop with sig at pc. */
struct trap_goal {
	int sig;
	uint64_t pc;
	arch_gpregs_t *out;
};

static int at_trap(struct target *t, int sig, const struct __ptrace_syscall_info *si, void *arg)
{
	(void)si;
	struct trap_goal *g = arg;
	if (sig != g->sig)
		return 0;
	int e = pt_get_gpregs(t->rc->hold->tid, g->out);
	if (e)
		return e;
	return arch_pc(g->out) == g->pc;
}

/* A crash-safe call is over when its rt_sigreturn, entered at our
 * restorer, has returned: the kernel has then put the thread back. */
struct ret_goal {
	uint64_t slot;
	uint64_t *result;
	int entered;
};

static int at_sigreturn(struct target *t, int sig, const struct __ptrace_syscall_info *si,
			void *arg)
{
	struct ret_goal *g = arg;
	if (!si)
		return 0;
	if (si->op == PTRACE_SYSCALL_INFO_ENTRY && si->entry.nr == ARCH_NR_RT_SIGRETURN &&
	    si->instruction_pointer == t->rc->ret_restorer + ARCH_RESTORER_LEN) {
		g->entered = 1;
		if (ARCH_RESULT_AT_SIGRETURN) { /* the restorer left the result alone */
			*g->result = si->entry.args[0];
			return 0;
		}
		/* the gadget has stored the result: read it now */
		return pt_read(rcall_mem_pid(t), g->slot, g->result, sizeof(*g->result)) ?: 0;
	}
	(void)sig;
	return si->op == PTRACE_SYSCALL_INFO_EXIT && g->entered;
}

/* The crash-safe call. Stack, from rsp up: the gadget's address (the
 * callee's return address), junk slots for the gadget's pops (stack
 * arguments beyond the sixth go there), then an rt_sigframe whose pretcode
 * is the restorer, with the thread's original state. The callee returns
 * into the gadget, which stores rax at [rbx] (the result slot) and returns
 * into the restorer: rt_sigreturn restores registers, FP state and signal
 * mask from the frame. If jeattach dies anywhere in this, the kernel
 * detaches and the thread still finishes the call and restores itself. */
static int rcall_safe(struct target *t, uint64_t fn, const uint64_t *args, int nargs,
		      uint64_t *ret)
{
	struct rcall_ctx *c = t->rc;
	struct rcall_held *h = c->hold;
	if (h->left)
		return -JA_ERR_LEFT;
	int stack_args = nargs > ARCH_MAX_CALL_ARGS ? nargs - ARCH_MAX_CALL_ARGS : 0;
	if (stack_args > c->ret_gadget_pops)
		return -E2BIG;
	uint64_t slot, zero = 0;
	int e = rcall_push(t, &zero, sizeof(zero), &slot);
	if (e)
		return e;
	/* As deep as a signal's frame would be, no deeper (arch_frame.c). */
	size_t fplen = arch_sigframe_fplen(h->fpstate, h->fplen);
	size_t fsz = arch_sigframe_size(fplen);
	uint64_t frame = (h->scratch_cur - fsz) & ~(uint64_t)15;
	/* Below the frame, where a gadget returns through: its address and
	 * its pops' slots; nothing where the callee returns into the restorer
	 * itself (ARCH_RESULT_AT_SIGRETURN). */
	int words = c->ret_gadget ? 1 + c->ret_gadget_pops : 0;
	uint64_t sp = frame - 8 * (uint64_t)words;
	while (!arch_ret_sp_aligned(sp)) {
		frame -= 8;
		sp -= 8;
	}
	if (sp < h->scratch_lo + 64)
		return -JA_ERR_SCRATCH;
	size_t len = (size_t)(frame + fsz - sp);
	unsigned char *buf = calloc(1, len);
	if (!buf)
		return -ENOMEM;
	if (words)
		memcpy(buf, &c->ret_gadget, 8);
	for (int i = 0; i < stack_args; i++)
		memcpy(buf + 8 + 8 * i, &args[ARCH_MAX_CALL_ARGS + i], 8);
	arch_gpregs_t back = h->regs, r = h->regs;
	/* A call to be re-made at release goes in the frame as the call
	 * itself with the program's own arguments (not restart_syscall, whose
	 * restart block rt_sigreturn resets): a jeattach that dies leaves the
	 * thread making it again, its timeout whole (rcall_wait.c). */
	uint64_t copy[6];
	size_t copylen = 0;
	if (h->reissue.nr) {
		rcall_wait_reissue_regs(h, &back);
		copylen = rcall_wait_frame_copy(h, &back, frame + arch_sigframe_spare(), copy);
	} else {
		arch_rewind_for_sigreturn(&back);
	}
	e = arch_sigframe_build(buf + (frame - sp), fsz, frame, &back, h->fpstate, fplen,
				h->sigmask, c->ret_restorer);
	if (!e && copylen)
		memcpy(buf + (frame - sp) + arch_sigframe_spare(), copy, copylen);
	if (!e)
		e = pt_write(rcall_mem_pid(t), sp, buf, len);
	free(buf);
	if (!e)
		e = arch_call_setup_ret(&r, fn, args, nargs < ARCH_MAX_CALL_ARGS ? nargs
										  : ARCH_MAX_CALL_ARGS,
					sp, slot, c->ret_restorer);
	if (e)
		return e;
	h->seccomp_nr = 0;
	struct ret_goal g = { slot, ret, 0 };
	h->restorer_sp = frame + ARCH_RESTORER_SP_OFF;
	e = run_until(t, &r, RUN_SYSCALL, at_sigreturn, &g);
	h->restorer_sp = 0;
	if (!e)
		h->dirty = 0; /* the kernel restored everything from the frame */
	return e;
}

int rcall(struct target *t, uint64_t fn, const uint64_t *args, int nargs, uint64_t *ret)
{
	struct rcall_held *h = held(t);
	if (!h)
		return -EINVAL;
	if (rcall_crash_safe(t))
		return rcall_safe(t, fn, args, nargs, ret);
	arch_gpregs_t r = h->regs, out;
	struct arch_stack_write w;
	/* The callee's frame starts below every pushed scratch object. */
	int e = arch_call_setup(&r, fn, args, nargs, h->scratch_cur - 16, ARCH_RETURN_TRAP, &w);
	if (e)
		return e;
	if (w.present && (w.addr < h->scratch_lo || (e = pt_write(rcall_mem_pid(t), w.addr, &w.value, 8))))
		return e ? e : -JA_ERR_SCRATCH;
	h->seccomp_nr = 0;
	struct trap_goal g = { SIGSEGV, ARCH_RETURN_TRAP, &out };
	/* A drain hook sees the callee's system calls: PTRACE_SYSCALL. */
	e = run_until(t, &r, t->rc->drain ? RUN_SYSCALL : RUN_CONT, at_trap, &g);
	if (e)
		return e;
	*ret = arch_call_result(&out);
	return 0;
}

int rcall_syscall_crash_safe(const struct target *t, int nargs)
{
	const struct rcall_held *h = held(t);
	return h && rcall_crash_safe(t) && h->errno_addr && t->rc->syscall_fn &&
	       !(h->stack_unknown && h->scratch_on_stack) &&
	       nargs + 1 <= ARCH_MAX_CALL_ARGS + t->rc->ret_gadget_pops;
}

int rcall_syscall(struct target *t, long nr, const uint64_t *args, int nargs, long *ret)
{
	struct rcall_held *h = held(t);
	const struct rcall_ctx *c = t->rc;
	if (!h || !c->syscall_insn)
		return -EINVAL;
	if (rcall_syscall_crash_safe(t, nargs)) {
		/* Crash-safe: libc's syscall(nr, args...), errno for the error. */
		uint64_t a[ARCH_MAX_CALL_ARGS + 1] = { (uint64_t)nr }, r;
		for (int i = 0; i < nargs && i < ARCH_MAX_CALL_ARGS; i++)
			a[i + 1] = args[i];
		int e = rcall_safe(t, c->syscall_fn, a, nargs + 1, &r);
		if (e)
			return e;
		*ret = (long)r;
		if (*ret == -1) {
			int err = 0;
			if ((e = pt_read(rcall_mem_pid(t), h->errno_addr, &err, sizeof(err))))
				return e;
			*ret = -err;
		}
		return 0;
	}
	arch_gpregs_t r = h->regs, out;
	int e = arch_syscall_setup(&r, c->syscall_insn, nr, args, nargs);
	if (e)
		return e;
	h->seccomp_nr = 0;
	const int was_dirty = h->dirty;
	/* One single-step over the `syscall` instruction: the SIGTRAP stop
	 * comes right after it, at the next byte. */
	struct trap_goal g = { SIGTRAP, c->syscall_insn + ARCH_SYSCALL_INSN_LEN, &out };
	e = run_until(t, &r, RUN_STEP, at_trap, &g);
	if (e)
		return e;
	*ret = arch_syscall_result(&out);
	/* A step in a crash-safe hold (rcall_scratch.c: a stack of unknown
	 * room): the thread's own registers and mask go back at once, so that
	 * a jeattach that dies later leaves it as found. */
	if (rcall_crash_safe(t) && !was_dirty) {
		if ((e = pt_set_gpregs(h->tid, &h->regs)) || (e = pt_set_sigmask(h->tid, h->sigmask)))
			return e;
		h->dirty = 0;
	}
	return 0;
}
