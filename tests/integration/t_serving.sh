#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The service feels nothing: jeattach borrows the thread whose borrowing
# costs the service least. victim_serving's main thread serves without
# pause while three pool threads wait in pthread_cond_wait with no timeout
# (Redis' shape: its bio threads): no hold, of any action, lands on the
# serving thread, and --json names the held thread and what it was doing.
# A process with only its busy thread still gets its dump, with the warning
# said before the call.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim sv "$TARGETS/victim_serving"
serve=$(victim_tid sv serve)
[ -n "$serve" ] || fail "no serving thread: $(cat "$sv_out")"
holds=0
for round in 1 2 3 4; do
	for act in "--status" "--stats" "--dump $WORK/sv.heap --force" "--activate" "--deactivate" \
		"--stats=full" "--frag"; do
		# shellcheck disable=SC2086
		expect_rc 0 "$JEATTACH" -p "$sv" $act --json
		held=$(json_get "$OUT" "' '.join('%d:%s' % (h['tid'], h['state']) for h in j['held'])")
		[ -n "$held" ] || fail "$act: no held thread in --json: $OUT"
		for h in $held; do
			holds=$((holds + 1))
			[ "${h%%:*}" != "$serve" ] || fail "$act (round $round): the serving thread was borrowed: $held"
			[ "${h#*:}" = untimed_wait ] || fail "$act: held a thread that was ${h#*:}, not a pool one: $held"
		done
		echo "$ERR" | grep -q 'which is busy' && fail "$act: warned of a busy thread with a pool idle: $ERR"
	done
done
finish_victim sv max_gap_us rounds
pass "$holds holds of 7 actions: every one on an idle pool thread, never on the serving one"

# One thread, always busy: the dump runs on it, said before the call.
start_victim one "$TARGETS/victim_serving" -n 0
expect_rc 0 "$JEATTACH" -p "$one" --dump "$WORK/one.heap" --json
echo "$ERR" | grep -q "the dump will run on thread $one (victim_serving), which is busy" ||
	fail "no warning before a dump on a busy thread: $ERR"
[ "$(json_get "$OUT" "j['held'][0]['state']")" = running ] || fail "held state not running: $OUT"
grep -q '^heap_v2/' "$WORK/one.heap" || fail "no profile: $(head -c 200 "$WORK/one.heap")"
# A short call on it says nothing.
expect_rc 0 "$JEATTACH" -p "$one" --status
echo "$ERR" | grep -q 'which is busy' && fail "--status warned: $ERR"
finish_victim one max_gap_us rounds
pass "a one-thread busy process: the dump works, the warning said before it"
