#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# No silent nonsense: a dump taken while prof.active is false says that it
# holds only samples from before (a warning line; in JSON prof_active false
# and a warnings entry), once per run however many dumps --every makes; a
# --baseline is taken after the activation and, when it would hold no
# sample at all, refused with the reason and prof.active put back.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

W="profiling is off: this profile holds only samples from before; --activate or --for"
# No busy thread: nothing allocates between the activation and the baseline.
start_victim_env v "MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:10" "$TARGETS/victim_dyn" -b 0

# Never active: --for --baseline would compare with an empty baseline.
expect_rc 2 "$JEATTACH" -p "$v" --for 200ms --baseline --dump "$WORK/b.heap"
echo "$ERR" | grep -q 'the baseline would be empty: profiling was off' || fail "$ERR"
[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "not one line: $ERR"
[ -e "$WORK/b.heap.base" ] && fail "an empty baseline was written"
expect_rc 0 "$JEATTACH" -p "$v" --get prof.active --json
[ "$(json_get "$OUT" "j['actions'][0]['value']")" = False ] || fail "prof.active left on"
pass "an empty --baseline refused, prof.active put back"

# A dump while profiling is off: said, in text and in JSON.
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/off.heap"
echo "$ERR" | grep -qF "warning: $W" || fail "no warning: $ERR"
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/off2.heap" --json
[ "$(json_get "$OUT" "j['actions'][0]['prof_active']")" = False ] || fail "$OUT"
[ "$(json_get "$OUT" "j['actions'][0]['warnings']")" = "['$W']" ] || fail "$OUT"
# --every: once, not once per dump.
expect_rc 0 "$JEATTACH" -p "$v" --every 100ms --count 3 --dump "$WORK/e%n.heap"
[ "$(printf '%s\n' "$ERR" | grep -c 'profiling is off')" = 1 ] || fail "not said once: $ERR"
expect_rc 0 "$JEATTACH" -p "$v" --every 100ms --count 3 --dump "$WORK/j%n.heap" --json
[ "$(json_get "$OUT" "[len(a.get('warnings', [])) for a in j['actions'] if a['action'] == 'dump']")" = "[1, 0, 0]" ] ||
	fail "$OUT"
pass "a dump while profiling is off says so, once per run"

# Active: no warning.
expect_rc 0 "$JEATTACH" -p "$v" --activate
sleep 0.3
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/on.heap" --json
[ "$(json_get "$OUT" "'warnings' in j['actions'][0]")" = False ] || fail "$OUT"
[ "$(json_get "$OUT" "j['actions'][0]['prof_active']")" = True ] || fail "$OUT"
finish_victim v
pass "no warning while profiling is on"

# Off now, but samples live from an earlier active time (blocks kept since
# start, each sampled): the baseline holds them, taken after activation.
start_victim_env k "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0" "$TARGETS/victim_bigprof" -n 256
expect_rc 0 "$JEATTACH" -p "$k" --deactivate
expect_rc 0 "$JEATTACH" -p "$k" --for 300ms --baseline --dump "$WORK/a.heap" --json
[ "$(json_get "$OUT" "j['actions'][0]['samples'] >= 256")" = True ] || fail "baseline: $OUT"
[ "$(json_get "$OUT" "j['actions'][0]['prof_active']")" = True ] || fail "not after activation: $OUT"
[ "$(json_get "$OUT" "j['actions'][0]['previous']")" = False ] || fail "$OUT"
head -2 "$WORK/a.heap.base" | grep -q 't\*: 0: 0' && fail "the baseline is empty"
expect_rc 0 "$JEATTACH" -p "$k" --get prof.active --json
[ "$(json_get "$OUT" "j['actions'][0]['value']")" = False ] || fail "prof.active left on"
# A baseline that cannot be written (past --max-dump) ends the run before
# the wait: prof.active is put back all the same.
expect_rc 8 "$JEATTACH" -p "$k" --for 300ms --baseline --dump "$WORK/m.heap" --max-dump 1K
echo "$ERR" | grep -q 'past --max-dump' || fail "$ERR"
expect_rc 0 "$JEATTACH" -p "$k" --get prof.active --json
[ "$(json_get "$OUT" "j['actions'][0]['value']")" = False ] || fail "prof.active left on after a failed baseline"
finish_victim k
pass "a baseline taken after activation holds the samples from before"
