#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What an operator sees in a file, a log or at a Ctrl-C (issue 33 items 1,
# 4, 12): a --for --baseline that must be refused is refused at once, not
# after its window; a --for's first results are in a file (> out) while it
# waits; an interrupted series says in one line what was done and what
# skipped; a Ctrl-C while jeattach still looks for a safe point (nothing
# borrowed) ends it at once, exit 130, nothing reported.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# await_file FILE ERRFILE: up to 20 s for jeattach to write FILE.
await_file() {
	i=0
	until [ -e "$1" ]; do
		i=$((i + 1)); [ $i -gt 400 ] && fail "no $1: $(cat "$2")"
		sleep 0.05
	done
}

# 1. Never active: the empty baseline is known in the first hold; the
# 10-minute window is not waited for (before: 10 minutes, then the refusal).
start_victim v "$TARGETS/victim_dyn" -b 0 -H
t0=$(date +%s)
expect_rc 2 timeout 60 "$JEATTACH" -p "$v" --for 10m --baseline --dump "$WORK/b.heap"
[ $(($(date +%s) - t0)) -lt 30 ] || fail "the refusal came after $(($(date +%s) - t0)) s"
echo "$ERR" | grep -q 'the baseline would be empty: profiling was off.*--activate, let it sample' || fail "$ERR"
[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "not one line: $ERR"
pass "--for 10m --baseline refused at once, with what to do"

# 12. Ctrl-C while no thread is borrowed: the only thread asked for (--tid)
# sits in a signal handler, never at a safe point; the search would go on
# until --timeout (30 s). It ends at once, reports nothing, exit 130.
ih=$(victim_tid v inhandler)
"$JEATTACH" -p "$v" --tid "$ih" --status --timeout 30 >"$WORK/s.out" 2>"$WORK/s.err" &
jp=$!
sleep 0.5
t0=$(date +%s%N)
kill -INT "$jp"
wait "$jp"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" = 130 ] || fail "exit $rc after SIGINT: $(cat "$WORK/s.err")"
[ "$ms" -lt 2000 ] || fail "left $ms ms after SIGINT"
[ ! -s "$WORK/s.out" ] || fail "a status was printed: $(cat "$WORK/s.out")"
grep -q "interrupted by SIGINT: status: 0 of 1 done, 1 skipped" "$WORK/s.err" || fail "$(cat "$WORK/s.err")"
pass "Ctrl-C while looking for a safe point: gone in $ms ms, exit 130, nothing reported"

# 4. Ctrl-C during --every: one line for what was done and what skipped,
# not a pair of lines per dump that was not made.
"$JEATTACH" -p "$v" --every 400ms --count 10 --dump "$WORK/e.%n.heap" >"$WORK/e.out" 2>"$WORK/e.err" &
jp=$!
await_file "$WORK/e.1.heap" "$WORK/e.err"
kill -INT "$jp"
wait "$jp"
rc=$?
[ "$rc" = 130 ] || fail "exit $rc after SIGINT"
n=$(ls "$WORK"/e.*.heap | wc -l)
grep -q "skipped" "$WORK/e.out" && fail "skipped steps on stdout: $(cat "$WORK/e.out")"
[ "$(grep -c 'interrupted by' "$WORK/e.err")" = 1 ] || fail "$(cat "$WORK/e.err")"
grep -q "interrupted by SIGINT: dump: $n of 10 done, $((10 - n)) skipped$" "$WORK/e.err" ||
	fail "$n dumps: $(cat "$WORK/e.err")"
pass "Ctrl-C during --every: one line ($n of 10 done)"
# SIGTERM on a 30-count series: the same one line (profiling on: no
# warning that the dumps hold old samples).
expect_rc 0 "$JEATTACH" -p "$v" --activate -q
"$JEATTACH" -p "$v" --every 300ms --count 30 --dump "$WORK/t.%n.heap" >"$WORK/t.out" 2>"$WORK/t.err" &
jp=$!
sleep 1
kill -TERM "$jp"
wait "$jp"
rc=$?
[ "$rc" = 143 ] || fail "exit $rc after SIGTERM"
[ "$(wc -l <"$WORK/t.err")" = 1 ] || fail "$(cat "$WORK/t.err")"
grep -q "interrupted by SIGTERM: dump: [0-9]* of 30 done, [0-9]* skipped$" "$WORK/t.err" || fail "$(cat "$WORK/t.err")"
pass "SIGTERM during a 30-count series: one line"
finish_victim v

# 4. --for into a file: the baseline's results are there while the window
# runs, not only at its end.
start_victim_env k "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0" "$TARGETS/victim_bigprof" -n 64
"$JEATTACH" -p "$k" --for "$(slow 4)s" --baseline --dump "$WORK/f.heap" >"$WORK/f.out" 2>"$WORK/f.err" &
jp=$!
await_file "$WORK/f.heap.base" "$WORK/f.err"
sleep 0.3
kill -0 "$jp" 2>/dev/null || fail "jeattach ended before the window did"
grep -q "^$k (.*) for_begin" "$WORK/f.out" || fail "nothing in the file during the window: [$(cat "$WORK/f.out")]"
grep -q "file .*f.heap.base" "$WORK/f.out" || fail "$(cat "$WORK/f.out")"
wait "$jp" || fail "exit $?: $(cat "$WORK/f.err")"
[ "$(grep -c "(.*) for_begin" "$WORK/f.out")" = 1 ] || fail "the baseline told twice: $(cat "$WORK/f.out")"
grep -q "^$k (.*) dump" "$WORK/f.out" || fail "no final dump: $(cat "$WORK/f.out")"
finish_victim k
pass "--for > file: the baseline's result is in the file while the window runs"
