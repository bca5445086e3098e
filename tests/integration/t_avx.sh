#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A borrowed thread's vector state comes back whole from a crash-safe
# call's rt_sigreturn: victim_avx keeps a pattern in ymm8's upper half in a
# loop that makes no call. PTRACE_GETREGSET gives the largest XSAVE layout
# (on an AMX machine 8 KiB of tile data more than a thread that never asked
# for AMX has), and a frame that says so was taken by rt_sigreturn for a
# broken one: x87/SSE restored, the AVX state cleared (before: 5 losses in 5
# holds on such a machine).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim va "$TARGETS/victim_avx"
grep -q noavx "$va_out" && { kill "$va"; skip "no AVX here"; }
tid=$(victim_tid va spin)
for i in 1 2 3 4 5; do
	expect_rc 0 "$JEATTACH" -p "$va" --tid "$tid" --status --json
	echo "$OUT" | grep -q '"crash_safe": *true' || fail "hold $i was not crash-safe: $OUT"
done
expect_rc 0 "$JEATTACH" -p "$va" --tid "$tid" --stats
finish_victim va
pass "six crash-safe holds of a thread with live AVX state: none lost"
