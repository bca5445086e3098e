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
	bounded "$(slow 20)" "$JEATTACH" -p "$sl" --tid "$holder" $op >"$WORK/o" 2>"$WORK/e"
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

# Under a seccomp filter that kills on system call number -1 (an
# allowlist's default for numbers it does not know): the wait is not
# skipped as number -1 but turned into the call's own rt_sigreturn, which
# the filter allows. Before: the process was killed (SIGSYS) at the abandon.
start_victim sls "$TARGETS/victim_selflock" -s
holder=$(victim_tid sls holder)
bounded "$(slow 20)" "$JEATTACH" -p "$sls" --tid "$holder" --status >"$WORK/o" 2>"$WORK/e"
rc=$?
kill -0 "$sls" 2>/dev/null || fail "the abandon killed the process under a filter that kills on -1: $(cat "$WORK/e")"
[ $rc = 10 ] || fail "under the filter: exit $rc, expected 10: $(cat "$WORK/e")"
finish_victim sls
pass "a filter that kills on system call -1: the wait abandoned, the process alive"

# jeattach killed once the wait is abandoned (at the start of the release):
# the holder is as it was, back in its read(), since the abandoned
# crash-safe call went straight to its own signal frame. Before: it was
# left stopped at the wait's entry, and with jeattach gone it waited on its
# own lock for ever (the report below never came). gdb stops jeattach there.
if command -v gdb >/dev/null 2>&1; then
	start_victim slk "$TARGETS/victim_selflock"
	holder=$(victim_tid slk holder)
	timeout "$(slow 60)" "$top_builddir/libtool" --mode=execute gdb -q -batch \
		-ex 'break rcall_selflock_decide' -ex "run -p $slk --tid $holder --status" \
		-ex 'delete' -ex 'break rcall_release' -ex 'continue' -ex 'kill' \
		--args "$JEATTACH" >"$WORK/gdb.out" 2>&1
	grep -q 'Breakpoint 2, rcall_release' "$WORK/gdb.out" ||
		skip "gdb did not stop jeattach at its release: $(cat "$WORK/gdb.out")"
	sleep 0.5
	nr=$(cut -d' ' -f1 "/proc/$slk/task/$holder/syscall")
	read_nr=0 # read(2): x86_64's 0, arm64's 63 (the generic table)
	[ "$(uname -m)" = aarch64 ] && read_nr=63
	[ "$nr" = "$read_nr" ] || fail "jeattach killed after abandoning: the holder is in system call $nr, not its read()"
	finish_victim slk
	pass "jeattach killed after abandoning the wait: the holder was back in its read()"
else
	echo "SKIP part: no gdb to stop jeattach after the abandon"
fi
