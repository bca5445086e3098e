#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --get and --set over the control table: every type, read-back, refusals.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim v "$TARGETS/victim_dyn" -b 1
# prof.gdump on needs a prefix chosen first (t_gdump.sh).
expect_rc 0 "$JEATTACH" -p "$v" --json --set "prof.prefix=$WORK/gd" --set prof.gdump=true --get prof.gdump \
	--set prof.gdump=off --get prof.gdump --set epoch=1 --get stats.allocated \
	--get arenas.narenas --get opt.lg_prof_interval --get opt.prof_prefix \
	--set prof.reset=12 --get prof.lg_sample --set arena.4096.purge=
v_of() { json_get "$OUT" "j['actions'][$1].get('$2')"; }
[ "$(v_of 1 previous)" = False ] && [ "$(v_of 1 value)" = True ] || fail "set bool: $OUT"
[ "$(v_of 2 value)" = True ] || fail "read back: $OUT"
[ "$(v_of 4 value)" = False ] || fail "off: $OUT"
[ "$(json_get "$OUT" "j['actions'][6]['value'] > 100000")" = True ] || fail "stats.allocated: $OUT"
[ "$(json_get "$OUT" "j['actions'][7]['value'] >= 1")" = True ] || fail "narenas: $OUT"
[ "$(v_of 8 value)" = -1 ] || fail "ssize_t: $OUT"
[ "$(v_of 9 value)" = jeprof ] || fail "string: $OUT"
[ "$(v_of 11 value)" = 12 ] || fail "prof.reset did not set lg_sample: $OUT"
[ "$(json_get "$OUT" "j['actions'][12]['ok']")" = True ] || fail "purge: $OUT"
# Human text shows values plainly.
expect_rc 0 "$JEATTACH" -p "$v" --get opt.prof_prefix
echo "$OUT" | grep -q 'value *jeprof$' || fail "$OUT"
# A value jemalloc rejects: a decay time below -1 (decay_ms_valid()).
expect_rc 7 "$JEATTACH" -p "$v" --set arenas.dirty_decay_ms=-5
echo "$ERR" | grep -q 'arenas.dirty_decay_ms' || fail "$ERR"
expect_rc 0 "$JEATTACH" -p "$v" --get arenas.dirty_decay_ms --json
[ "$(v_of 0 value)" = 10000 ] || fail "the rejected value was applied: $OUT"
# A control whose read has an effect is not read (arenas.create makes an
# arena on every read); an index of 300 digits is no control (exit 2, not 1).
expect_rc 2 "$JEATTACH" -p "$v" --get arenas.create
echo "$ERR" | grep -q 'reading it changes the process' || fail "arenas.create: $ERR"
expect_rc 2 "$JEATTACH" -p "$v" --get "arena.$(printf '1%.0s' $(seq 300)).dirty_decay_ms"
pass "no --get with side effects; absurd indexes refused"
finish_victim v
