#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --status, --activate, --deactivate wherever jemalloc may be: a shared
# libjemalloc, LD_PRELOAD, linked statically into the program; with --json
# parsed and checked, and the victims checking themselves afterwards.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

check_target() {
	name=$1; pid=$2; want_static=$3; want_table=$4; want_loaded=$5
	expect_rc 0 "$JEATTACH" -p "$pid" --status --json
	[ "$(printf '%s\n' "$OUT" | wc -l)" = 1 ] || fail "$name: JSON is not one line"
	[ "$(json_get "$OUT" "j['ok'] and j['pid'] == $pid and j['exit_code'] == 0")" = True ] ||
		fail "$name: $OUT"
	[ "$(json_get "$OUT" "j['jemalloc']['static']")" = "$want_static" ] || fail "$name: static? $OUT"
	[ "$(json_get "$OUT" "j['actions'][0]['symbol_table']")" = "$want_table" ] || fail "$name: table? $OUT"
	json_get "$OUT" "j['actions'][0]['version']" | grep -q '^5\.' || fail "$name: version $OUT"
	# Where jemalloc lives, named (item 4 of issue 13).
	[ "$(json_get "$OUT" "j['actions'][0]['loaded_as']")" = "$want_loaded" ] || fail "$name: loaded_as $OUT"
	[ "$(json_get "$OUT" "j['actions'][0]['activation_reaches_existing_threads']")" != "" ] || fail "$OUT"
	[ "$(json_get "$OUT" "(j['actions'][0]['opt_prof'], j['actions'][0]['prof_active'])")" = \
		"(True, False)" ] || fail "$name: $OUT"
	[ "$(json_get "$OUT" "j['holds'] == 1 and 0 < j['hold_us_max'] <= j['hold_us_total']")" = True ] ||
		fail "$name: hold times $OUT"
	expect_rc 0 "$JEATTACH" -p "$pid" --activate --json
	[ "$(json_get "$OUT" "(j['actions'][0]['previous'], j['actions'][0]['prof_active'])")" = \
		"(False, True)" ] || fail "$name: activate $OUT"
	expect_rc 0 "$JEATTACH" -p "$pid" --activate --deactivate --json
	[ "$(json_get "$OUT" "[(a['previous'], a['prof_active']) for a in j['actions']]")" = \
		"[(True, True), (True, False)]" ] || fail "$name: activate+deactivate $OUT"
	# Human output: short, one block per action.
	expect_rc 0 "$JEATTACH" -p "$pid" --status
	echo "$OUT" | grep -q "^$pid (.*) status" || fail "$name: text $OUT"
	expect_rc 0 "$JEATTACH" -p "$pid" --status -q
	[ -z "$OUT" ] || fail "$name: -q printed $OUT"
	pass "$name"
}

start_victim dyn "$TARGETS/victim_dyn" -b 2
check_target dyn "$dyn" False dynsym "shared library"
finish_victim dyn

start_victim stat "$TARGETS/victim_static" -b 2
check_target static "$stat" True symtab "linked into the program"
finish_victim stat

if [ -n "${JEMALLOC_SO:-}" ] && [ -f "$JEMALLOC_SO" ]; then
	start_victim_env pre "LD_PRELOAD=$JEMALLOC_SO" "$TARGETS/victim_plain" -b 2
	check_target preload "$pre" False dynsym LD_PRELOAD
	finish_victim pre
else
	echo "note: no libjemalloc.so.2 found by configure; LD_PRELOAD case not tested"
fi

# The verdict (issue 33 item 2): the text opens with the runbook's answer,
# "can I profile this?", and --json has it as profiling/verdict.
verdict() { # PID WANT_KIND TEXT_REGEX
	expect_rc 0 "$JEATTACH" -p "$1" --status
	printf '%s\n' "$OUT" | head -1 | grep -qE "^$1 \(.*\) status: $3" || fail "verdict: $OUT"
	expect_rc 0 "$JEATTACH" -p "$1" --status --json
	[ "$(json_get "$OUT" "j['actions'][0]['profiling']")" = "$2" ] || fail "profiling: $OUT"
	json_get "$OUT" "j['actions'][0]['verdict']" | grep -qE "^$3" || fail "verdict: $OUT"
}
start_victim v "$TARGETS/victim_dyn" -b 1
verdict "$v" inactive 'profiling ready, inactive: --activate or --for DURATION starts sampling'
expect_rc 0 "$JEATTACH" -p "$v" --activate -q
verdict "$v" active 'profiling active: --dump writes a heap profile now'
finish_victim v
start_victim_env off "MALLOC_CONF=" "$TARGETS/victim_dyn" -b 1
verdict "$off" not_enabled 'profiling not possible: the process was started without prof:true.*restart it with MALLOC_CONF=prof:true,prof_active:false'
finish_victim off
pass "--status opens with its verdict: ready, active, not possible and what to do"

# Several targets in one run: one JSON line each, and exit 11 when one fails.
start_victim a "$TARGETS/victim_dyn" -b 0
start_victim b "$TARGETS/victim_plain" -b 0
expect_rc 11 "$JEATTACH" -p "$a,$b" --status --json
[ "$(printf '%s\n' "$OUT" | wc -l)" = 2 ] || fail "two targets, not two lines: $OUT"
[ "$(printf '%s\n' "$OUT" | head -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["ok"])')" = True ] || fail "$OUT"
[ "$(printf '%s\n' "$OUT" | tail -1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["exit_code"])')" = 5 ] || fail "$OUT"
finish_victim a
finish_victim b
