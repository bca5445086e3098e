#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A call that waits on a lock its own thread holds is abandoned, not waited
# for: victim_selflock's holder thread has run jemalloc's fork-prepare
# handler (every jemalloc lock taken) and sleeps in read() with no jemalloc
# frame on its stack. --tid of it must end at once with the cause, exit 10,
# and the holder must find jemalloc working when it gives its locks back.
# The holder sleeps in read(), then (-n) in nanosleep(), whose hold's calls
# may return through the trap, where the wait is seen at a tick.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

for mode in "" -n; do
# shellcheck disable=SC2086
start_victim sl "$TARGETS/victim_selflock" $mode
holder=$(victim_tid sl holder)
[ -n "$holder" ] || fail "no holder thread: $(cat "$sl_out")"
for op in --status --stats "--dump $WORK/sl.heap"; do
	# shellcheck disable=SC2086
	timeout "$(slow 20)" "$JEATTACH" -p "$sl" --tid "$holder" $op >"$WORK/o" 2>"$WORK/e"
	rc=$?
	[ $rc = 124 ] && fail "$op on a thread that holds jemalloc's locks hung"
	[ $rc = 10 ] || fail "$op: exit $rc, expected 10: $(cat "$WORK/e")"
	grep -q 'waited on a lock it holds itself.*abandoned' "$WORK/e" ||
		fail "$op: the cause is not said: $(cat "$WORK/e")"
	[ "$(wc -l <"$WORK/e")" = 1 ] || fail "$op: not one line: $(cat "$WORK/e")"
done
[ ! -e "$WORK/sl.heap" ] || fail "a profile was written"
rm -f "$WORK/sl.heap"
[ -z "$(scratch_maps "$sl")" ] || fail "a scratch mapping was left: $(scratch_maps "$sl")"
finish_victim sl
done
pass "calls waiting on their own thread's lock abandoned with the cause (exit 10); jemalloc works after"
