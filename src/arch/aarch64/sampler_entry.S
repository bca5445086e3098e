/* SPDX-License-Identifier: BSD-2-Clause */
/* The alloc hook's entry: jemalloc calls it (hook_invoke_alloc, with five
 * arguments in x0..x4); it saves the registers its caller's frame needs to
 * be unwound later (x19..x28, x29, x30, the stack pointer and the return
 * address: struct sampler_rec's regs order, src/sampler/sampler_abi.h) and
 * passes them as a sixth argument (x5) to the C body. The page is mapped
 * without PROT_BTI, so no landing pad is enforced; `bti c` is a hint that
 * does nothing where BTI is off, and makes the entry valid where it is on.
 * The return address in x30 is as blr left it: the entry signs nothing. */
	.text
	.globl sampler_alloc_entry
	.hidden sampler_alloc_entry
	.type sampler_alloc_entry, %function
sampler_alloc_entry:
	hint	34			/* bti c */
	sub	sp, sp, #112
	stp	x19, x20, [sp, #0]
	stp	x21, x22, [sp, #16]
	stp	x23, x24, [sp, #32]
	stp	x25, x26, [sp, #48]
	stp	x27, x28, [sp, #64]
	stp	x29, x30, [sp, #80]
	add	x9, sp, #112		/* sp as the caller has it */
	stp	x9, x30, [sp, #96]	/* sp, then pc: the return address */
	mov	x5, sp
	bl	sampler_alloc
	ldp	x29, x30, [sp, #80]
	add	sp, sp, #112
	ret
	.size sampler_alloc_entry, . - sampler_alloc_entry
	.section .note.GNU-stack, "", %progbits
