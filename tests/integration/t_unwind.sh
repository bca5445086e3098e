#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A thread whose stack cannot be unwound in bounded time (call-frame
# information whose CFA expression loops) is unsafe, and another thread is
# borrowed; jeattach does not spin on it with the thread held. (Before: 100%
# CPU forever, --timeout and signals ignored.)
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim cl "$TARGETS/victim_cfiloop"
expect_rc 0 timeout -s KILL 60 "$JEATTACH" -p "$cl" --status --json
held=$(json_get "$OUT" "j.get('hold_us_max')")
pass "--status while the main thread's unwind info loops (longest hold $held us)"
if [ "$(uname -m)" = aarch64 ]; then
	# Seen on the emulated arm64 machine: libunwind's aarch64 step ends
	# at that frame (unw_step <= 0) before the read budget runs out, so
	# the walk stops there as at code without unwind information and the
	# thread is held. What matters is the same: no spin, no hang.
	expect_rc 0 timeout -s KILL 60 "$JEATTACH" -p "$cl" --tid "$cl" --status --timeout 1
	pass "that thread, asked for by --tid: its walk ended at that frame (aarch64's libunwind)"
else
	expect_rc 9 timeout -s KILL 60 "$JEATTACH" -p "$cl" --tid "$cl" --status --timeout 1
	echo "$ERR" | grep -q 'cannot be unwound' || fail "--tid of that thread: $ERR"
	pass "that thread, asked for by --tid: refused as unsafe"
fi
finish_victim cl
