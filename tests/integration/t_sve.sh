#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# arm64 SVE: a thread stopped in its own code with live SVE registers (a
# system call would have discarded them) cannot be given a signal frame of
# jeattach's, so a call borrowed there returns through the trap, which is
# not crash-safe. In the first round such a thread is let go for one in a
# system call (rcall_hold.c, try_thread); asked for by --tid it is borrowed
# through the trap, and NT_ARM_SVE puts every byte of its registers back
# (victim_sve checks z0, z31 and p7 at the end).
. "$top_srcdir/tests/integration/lib.sh"
arm64_feature victim_sve SVE "no SVE here (no HWCAP_SVE: the CPU has none, or the kernel is built without CONFIG_ARM64_SVE)"
require_ptrace

start_victim v "$TARGETS/victim_sve"
plain=$(victim_tid v plain)
vl=$(victim_tid v vl)
# The leader is tried first: before the first round passed it over, the
# calls ran there through the trap (crash_safe false).
expect_rc 0 "$JEATTACH" -p "$v" --stats --json -v
[ "$(json_get "$OUT" "j['actions'][0]['allocated'] > 0")" = True ] || fail "stats: $OUT"
[ "$(json_get "$OUT" "j['crash_safe']")" = True ] ||
	fail "the calls were not crash-safe with thread $plain in read(): $(echo "$ERR" | grep holding)"
echo "$ERR" | grep -q "holding thread $plain\$" || fail "not borrowed in read(): $ERR"
pass "the thread with live SVE state passed over; crash-safe calls in thread $plain"
# Asked for by --tid, the leader is borrowed through the trap.
expect_rc 0 "$JEATTACH" -p "$v" --tid "$v" --stats --json
[ "$(json_get "$OUT" "j['crash_safe']")" = False ] || fail "--tid $v: $OUT"
expect_rc 0 "$JEATTACH" -p "$v" --tid "$v" --dump "$WORK/sve.heap"
grep -q '^heap_v2/' "$WORK/sve.heap" || fail "no profile from thread $v"
finish_victim v
pass "borrowed with live SVE state ($vl-byte vectors) by --tid: its registers came back whole"
