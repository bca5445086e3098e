/* SPDX-License-Identifier: BSD-2-Clause */
/* Where a TLS variable is, from the code of the function that returns its
 * address (glibc's __errno_location): no call in the target. */
#include "config.h"

#include <string.h>
#include "arch.h"

static uint32_t word(const unsigned char *code, size_t i)
{
	uint32_t w;
	memcpy(&w, code + 4 * i, 4);
	return w;
}

/* glibc's __errno_location, in a shared libc (initial-exec TLS: the
 * offset from the thread pointer in a GOT slot, R_AARCH64_TLS_TPREL64):
 *     adrp x0, slot's page
 *     ldr  x0, [x0, #slot's offset]
 *     mrs  x1, tpidr_el0
 *     add  x0, x1, x0
 *     ret
 * and in a static link, where ld relaxes the load to the offset itself
 * (TLSIE to TLSLE): movz x0, #hi, lsl #16; movk x0, #lo. A `bti c` may
 * come first. Anything else: unknown. */
int arch_tls_ref_decode(const unsigned char *code, size_t len, uint64_t addr,
			struct arch_tls_ref *out)
{
	size_t i = len >= 4 && word(code, 0) == 0xd503245f ? 1 : 0; /* bti c */
	if (len < 4 * (i + 5) || word(code, i + 2) != 0xd53bd041 || /* mrs x1, tpidr_el0 */
	    word(code, i + 3) != 0x8b000020 ||                        /* add x0, x1, x0 */
	    word(code, i + 4) != 0xd65f03c0)                          /* ret */
		return -1;
	const uint32_t a = word(code, i), b = word(code, i + 1);
	if ((a & 0x9f00001f) == 0x90000000 && (b & 0xffc003ff) == 0xf9400000) {
		/* adrp: a 21-bit page count, immhi:immlo, from this insn's page */
		int64_t pages = (int64_t)((((a >> 5) & 0x7ffff) << 2) | ((a >> 29) & 3));
		pages = (pages ^ 0x100000) - 0x100000; /* sign-extend 21 bits */
		const uint64_t at = addr + 4 * i;
		out->in_memory = 1;
		out->where = (at & ~(uint64_t)0xfff) + (uint64_t)(pages * 4096) +
			     ((b >> 10) & 0xfff) * 8; /* ldr's unsigned offset, scaled */
		return 0;
	}
	if ((a & 0xffe0001f) == 0xd2a00000 && (b & 0xffe0001f) == 0xf2800000) {
		out->in_memory = 0;
		out->offset = (int64_t)((((a >> 5) & 0xffff) << 16) | ((b >> 5) & 0xffff));
		return 0;
	}
	return -1;
}

int arch_tls_offset_plausible(int64_t off)
{
	/* Variant I: the TCB (dtv pointer, one reserved word) is the 16 bytes
	 * at the thread pointer; the static TLS blocks follow it. */
	return off >= 16 && off < (1 << 20);
}
