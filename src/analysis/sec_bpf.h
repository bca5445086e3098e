/* SPDX-License-Identifier: BSD-2-Clause */
/* sec_: what a target's seccomp filters would answer to a system call,
 * computed outside the target: a classic BPF interpreter for the subset
 * seccomp accepts (kernel/seccomp.c, seccomp_check_filter), over a
 * struct seccomp_data built by the caller. Pure: no ptrace, no I/O. */
#ifndef JEATTACH_SEC_BPF_H
#define JEATTACH_SEC_BPF_H

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>

/* The filter's return value for d. A program the kernel would not have
 * accepted (a jump out of it, an unknown instruction, no return) answers
 * SECCOMP_RET_KILL_PROCESS: nothing unknown is taken as harmless. Every
 * instruction runs at most once (seccomp's jumps go forward only), so the
 * time is bounded by n. */
uint32_t sec_bpf_run(const struct sock_filter *prog, size_t n, const struct seccomp_data *d);

/* Of two filters' answers, the one the kernel obeys (seccomp_run_filters:
 * the lowest action as a signed value, so KILL_PROCESS > KILL_THREAD >
 * TRAP > ERRNO > USER_NOTIF > TRACE > LOG > ALLOW). */
uint32_t sec_bpf_stronger(uint32_t a, uint32_t b);

/* Will this answer end the process or a thread (and so must never be
 * provoked)? Unknown actions count as killing. */
int sec_bpf_kills(uint32_t ret);

#endif
