/* SPDX-License-Identifier: BSD-2-Clause */
/* x86_64 System V ABI for injected calls and system calls. Pure functions
 * over struct user_regs_struct; the caller does all ptrace work. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include "arch.h"

/* Flags register bit 10: direction flag. The ABI requires DF clear at
 * function entry; an interrupted `rep movs` with DF set must not leak in. */
#define X86_EFLAGS_DF 0x400UL
/* Trap flag: never let a single-step setting of the interrupted state leak
 * into the injected call. */
#define X86_EFLAGS_TF 0x100UL
#define X86_CS_COMPAT32 0x23

const struct arch_regset arch_regsets[] = {
	{ NT_PRSTATUS, 0, sizeof(struct user_regs_struct), 1, 0 },
};
const int arch_nregsets = 1;

uint64_t arch_pc(const arch_gpregs_t *r)
{
	return r->rip;
}

void arch_regs_seen(arch_gpregs_t *r, uint64_t sp, uint64_t pc)
{
	memset(r, 0, sizeof(*r));
	r->rsp = sp;
	r->rip = pc;
}

void arch_regs_from_sample(arch_gpregs_t *r, const uint64_t *s)
{
	/* rbx rbp r12 r13 r14 r15 sp pc (src/arch/x86_64/sampler_entry.S) */
	memset(r, 0, sizeof(*r));
	r->rbx = s[0];
	r->rbp = s[1];
	r->r12 = s[2];
	r->r13 = s[3];
	r->r14 = s[4];
	r->r15 = s[5];
	r->rsp = s[6];
	r->rip = s[7];
}

uint64_t arch_sp(const arch_gpregs_t *r)
{
	return r->rsp;
}

uint64_t arch_thread_pointer(const arch_gpregs_t *r)
{
	return r->fs_base;
}

int arch_in_syscall(const arch_gpregs_t *r)
{
	return (long)r->orig_rax >= 0;
}

long arch_syscall_nr(const arch_gpregs_t *r)
{
	return (long)r->orig_rax;
}

long arch_syscall_nr_register(const arch_gpregs_t *r)
{
	return (long)r->orig_rax;
}

long arch_syscall_nr_next(const arch_gpregs_t *r)
{
	return (long)r->rax;
}

void arch_syscall_rewind(arch_gpregs_t *r)
{
	/* As the kernel's own restart path: rax = orig_rax, back over the
	 * two-byte `syscall` instruction. */
	r->rax = r->orig_rax;
	r->rip -= ARCH_SYSCALL_INSN_LEN;
}

void arch_set_syscall_result(arch_gpregs_t *r, long ret)
{
	r->rax = (unsigned long long)ret;
	r->orig_rax = (unsigned long long)-1; /* nothing left to restart */
}

long arch_syscall_ret(const arch_gpregs_t *r)
{
	return (long)r->rax;
}

int arch_is_compat(const arch_gpregs_t *r)
{
	return r->cs == X86_CS_COMPAT32;
}

void arch_at_interrupt_stop(arch_gpregs_t *r, const struct arch_blocked_call *b)
{
	/* arch_do_signal_or_restart restarts after get_signal, where the stop
	 * is: orig_rax and rax are still as the syscall left them. */
	(void)r, (void)b;
}

const char *arch_call_blocker(const arch_gpregs_t *r)
{
	(void)r; /* a 64-bit thread has no mode that forbids a call (compat is refused apart) */
	return NULL;
}

static unsigned long long *arg_slot(arch_gpregs_t *r, int i, int syscall_abi)
{
	unsigned long long *slot[ARCH_MAX_CALL_ARGS] = {
		&r->rdi, &r->rsi, &r->rdx, syscall_abi ? &r->r10 : &r->rcx, &r->r8, &r->r9,
	};
	return slot[i];
}

static void set_args(arch_gpregs_t *r, const uint64_t *args, int nargs, int syscall_abi)
{
	for (int i = 0; i < nargs; i++)
		*arg_slot(r, i, syscall_abi) = args[i];
}

uint64_t arch_syscall_arg(const arch_gpregs_t *r, int i)
{
	return *arg_slot((arch_gpregs_t *)r, i, 1);
}

void arch_set_syscall_arg(arch_gpregs_t *r, int i, uint64_t v)
{
	*arg_slot(r, i, 1) = v;
}

/* orig_rax = -1: the kernel's syscall-restart logic (arch_do_signal_or_restart
 * in arch/x86/kernel/signal.c) looks at orig_ax when the thread resumes from
 * this stop; -1 says "not in a syscall", so it leaves our rip/rax alone. The
 * saved state, restored later with its real orig_rax and -ERESTART* rax, then
 * restarts the interrupted syscall exactly as if we had never been there. */
void arch_enter_sigreturn(arch_gpregs_t *r, uint64_t sp)
{
	/* syscall_trace_enter takes the number from orig_ax after the stop,
	 * and seccomp judges that one. */
	r->orig_rax = ARCH_NR_RT_SIGRETURN;
	r->rax = ARCH_NR_RT_SIGRETURN;
	r->rsp = sp;
	r->eflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_TF);
}

static void clean_entry_state(arch_gpregs_t *r)
{
	r->orig_rax = (unsigned long long)-1;
	r->eflags &= ~(X86_EFLAGS_DF | X86_EFLAGS_TF);
}

int arch_call_setup(arch_gpregs_t *r, uint64_t fn, const uint64_t *args, int nargs,
		    uint64_t stack_top, uint64_t ret_addr, struct arch_stack_write *w)
{
	if (nargs < 0 || nargs > ARCH_MAX_CALL_ARGS)
		return -EINVAL;
	clean_entry_state(r);
	set_args(r, args, nargs, 0);
	/* At function entry (%rsp + 8) is 16-byte aligned: the `call` pushed
	 * the return address onto an aligned stack. */
	uint64_t sp = (stack_top & ~(uint64_t)(ARCH_STACK_ALIGN - 1)) - 8;
	w->addr = sp;
	w->value = ret_addr;
	w->present = 1;
	r->rsp = sp;
	r->rip = fn;
	/* %al = number of vector registers used by a variadic callee: none. */
	r->rax = 0;
	return 0;
}

uint64_t arch_call_result(const arch_gpregs_t *r)
{
	return r->rax;
}

int arch_syscall_setup(arch_gpregs_t *r, uint64_t insn_addr, long nr, const uint64_t *args,
		       int nargs)
{
	if (nargs < 0 || nargs > ARCH_MAX_CALL_ARGS)
		return -EINVAL;
	clean_entry_state(r);
	set_args(r, args, nargs, 1);
	r->rax = (unsigned long long)nr;
	r->rip = insn_addr;
	return 0;
}

long arch_syscall_result(const arch_gpregs_t *r)
{
	return (long)r->rax;
}
