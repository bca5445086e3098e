#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Files jemalloc writes on its own (issue 33 item 8): prof.gdump writes a
# profile at each new peak, named from the prefix, where the process runs.
# Turning it on says where (its working directory through /proc/PID/cwd,
# and its prefix), and is refused, nothing changed, while the prefix is
# jemalloc's default, which no one chose; --set prof.prefix in the same
# command, or prof_prefix at start-up, is a choice.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

mkdir -p "$WORK/cwd/peaks"
cd "$WORK/cwd" || fail "no $WORK/cwd"
start_victim v "$TARGETS/victim_dyn" -b 1
cd / || fail "cd /"
for cmd in "--gdump=on" "--set prof.gdump=true"; do
	# shellcheck disable=SC2086
	expect_rc 2 "$JEATTACH" -p "$v" $cmd
	[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "$cmd: not one line: $ERR"
	echo "$ERR" | grep -qF "a profile at each new peak as $WORK/cwd/jeprof.$v.*.u*.heap, a place no one chose; give a prefix first, in the same command: --set prof.prefix=DIR/NAME --gdump=on" ||
		fail "$cmd: $ERR"
	expect_rc 0 "$JEATTACH" -p "$v" --get prof.gdump --json
	[ "$(json_get "$OUT" "j['actions'][0]['value']")" = False ] || fail "$cmd: turned on: $OUT"
done
pass "--gdump=on and --set prof.gdump=true refused without a chosen prefix, nothing changed"

# A prefix given first: on, and where the files go is said. Relative: from
# the process's working directory, not jeattach's.
expect_rc 0 "$JEATTACH" -p "$v" --set prof.prefix=peaks/p --gdump=on --json
[ "$(json_get "$OUT" "j['actions'][0]['files']")" = "$WORK/cwd/peaks/p.$v.*.heap" ] || fail "$OUT"
[ "$(json_get "$OUT" "j['actions'][1]['files']")" = "$WORK/cwd/peaks/p.$v.*.u*.heap" ] || fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$v" --gdump=off -q
expect_rc 0 "$JEATTACH" -p "$v" --set "prof.prefix=$WORK/abs" --gdump=on
printf '%s\n' "$OUT" | grep -qE "^  files +$WORK/abs\.$v\.\*\.u\*\.heap$" || fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$v" --gdump=off -q
finish_victim v
pass "with a prefix given in the same command: on, the files' place said"

# Chosen at start-up: accepted, and said.
cd "$WORK/cwd" || fail "no $WORK/cwd"
start_victim_env w "MALLOC_CONF=prof:true,prof_active:false,prof_prefix:startup" "$TARGETS/victim_dyn" -b 1
cd / || fail "cd /"
expect_rc 0 "$JEATTACH" -p "$w" --gdump=on --json
[ "$(json_get "$OUT" "j['actions'][0]['files']")" = "$WORK/cwd/startup.$w.*.u*.heap" ] || fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$w" --gdump=off -q
finish_victim w
pass "a prefix chosen at start-up: on, the files' place said"
