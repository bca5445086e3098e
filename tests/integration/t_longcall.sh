#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A call that has started is never cut off. --timeout bounds finding a safe
# thread and starting; a prof.dump that runs longer than that is waited for.
# Abandoning it mid-way left jemalloc's dump lock taken: every sampled
# allocation of the target blocked forever, a second dump failed, and a
# process started with prof_final:true hung in exit().
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# reap PID SECONDS WHY: wait for PID (our child) to end within SECONDS,
# else fail with WHY; rc gets its exit status.
reap() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $(($2 * 20)) ] && fail "$3"
		sleep 0.05
	done
	wait "$1"; rc=$?
}

# iters VICTIM-OUT PID: the victim's allocation rounds so far.
iters() {
	before=$(grep -c '^iters=' "$1")
	kill -USR2 "$2"
	i=0
	while [ "$(grep -c '^iters=' "$1")" = "$before" ]; do
		i=$((i + 1)); [ $i -gt 100 ] && fail "victim did not answer SIGUSR2"
		sleep 0.05
	done
	sed -n 's/^iters=//p' "$1" | tail -1
}

# Fewer on an emulated machine (lib.sh, stacks); the dumps stay far longer
# than --timeout 0.05. There, half again for the second: its victim never
# finished building 32768 stacks within the 20-minute watchdog under TCG
# (twice, 2026-11-24), while 16384 take seconds; they dump in about 1.3 s,
# so the SIGTERM below comes at a fixed point inside the dump there.
n1=$(stacks 131072) n2=$(stacks 524288)
[ "$SLOWDOWN" -gt 1 ] && n2=$((n2 / 2))
START_SECONDS=60 start_victim_env big "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0,prof_final:true,prof_prefix:$WORK/final" \
	"$TARGETS/victim_bigprof" -n "$n1"
pipes_before=$(ls -l "/proc/$big/fd" | grep -c 'pipe:')
t0=$(date +%s%N)
expect_rc 0 "$JEATTACH" -p "$big" --dump "$WORK/a.heap" --timeout 0.05 --json
t1=$(date +%s%N)
stacks=$(grep -c '^@' "$WORK/a.heap")
[ "$stacks" -ge "$n1" ] || fail "a whole profile was expected, got $stacks stacks"
dump_ms=$(( (t1 - t0) / 1000000 ))
pass "a ${dump_ms} ms dump outlived --timeout 0.05 and was kept ($stacks stacks)"

# The target still allocates (its dump lock is free)...
a=$(iters "$big_out" "$big"); sleep 1; b=$(iters "$big_out" "$big")
[ "$b" -gt "$a" ] || fail "the target stopped allocating after the dump: $a -> $b"
pass "the target allocates on ($a -> $b rounds)"
# ...a second dump works...
expect_rc 0 "$JEATTACH" -p "$big" --dump "$WORK/b.heap" --timeout 0.05
grep -q '^@' "$WORK/b.heap" || fail "the second dump is empty"
# ...and nothing of jeattach's stays in it: no pipe (a memfd before), no
# jemalloc file.
ls -l "/proc/$big/fd" | grep -q 'memfd:jeattach' && fail "a memfd stayed in the target"
[ "$(ls -l "/proc/$big/fd" | grep -c 'pipe:')" = "$pipes_before" ] || fail "a pipe stayed in the target"
pass "second dump; no descriptor left in the target"

# exit() with prof_final:true dumps again: it must not hang on a lock.
kill -USR1 "$big"
reap "$big" "$(slow 30)" "the target hangs in exit() (prof_final's dump)"
[ "$rc" = 0 ] || fail "the target exited $rc: $(cat "$big_out")"
ls "$WORK"/final.*.heap >/dev/null 2>&1 || fail "no prof_final dump"
pass "the target exited 0 and wrote its final profile"

# Leaving: SIGTERM while a long dump writes (2^19 stacks: jemalloc collects
# for ~2.5 s, then writes ~250 MB for ~2.5 s, each write a syscall stop).
# jeattach goes at once; the borrowed thread finishes the dump and restores
# itself (the call ends in rt_sigreturn); what jeattach says stays behind
# (the pipe's read end, which the target keeps so that jemalloc meets a full
# pipe and EAGAIN, never a closed one and SIGPIPE) is all that does.
START_SECONDS=120 start_victim_env big2 \
	"MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0" \
	"$TARGETS/victim_bigprof" -n "$n2"
"$JEATTACH" -p "$big2" --dump "$WORK/c.heap" -v >"$WORK/leave.out" 2>"$WORK/leave.err" &
jp=$!
if [ "$SLOWDOWN" -gt 1 ]; then
	# The 1 s progress line leaves 0.3 s of a 1.3 s dump, less than the
	# poll and jeattach's own reaction take under TCG (2026-11-24: exit 0,
	# the dump over); 0.4 s after the action begins is inside prof.dump.
	await_line "$WORK/leave.err" "^jeattach: $big2: dump\$" "$jp" "the dump's start"
	sleep 0.4
else
	i=0
	until grep -qE 'dump running for [0-9]+ s, ([1-9][0-9]*\.[0-9]|0\.[1-9]) MB written' \
		"$WORK/leave.err"; do
		i=$((i + 1)); [ $i -gt "$(slow 1200)" ] && fail "no progress line: $(cat "$WORK/leave.err")"
		kill -0 "$jp" 2>/dev/null || fail "the dump ended before it could be interrupted"
		sleep 0.05
	done
fi
kill -TERM "$jp"
reap "$jp" "$(slow 2)" "jeattach did not leave within $(slow 2) s of SIGTERM"
[ "$rc" = 143 ] || fail "exit $rc after SIGTERM (wanted 128+15): $(cat "$WORK/leave.err")"
grep -q 'interrupted while jemalloc wrote the profile' "$WORK/leave.err" ||
	fail "no word of the running dump: $(cat "$WORK/leave.err")"
[ -e "$WORK/c.heap" ] && fail "a partial profile was published"
ls "$WORK"/.jeattach-* >/dev/null 2>&1 && fail "a temporary file was left"
grep -q "keeps the pipe's read end (descriptor [0-9]*)" "$WORK/leave.err" ||
	fail "the descriptor left is not named: $(cat "$WORK/leave.err")"
pass "left on SIGTERM (exit 143): $(grep -o "keeps the pipe's read end (descriptor [0-9]*)" "$WORK/leave.err")"
a=$(iters "$big2_out" "$big2"); sleep 1; b=$(iters "$big2_out" "$big2")
[ "$b" -gt "$a" ] || fail "the target stopped allocating after jeattach left: $a -> $b"
expect_rc 0 "$JEATTACH" -p "$big2" --dump "$WORK/d.heap" --timeout "$(slow 10)"
stacks=$(grep -c '^@' "$WORK/d.heap")
[ "$stacks" -ge "$n2" ] || fail "the next dump is not whole: $stacks stacks"
rm -f "$WORK/d.heap"
pass "the target went on ($a -> $b rounds) and dumps again ($stacks stacks)"
kill -USR1 "$big2"
reap "$big2" "$(slow 60)" "the target hangs in exit() after jeattach left"
[ "$rc" = 0 ] || fail "the target exited $rc after jeattach left: $(cat "$big2_out")"
pass "the target exited 0"
