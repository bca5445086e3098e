#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Over time: --for (with --baseline, interrupted), --every/--count, a target
# exiting between periodic dumps, --all NAME, and the refusals.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
load_sensitive

# Refused before any target is touched.
for bad in "--for 3x" "--every 1s" "--count 2" "--baseline --dump x.heap" \
	"--every 1s --count 2 --dump $WORK/no-n.heap" "--for 1s --every 1s" \
	"--for 1s --dump a --dump b" "--count 0 --every 1s"; do
	# shellcheck disable=SC2086
	expect_rc 2 "$JEATTACH" -p 1 $bad
	[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "$bad: $ERR"
done

start_victim v "$TARGETS/victim_dyn" -b 2
# --for with a baseline: two holds, two files, prof.active back to false.
# The baseline needs samples from before (t_stale.sh): blocks sampled while
# profiling was on, kept live.
start_victim_env k "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0" "$TARGETS/victim_bigprof" -n 64
expect_rc 0 "$JEATTACH" -p "$k" --deactivate
t0=$(date +%s%N)
expect_rc 0 "$JEATTACH" -p "$k" --for 1s --baseline --dump "$WORK/f.heap" --json
t1=$(date +%s%N)
[ $(( (t1 - t0) / 1000000 )) -ge 1000 ] || fail "--for 1s returned early"
[ "$(json_get "$OUT" "[a['action'] for a in j['actions']]")" = \
	"['for_begin', 'wait', 'dump', 'for_end']" ] || fail "$OUT"
[ "$(json_get "$OUT" "j['holds']")" = 2 ] || fail "not two holds: $OUT"
head -1 "$WORK/f.heap" | grep -q '^heap_v2/' || fail "no profile"
head -1 "$WORK/f.heap.base" | grep -q '^heap_v2/' || fail "no baseline"
expect_rc 0 "$JEATTACH" -p "$k" --get prof.active --json
[ "$(json_get "$OUT" "j['actions'][0]['value']")" = False ] || fail "prof.active not restored"
finish_victim k
# Already active: says so and leaves it on.
expect_rc 0 "$JEATTACH" -p "$v" --activate
expect_rc 0 "$JEATTACH" -p "$v" --for 200ms --dump "$WORK/g.heap" --json
[ "$(json_get "$OUT" "j['actions'][0]['already_active']")" = True ] || fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$v" --get prof.active --deactivate --json
[ "$(json_get "$OUT" "j['actions'][0]['value']")" = True ] || fail "turned off: $OUT"

# Interrupted: SIGINT ends the wait, the dump and the restore still happen.
# The signal goes once the window has begun (-v says "released" after the
# hold that opened it): sent earlier, it could reach jeattach before its
# handler exists, where the shell's background job ignores SIGINT (seen on
# the emulated arm64 machine, whose start takes more than a second).
"$JEATTACH" -p "$v" -v --for 60s --dump "$WORK/i.heap" --json >"$WORK/i.json" 2>"$WORK/i.err" &
jp=$!
i=0
until grep -q ': released$' "$WORK/i.err"; do
	i=$((i + 1))
	[ $i -gt 1200 ] && fail "the window did not begin: $(cat "$WORK/i.err")"
	sleep 0.05
done
kill -INT "$jp"
wait "$jp"
rc=$?
[ "$rc" = 130 ] || fail "exit $rc after SIGINT: $(cat "$WORK/i.err")"
head -1 "$WORK/i.heap" | grep -q '^heap_v2/' || fail "no dump after SIGINT"
[ "$(json_get "$(cat "$WORK/i.json")" "j['actions'][1]['interrupted']")" = True ] || fail "$(cat "$WORK/i.json")"
expect_rc 0 "$JEATTACH" -p "$v" --get prof.active --json
[ "$(json_get "$OUT" "j['actions'][0]['value']")" = False ] || fail "not restored after SIGINT"
pass "--for"

# --every: N files; SIGTERM skips the rest.
expect_rc 0 "$JEATTACH" -p "$v" --every 200ms --count 3 --dump "$WORK/e.%n.heap" -q
[ "$(ls "$WORK"/e.*.heap | wc -l)" = 3 ] || fail "$(ls "$WORK")"
"$JEATTACH" -p "$v" --every 500ms --count 20 --dump "$WORK/t.%n.heap" --json >"$WORK/t.json" &
jp=$!
sleep "$(slow 12)e-1"
kill -TERM "$jp"
wait "$jp"
rc=$?
[ "$rc" = 143 ] || fail "exit $rc after SIGTERM"
n=$(ls "$WORK"/t.*.heap | wc -l)
[ "$n" -ge 2 ] && [ "$n" -lt 20 ] || fail "$n periodic dumps"
[ "$(json_get "$(cat "$WORK/t.json")" "sum(1 for a in j['actions'] if a.get('skipped'))")" -gt 0 ] ||
	fail "no dump marked skipped"
finish_victim v
pass "--every"

# A target that exits between periodic dumps: exit 3, earlier dumps kept.
# (Times scaled by TEST_SLOWDOWN: the first dump must come before the exit.)
env MALLOC_CONF=prof:true,prof_active:false "$TARGETS/victim_dyn" -b 1 -x "$(slow 900)" >/dev/null 2>&1 &
xp=$!
track "$xp"
sleep "$(slow 2)e-1"
expect_rc 3 "$JEATTACH" -p "$xp" --every "$(slow 300)ms" --count 10 --dump "$WORK/x.%n.heap"
echo "$ERR" | grep -q 'exited' || fail "$ERR"
[ -s "$WORK/x.0.heap" ] || fail "the dumps before the exit were lost"
pass "target exiting between dumps"

# --all NAME: every process of that name, one JSON line each; one line
# when it finds none.
cp "$TARGETS/victim_dyn" "$WORK/jeallvictim"
start_victim a1 "$WORK/jeallvictim" -b 0
start_victim a2 "$WORK/jeallvictim" -b 0
expect_rc 0 "$JEATTACH" --all jeallvictim --status --json
[ "$(printf '%s\n' "$OUT" | wc -l)" = 2 ] || fail "$OUT"
printf '%s\n' "$OUT" | grep -q "\"pid\":$a1," || fail "$OUT"
printf '%s\n' "$OUT" | grep -q "\"pid\":$a2," || fail "$OUT"
keys=$(printf '%s\n' "$OUT" | head -1 | python3 -c 'import json, sys; print(list(json.load(sys.stdin)))')
# A run that finds no target still prints its one object (doc/json.md):
# the same keys, pid null, the error and exit code; one line on stderr.
expect_rc 3 "$JEATTACH" --all no-such-process-name --status --json
[ "$(printf '%s\n' "$OUT" | wc -l)" = 1 ] || fail "$OUT"
[ "$(json_get "$OUT" "list(j)")" = "$keys" ] || fail "not the record's keys: $OUT"
[ "$(json_get "$OUT" "(j['pid'], j['ok'], j['exit_code'], j['error'], j['actions'])")" = \
	"(None, False, 3, 'no process named no-such-process-name; check the name (ps -e)', [])" ] ||
	fail "$OUT"
[ "$ERR" = "jeattach: no process named no-such-process-name; check the name (ps -e)" ] || fail "$ERR"
expect_rc 8 "$JEATTACH" --all jeallvictim --dump "$WORK/no/such/dir/%p.heap" --json
[ "$(json_get "$OUT" "(j['pid'], j['exit_code'])")" = "(None, 8)" ] || fail "$OUT"
expect_rc 3 "$JEATTACH" --all no-such-process-name --status
[ -z "$OUT" ] || fail "a record without --json: $OUT"
expect_rc 2 "$JEATTACH" --all jeallvictim --dump "$WORK/same.heap"
finish_victim a1
finish_victim a2
pass "--all"
