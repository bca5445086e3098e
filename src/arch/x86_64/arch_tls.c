/* SPDX-License-Identifier: BSD-2-Clause */
/* Where a TLS variable is, from the code of the function that returns its
 * address (glibc's __errno_location): no call in the target. */
#include "config.h"

#include <string.h>
#include "arch.h"

/* glibc's __errno_location, in a shared libc (initial-exec TLS: the
 * offset from the thread pointer in a GOT slot the loader fills, a
 * R_X86_64_TPOFF64 relocation):
 *     48 8b 05 d32              mov  d32(%rip),%rax
 *     64 48 03 04 25 0 0 0 0    add  %fs:0,%rax
 *     c3                        ret
 * and in a static link, where ld relaxes the GOT load to the offset itself
 * (R_X86_64_GOTTPOFF, initial-exec to local-exec):
 *     48 c7 c0 imm32            mov  $imm32,%rax
 * An endbr64 may come first (-fcf-protection). Anything else: unknown. */
int arch_tls_ref_decode(const unsigned char *code, size_t len, uint64_t addr,
			struct arch_tls_ref *out)
{
	static const unsigned char endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	static const unsigned char add_fs[9] = { 0x64, 0x48, 0x03, 0x04, 0x25, 0, 0, 0, 0 };
	size_t o = len >= 4 && !memcmp(code, endbr64, 4) ? 4 : 0;
	if (len < o + 7 + 9 + 1 || memcmp(code + o + 7, add_fs, 9) || code[o + 16] != 0xc3)
		return -1;
	int32_t d;
	memcpy(&d, code + o + 3, 4);
	if (code[o] == 0x48 && code[o + 1] == 0x8b && code[o + 2] == 0x05) {
		out->in_memory = 1;
		out->where = addr + o + 7 + (uint64_t)(int64_t)d; /* rip-relative: the next insn */
		return 0;
	}
	if (code[o] == 0x48 && code[o + 1] == 0xc7 && code[o + 2] == 0xc0) {
		out->in_memory = 0;
		out->offset = d; /* sign-extended, as the mov does */
		return 0;
	}
	return -1;
}

int arch_tls_offset_plausible(int64_t off)
{
	/* Variant II: the static TLS block ends at the thread pointer, where
	 * the TCB begins (its first word points to itself). */
	return off < 0 && off > -(1 << 20);
}
