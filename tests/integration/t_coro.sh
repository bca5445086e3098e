#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Nothing of a borrowed thread's stack is saved and written back, in any
# path: a coroutine whose stack is carved from a heap block next to a
# counter another thread updates (victim_coro) must not see that counter
# rewound, whether it sleeps in read() (crash-safe calls), in nanosleep()
# (a restart-block sleep), on a thread of its own whose guardless 16 KiB
# stack is that block, or under an RLIMIT_DATA that leaves no room for a
# private mapping; where no scratch mapping can be had at all (RLIMIT_AS),
# the action is refused with that cause. The scratch memory jeattach maps in
# the target for its calls is gone when it has finished.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# coro_runs LABEL [VICTIM ARGS...]: five dumps and stats through the
# sleeping thread, nothing left mapped, the victim unharmed.
coro_runs() {
	label=$1; shift
	runs=$((${runs:-0} + 1))
	start_victim co "$TARGETS/victim_coro" "$@"
	tid=$(victim_tid co coro)
	[ -n "$tid" ] || fail "$label: no coroutine thread: $(cat "$co_out")"
	before=$(scratch_maps "$co")
	for i in 1 2 3 4 5; do
		expect_rc 0 "$JEATTACH" -p "$co" --tid "$tid" --dump "$WORK/run$runs.$i.heap" --stats --json
	done
	after=$(scratch_maps "$co")
	[ "$before" = "$after" ] || fail "$label: scratch mappings left in the target: before [$before] after [$after]"
	finish_victim co
	pass "$label: five dumps and stats, nothing rewound, nothing left mapped"
}

coro_runs "a coroutine in read()"
coro_runs "a coroutine in nanosleep()" -n
coro_runs "a thread with a guardless heap-block stack in nanosleep()" -p -n
# A crash-safe hold's first calls (the errno lookup, the mmap and its
# madvise) run below the red zone as a signal's frame would, and no deeper:
# a 6 KiB coroutine stack whose thread blocks every signal keeps the 2 KiB
# below it untouched. (Before, on an AMX machine, the frames carried the
# 8 KiB of tile data PTRACE_GETREGSET has room for: 11 KiB deep.)
coro_runs "a coroutine on a 6 KiB stack, its thread blocking every signal" -s
# Smaller than a signal's frame (2 KiB): no frame goes there at all; the
# mapping is made by single steps, which write nothing in memory.
coro_runs "a coroutine on a 2 KiB stack, its thread blocking every signal" -t
# Those single steps are not crash-safe, and --json says so.
start_victim co "$TARGETS/victim_coro" -t
OUT=$("$JEATTACH" -p "$co" --tid "$(victim_tid co coro)" --stats --json) || fail "2 KiB stack: exit $?"
[ "$(json_get "$OUT" "j['crash_safe']")" = False ] || fail "2 KiB stack: crash_safe not false: $OUT"
# ...and on the terminal, in one line before the calls (issue 33 item 3),
# once for the thread however many holds; -q says nothing.
ct=$(victim_tid co coro)
expect_rc 0 "$JEATTACH" -p "$co" --tid "$ct" --dump "$WORK/cs.%n.heap" --every 100ms --count 3
[ "$(printf '%s\n' "$ERR" | grep -c 'not be crash-safe')" = 1 ] || fail "not one line: $ERR"
echo "$ERR" | grep -q "^jeattach: $co: the calls in thread $ct will not be crash-safe (its stack has no room known for a signal frame): a jeattach killed by SIGKILL" ||
	fail "$ERR"
expect_rc 0 "$JEATTACH" -p "$co" --tid "$ct" --stats -q
[ -z "$ERR" ] || fail "-q: $ERR"
finish_victim co
start_victim d "$TARGETS/victim_dyn" -b 1
expect_rc 0 "$JEATTACH" -p "$d" --stats --json
[ "$(json_get "$OUT" "j['crash_safe']")" = True ] || fail "not crash-safe: $OUT"
[ -z "$ERR" ] || fail "a crash-safe hold said: $ERR"
finish_victim d
pass "a hold whose mapping was made by single steps says \"crash_safe\": false, and says it first on the terminal"

# kib PID FIELD: a /proc/PID/status figure in KiB.
kib() { sed -n "s/^$2: *\([0-9]*\) kB/\1/p" "/proc/$1/status"; }

# RLIMIT_DATA just above what the process uses: the private scratch mapping
# is refused (ENOMEM); one that grows down (VM_STACK) does not count against it.
start_victim co "$TARGETS/victim_coro" -n
tid=$(victim_tid co coro)
# The coroutine's thread never allocated: its first mallctl sets up its
# jemalloc tsd and tcache, which under this limit faults inside jemalloc
# (5.3.0 reads 0x28f8: a failed allocation used unchecked). That first
# call is made before the limit; what is tested here is the scratch memory.
expect_rc 0 "$JEATTACH" -p "$co" --tid "$tid" --status
lim=$((($(kib "$co" VmData) + 256) * 1024))
prlimit --pid "$co" --data="$lim:$lim" || skip "prlimit cannot set the victim's RLIMIT_DATA"
for i in 1 2 3; do
	expect_rc 0 "$JEATTACH" -p "$co" --tid "$tid" --stats --json
done
expect_rc 0 "$JEATTACH" -p "$co" --status
[ -z "$(scratch_maps "$co")" ] || fail "RLIMIT_DATA: a scratch mapping was left: $(scratch_maps "$co")"
finish_victim co
pass "RLIMIT_DATA 256 KiB above use: calls ran on a scratch mapping that grows down, nothing rewound"

# as_refused LABEL [VICTIM ARGS...]: RLIMIT_AS just above what the process
# maps: no mapping at all can be made, and the thread's stack is not one to
# run the calls on: refused with the cause, one line, nothing left mapped.
as_refused() {
	label=$1; shift
	start_victim co "$TARGETS/victim_coro" "$@"
	tid=$(victim_tid co coro)
	# Its thread's first mallctl, before the limit (see RLIMIT_DATA above).
	expect_rc 0 "$JEATTACH" -p "$co" --tid "$tid" --status
	lim=$((($(kib "$co" VmSize) + 256) * 1024))
	prlimit --pid "$co" --as="$lim:$lim" || skip "prlimit cannot set the victim's RLIMIT_AS"
	"$JEATTACH" -p "$co" --tid "$tid" --stats >"$WORK/as.out" 2>"$WORK/as.err"
	rc=$?
	[ $rc = 10 ] || fail "$label: exit $rc, expected 10: $(cat "$WORK/as.err")"
	grep -q 'no scratch memory can be mapped.*RLIMIT_AS' "$WORK/as.err" ||
		fail "$label: the cause is not named: $(cat "$WORK/as.err")"
	[ "$(wc -l <"$WORK/as.err")" = 1 ] || fail "$label: not one line: $(cat "$WORK/as.err")"
	[ -z "$(scratch_maps "$co")" ] || fail "$label: a scratch mapping was left"
	finish_victim co
	pass "$label: refused (exit 10) naming the limit, the victim unharmed"
}

as_refused "RLIMIT_AS 256 KiB above use, a heap-carved coroutine stack" -n
# The same where the coroutine's stack lies in a pool of stacks with one
# guard page at the pool's bottom: the guard below is not this thread's
# stack's own (its thread pointer is elsewhere), so nothing is written below
# its red zone: refused. Before: taken for a glibc stack with room, the calls
# ran below the coroutine's stack pointer, into the pool (exit 0).
as_refused "RLIMIT_AS, a coroutine stack in a pool with one guard" -g -s
