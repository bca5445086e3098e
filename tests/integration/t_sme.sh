#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# arm64 SME: a thread in streaming mode (most Advanced SIMD instructions
# trap there: a call into jemalloc would die of SIGILL) and one with ZA
# storage on (a call's return through rt_sigreturn would turn it off) are
# let go with the reason, and the call runs in an ordinary thread
# (arch_call_blocker, src/arch/aarch64/arch_regs.c). victim_sme checks its
# own SME state at the end.
. "$top_srcdir/tests/integration/lib.sh"
arm64_feature victim_sme SME "no SME here (no HWCAP2_SME: the CPU has none, or the kernel is built without CONFIG_ARM64_SME, as Debian 12's 6.1 and Debian 13's 6.12 are): no thread can be in streaming mode"
require_ptrace

start_victim v "$TARGETS/victim_sme"
za=$(victim_tid v za)
plain=$(victim_tid v plain)
# The leader (tried first) spins in streaming mode, the za thread sleeps
# with ZA on: before arch_call_blocker the first call died of SIGILL or
# cost the za thread its matrix.
expect_rc 0 "$JEATTACH" -p "$v" --stats --json
[ "$(json_get "$OUT" "j['actions'][0]['allocated'] > 0")" = True ] || fail "stats: $OUT"
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/sme.heap"
# Asked for them by --tid, each is refused with its reason, untouched.
expect_rc 9 "$JEATTACH" -p "$v" --tid "$v" --timeout 1 --stats
echo "$ERR" | grep -q "thread $v is in SME streaming mode" || fail "streaming thread: $ERR"
expect_rc 9 "$JEATTACH" -p "$v" --tid "$za" --timeout 1 --stats
echo "$ERR" | grep -q "thread $za has SME's ZA storage on" || fail "ZA thread: $ERR"
finish_victim v
pass "streaming-mode and ZA threads passed over; the calls ran in thread $plain"
