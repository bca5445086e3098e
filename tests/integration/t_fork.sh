#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A thread in the middle of fork() holds every jemalloc lock: jemalloc's
# pthread_atfork prepare handler takes them before glibc's clone and the
# parent handler gives them back after it. victim_fork's main thread (the
# leader, which a hold tries first) forks in a loop with a 128 MiB heap; a
# mallctl injected into it between the two handlers waits on its own lock
# for ever. Each run is bounded: a hang is a failure, and so is a process
# that stopped allocating (the victim's watchdog counts stalled seconds).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
loads_machine

start_victim fk "$TARGETS/victim_fork"
runs=${FORK_RUNS:-30}
i=0
while [ $i -lt "$runs" ]; do
	i=$((i + 1))
	bounded "$(slow 20)" "$JEATTACH" -p "$fk" --status --json >"$WORK/s.json" 2>"$WORK/s.err"
	rc=$?
	[ $rc = 124 ] && fail "run $i of --status hung (the victim's main thread was forking?): $(cat "$WORK/s.err")"
	[ $rc = 0 ] || fail "run $i of --status: exit $rc: $(cat "$WORK/s.err")"
done
pass "$runs --status runs on a process forking in a loop, none hung"
# --top borrows a thread at each refresh (the issue saw it hang after its
# first); 20 refreshes, each a hold the watchdog below checks.
bounded "$(slow 60)" "$JEATTACH" -p "$fk" --top --json --interval 100ms --count 20 >"$WORK/top.json" 2>"$WORK/top.err"
rc=$?
[ $rc = 0 ] || fail "--top on a forking process: exit $rc: $(cat "$WORK/top.err")"
[ "$(wc -l <"$WORK/top.json")" -ge 20 ] || fail "--top gave fewer than 20 refreshes: $(wc -l <"$WORK/top.json")"
pass "--top, 20 refreshes on a process forking in a loop"
for op in "--activate" "--dump $WORK/f.heap" "--stats" "--deactivate"; do
	# shellcheck disable=SC2086
	bounded "$(slow 20)" "$JEATTACH" -p "$fk" $op >"$WORK/o.out" 2>"$WORK/o.err"
	rc=$?
	[ $rc = 0 ] || fail "$op: exit $rc: $(cat "$WORK/o.err")"
done
grep -q '^heap_v2/' "$WORK/f.heap" || fail "no profile written"
# A thread found inside fork is named as such when it is the one asked for.
forker=$(victim_tid fk forker)
seen=0
i=0
while [ $i -lt 40 ] && [ $seen = 0 ]; do
	i=$((i + 1))
	bounded "$(slow 20)" "$JEATTACH" -p "$fk" --tid "$forker" --status --timeout 0.05 >/dev/null 2>"$WORK/t.err"
	rc=$?
	[ $rc = 124 ] && fail "--tid of the forking thread hung: $(cat "$WORK/t.err")"
	grep -q 'fork' "$WORK/t.err" && seen=1
done
[ $seen = 1 ] || echo "note: the forking thread was never caught inside fork in $i tries"
# The watchdog's own 1 s sigtimedwait must not end early or with EINTR.
# While jeattach seized the forking thread, its children's SIGCHLD woke
# it with EINTR 12 to 39 times a run (rcall_hold.c now never holds a
# thread with children, checked again at its stop: one seized between two
# forks ended the wait after 3 ms); and a wait re-made at one hold, caught
# by the next before the kernel made it again, ended after 10-30 ms about
# once in 40 holds (rcall_wait.c, rcall_wait_remade).
finish_victim fk
pass "activate, dump, stats, deactivate on a forking process; it never stopped allocating"

# Children forked while a thread is held do not inherit jeattach's scratch
# mapping (MADV_DONTFORK): each child of victim_fork -s lives a second.
# A fork that lands between the mmap and its madvise (microseconds; no
# mmap flag says "not inherited") copies the mapping before anything of
# jeattach's is written into it: such a child may keep an untouched one,
# counted and reported; a copy with any byte of jeattach's in it is a
# failure. A child's copy is read through /proc/CHILD/mem, which would show
# a shared mapping's pages even where the child never touched them.
# scratch_written PID: the bytes other than 0 in PID's mappings of the
# scratch size.
scratch_written() {
	scratch_maps "$1" | python3 -c '
import sys
n = 0
with open("/proc/%s/mem" % sys.argv[1], "rb", 0) as m:
    for line in sys.stdin:
        s, e = (int(x, 16) for x in line.split("-"))
        m.seek(s)
        n += sum(1 for b in m.read(e - s) if b)
print(n)' "$1" 2>/dev/null || echo 0
}
# children_look PID: every child of PID now; fails on one that holds a
# scratch mapping with anything in it.
children_look() {
	for c in $(pgrep -P "$1"); do
		seen=$((seen + 1))
		[ -n "$(scratch_maps "$c")" ] || continue
		n=$(scratch_written "$c")
		[ "$n" = 0 ] || fail "child $c of the victim ($2) holds a scratch mapping with $n bytes of jeattach's in it"
		empty=$((empty + 1))
	done
}
# A hold of the allocating worker lasts over a second on an emulated
# machine (--stats=full while the forker's forks hold jemalloc's locks):
# a stall there is a stretch of SLOWDOWN seconds without progress (1 s
# natively).
start_victim_env fs "VICTIM_STALL_S=$(slow 1)" "$TARGETS/victim_fork" -s
i=0 seen=0 empty=0
while [ $i -lt 15 ]; do
	i=$((i + 1))
	expect_rc 0 bounded "$(slow 60)" "$JEATTACH" -p "$fs" --stats=full --dump "$WORK/fs$i.heap"
	children_look "$fs" private
done
[ $seen -gt 0 ] || fail "no child of the victim was alive to look at"
finish_victim fs
pass "$seen children looked at around 15 holds: none inherited what jeattach wrote ($empty kept an untouched copy, forked between the mmap and its madvise)"

# Under an RLIMIT_DATA 1 MiB above use no plain private mapping fits. The
# shared one jeattach made there before gave a child forked between its
# mmap and its madvise the very pages the hold wrote next; now it is a
# private one that grows down, which RLIMIT_DATA does not count
# (rcall_scratch.c). victim_fork -q forks every half millisecond, so that
# forks land between the mmap and the madvise, and its children read their
# copies of a scratch-sized mapping themselves, 300 ms later
# (victim_fork.c): any byte of jeattach's there fails the victim.
kib() { sed -n "s/^$2: *\([0-9]*\) kB/\1/p" "/proc/$1/status"; }
start_victim_env fq "VICTIM_STALL_S=$(slow 1)" "$TARGETS/victim_fork" -q
# Under this limit a --stats, and then a --status, faulted inside jemalloc
# 5.3.0 on arm64 (a read at 0x25f8; jeattach caught it, exit 10, see
# doc/robustness.md): jemalloc's own handling of an allocation that failed,
# not what is tested here. The process's first mallctl (jemalloc sets up
# its controls then, ctl_init) is made before the limit, as t_coro does for
# a thread's first call.
expect_rc 0 bounded "$(slow 60)" "$JEATTACH" -p "$fq" --status
lim=$((($(kib "$fq" VmData) + 1024) * 1024))
prlimit --pid "$fq" --data="$lim:$lim" || skip "prlimit cannot set the victim's RLIMIT_DATA"
i=0
while [ $i -lt 30 ]; do
	i=$((i + 1))
	expect_rc 0 bounded "$(slow 60)" "$JEATTACH" -p "$fq" --status --json
	[ "$(json_get "$OUT" "j['crash_safe']")" = True ] || fail "RLIMIT_DATA: not crash-safe: $OUT"
done
[ -z "$(scratch_maps "$fq")" ] || fail "RLIMIT_DATA: a scratch mapping was left: $(scratch_maps "$fq")"
finish_victim fq
pass "RLIMIT_DATA: 30 --status holds of a process forking every 0.5 ms; no child saw what jeattach wrote ($report)"
