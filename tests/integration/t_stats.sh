#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --stats and --stats=full (whole, even with hundreds of arenas; never on the
# target's stderr), --purge/--decay/--reset/--gdump/--thread-active-init, and
# statistics from a target without profiling.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim_env v "MALLOC_CONF=stats_print:false" "$TARGETS/victim_dyn" -b 2 -w
expect_rc 0 "$JEATTACH" -p "$v" --stats --json
s() { json_get "$OUT" "j['actions'][0]['$1']"; }
[ "$(json_get "$OUT" "j['actions'][0]['allocated'] > 1000000")" = True ] || fail "$OUT"
[ "$(json_get "$OUT" "(lambda a: a['allocated'] <= a['active'] <= a['resident'] <= a['mapped'])(j['actions'][0])")" = True ] ||
	fail "inconsistent: $OUT"
[ "$(json_get "$OUT" "(lambda a: abs(a['active_per_allocated'] - a['active']/a['allocated']) < 1e-3)(j['actions'][0])")" = True ] ||
	fail "ratio: $OUT"
[ "$(s narenas)" -ge 1 ] || fail "$OUT"
pass "--stats without profiling enabled"
# Human units on a terminal, as --top and --frag show them (issue 33 item
# 9); bytes in a pipe and in JSON (above).
script -qfec "$JEATTACH -p $v --stats --purge" /dev/null </dev/null >"$WORK/tty.txt" 2>&1
grep -qE '^  allocated +[0-9.]+ MiB' "$WORK/tty.txt" || fail "terminal: $(cat "$WORK/tty.txt")"
grep -qE '^  resident_after +[0-9.]+ [KMG]?i?B' "$WORK/tty.txt" || fail "terminal: $(cat "$WORK/tty.txt")"
grep -qE '^  narenas +[0-9]+.$' "$WORK/tty.txt" || fail "narenas is no size: $(cat "$WORK/tty.txt")"
expect_rc 0 "$JEATTACH" -p "$v" --stats --purge
printf '%s\n' "$OUT" | grep -qE '^  allocated +[0-9]{7,}$' || fail "pipe: $OUT"
printf '%s\n' "$OUT" | grep -qE '^  resident_after +[0-9]+$' || fail "pipe: $OUT"
pass "--stats and --purge in MiB on a terminal, bytes in a pipe"

# A target with hundreds of arenas (it makes them itself: jeattach reads no
# control whose read has an effect): the full report must arrive whole, in
# text and in JSON.
finish_victim v
start_victim_env v "MALLOC_CONF=stats_print:false" "$TARGETS/victim_dyn" -b 2 -w -A 300
expect_rc 0 "$JEATTACH" -p "$v" --stats=full
printf '%s\n' "$OUT" | grep -q '^___ Begin jemalloc statistics ___$' || fail "no beginning"
printf '%s\n' "$OUT" | tail -1 | grep -q '^--- End jemalloc statistics ---$' || fail "no end"
size=$(printf '%s' "$OUT" | wc -c)
[ "$size" -gt 1000000 ] || fail "only $size bytes for 300+ arenas"
expect_rc 0 "$JEATTACH" -p "$v" --stats=full --json
# One record on one line; a call that runs over a second is announced
# first by "running" event lines (doc/json.md).
[ "$(printf '%s\n' "$OUT" | grep -vc '^{"event":')" = 1 ] || fail "JSON not on one line"
[ "$(json_get "$OUT" "len(j['actions'][0]['stats']['jemalloc']['stats.arenas']) > 300")" = True ] ||
	fail "arenas missing from the JSON report"
grep -q 'jemalloc statistics' "$v_out" && fail "the report went to the target's stderr"
pass "--stats=full, $size bytes, whole"

expect_rc 0 "$JEATTACH" -p "$v" --purge --decay --json
[ "$(json_get "$OUT" "[sorted(a) for a in j['actions']][0]")" = \
	"['action', 'error', 'ok', 'resident_after', 'resident_before']" ] || fail "$OUT"
# Profiling is off in this victim: the prof.* actions say how to enable it.
expect_rc 6 "$JEATTACH" -p "$v" --reset
expect_rc 6 "$JEATTACH" -p "$v" --gdump=on
finish_victim v

start_victim p "$TARGETS/victim_dyn" -b 1
expect_rc 0 "$JEATTACH" -p "$p" --reset=12 --set "prof.prefix=$WORK/gd" --gdump=on \
	--thread-active-init=off --json --get prof.lg_sample --get prof.gdump --get prof.thread_active_init
[ "$(json_get "$OUT" "[a.get('value') for a in j['actions'][4:]]")" = "[12, True, False]" ] ||
	fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$p" --gdump=off -q
expect_rc 2 "$JEATTACH" -p "$p" --gdump=maybe
expect_rc 2 "$JEATTACH" -p "$p" --reset=64
expect_rc 2 "$JEATTACH" -p "$p" --stats=half
finish_victim p
pass "reset, gdump, thread-active-init"
