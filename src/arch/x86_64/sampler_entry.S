/* SPDX-License-Identifier: BSD-2-Clause */
/* The alloc hook's entry: jemalloc calls it (hook_invoke_alloc, with five
 * arguments in rdi rsi rdx rcx r8); it saves the registers its caller's
 * frame needs to be unwound later (the callee-saved ones, the stack
 * pointer after the return and the return address: struct sampler_rec's
 * regs order, src/sampler/sampler_abi.h) and passes them as a sixth
 * argument (r9) to the C body. 72 bytes keep rsp 16-aligned at the call
 * (it is 8 off at entry, the return address pushed). */
	.text
	.globl sampler_alloc_entry
	.hidden sampler_alloc_entry
	.type sampler_alloc_entry, @function
sampler_alloc_entry:
	endbr64
	subq	$72, %rsp
	movq	%rbx, 0(%rsp)
	movq	%rbp, 8(%rsp)
	movq	%r12, 16(%rsp)
	movq	%r13, 24(%rsp)
	movq	%r14, 32(%rsp)
	movq	%r15, 40(%rsp)
	leaq	80(%rsp), %rax		/* the caller's rsp once it is returned to */
	movq	%rax, 48(%rsp)
	movq	72(%rsp), %rax		/* the return address */
	movq	%rax, 56(%rsp)
	movq	%rsp, %r9
	call	sampler_alloc
	addq	$72, %rsp
	ret
	.size sampler_alloc_entry, . - sampler_alloc_entry
	.section .note.GNU-stack, "", @progbits
