/* SPDX-License-Identifier: BSD-2-Clause */
/* A classic BPF interpreter for seccomp filters (see sec_bpf.h). The
 * instruction set is the one seccomp_check_filter lets through: loads of
 * seccomp_data words, of the scratch memory, of immediates and of the data
 * length; stores; ALU; forward jumps; returns. */
#include "config.h"

#include <string.h>
#include "sec_bpf.h"

#define KILL SECCOMP_RET_KILL_PROCESS

static int alu(uint16_t op, uint32_t *a, uint32_t v)
{
	switch (op) {
	case BPF_ADD: *a += v; return 0;
	case BPF_SUB: *a -= v; return 0;
	case BPF_MUL: *a *= v; return 0;
	case BPF_DIV: if (!v) return -1; *a /= v; return 0;
	case BPF_MOD: if (!v) return -1; *a %= v; return 0;
	case BPF_AND: *a &= v; return 0;
	case BPF_OR: *a |= v; return 0;
	case BPF_XOR: *a ^= v; return 0;
	case BPF_LSH: if (v >= 32) return -1; *a <<= v; return 0;
	case BPF_RSH: if (v >= 32) return -1; *a >>= v; return 0;
	case BPF_NEG: *a = -*a; return 0;
	default: return -1;
	}
}

/* The next pc after a jump at pc, or n + 1 (out of the program). */
static size_t jump(const struct sock_filter *f, size_t pc, size_t n, uint32_t a, uint32_t x)
{
	uint32_t v = BPF_SRC(f->code) == BPF_X ? x : f->k;
	int taken;
	switch (BPF_OP(f->code)) {
	case BPF_JA: return pc + 1 + f->k >= pc + 1 ? pc + 1 + f->k : n + 1;
	case BPF_JEQ: taken = a == v; break;
	case BPF_JGT: taken = a > v; break;
	case BPF_JGE: taken = a >= v; break;
	case BPF_JSET: taken = (a & v) != 0; break;
	default: return n + 1;
	}
	return pc + 1 + (taken ? f->jt : f->jf);
}

uint32_t sec_bpf_run(const struct sock_filter *prog, size_t n, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
	const unsigned char *data = (const unsigned char *)d;
	for (size_t pc = 0; pc < n;) {
		const struct sock_filter *f = &prog[pc];
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
		case BPF_LDX: {
			uint32_t v;
			if (f->code == (BPF_LD | BPF_W | BPF_ABS)) {
				/* Aligned words of seccomp_data only. */
				if (f->k & 3 || f->k > sizeof(*d) - 4)
					return KILL;
				memcpy(&v, data + f->k, 4);
			} else if (BPF_MODE(f->code) == BPF_IMM) {
				v = f->k;
			} else if (BPF_MODE(f->code) == BPF_MEM && f->k < BPF_MEMWORDS) {
				v = mem[f->k];
			} else if (BPF_MODE(f->code) == BPF_LEN) {
				v = sizeof(*d);
			} else {
				return KILL;
			}
			*(BPF_CLASS(f->code) == BPF_LD ? &a : &x) = v;
			pc++;
			break;
		}
		case BPF_ST:
		case BPF_STX:
			if (f->k >= BPF_MEMWORDS)
				return KILL;
			mem[f->k] = BPF_CLASS(f->code) == BPF_ST ? a : x;
			pc++;
			break;
		case BPF_ALU:
			if (alu(BPF_OP(f->code), &a, BPF_SRC(f->code) == BPF_X ? x : f->k))
				return KILL;
			pc++;
			break;
		case BPF_JMP:
			pc = jump(f, pc, n, a, x);
			break;
		case BPF_RET:
			return BPF_RVAL(f->code) == BPF_A ? a : f->k;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				x = a;
			else
				a = x;
			pc++;
			break;
		default:
			return KILL;
		}
	}
	return KILL; /* fell off the end (or jumped out): the kernel rejects such programs */
}

uint32_t sec_bpf_stronger(uint32_t a, uint32_t b)
{
	return (int32_t)(a & SECCOMP_RET_ACTION_FULL) < (int32_t)(b & SECCOMP_RET_ACTION_FULL) ? a
												 : b;
}

int sec_bpf_kills(uint32_t ret)
{
	switch (ret & SECCOMP_RET_ACTION_FULL) {
	case SECCOMP_RET_TRAP: /* answered by jeattach (EPERM); see rcall.c */
	case SECCOMP_RET_ERRNO:
	case SECCOMP_RET_TRACE: /* another tracer's business; with none, ENOSYS */
	case SECCOMP_RET_LOG:
	case SECCOMP_RET_ALLOW:
		return 0;
	default: /* KILL_PROCESS, KILL_THREAD, USER_NOTIF (a supervisor decides), unknown */
		return 1;
	}
}
