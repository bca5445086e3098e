#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Progress while jeattach works: on a terminal one live line (redrawn with
# \r, cleared at the end) for a wait (time left, what follows, what Ctrl-C
# does), each dump of a series as it lands (size, samples), and a long
# prof.dump (seconds, bytes so far); nothing of it on a non-terminal; with
# --json one event line per happening on stdout, before the unchanged
# per-target record. A terminal comes from script(1) (util-linux).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
command -v script >/dev/null || skip "no script(1)"
# tty CMD: run CMD with stdin, stdout and stderr on a pseudo-terminal; its
# bytes, as cat -v shows them, in $TTY.
tty_run() {
	script -qfec "$*" /dev/null </dev/null >"$WORK/tty.raw" 2>&1
	TTY=$(cat -v "$WORK/tty.raw")
}

start_victim_env v "MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:10" "$TARGETS/victim_dyn" -b 2

# --every on a terminal: each dump as it lands, the countdown between.
tty_run "'$JEATTACH' -p $v --activate --every 1s --count 2 --dump '$WORK/e%n.heap' >/dev/null"
echo "$TTY" | grep -q "jeattach: $v: dump 1 of 2 written: $WORK/e0.heap, [0-9]* bytes, [0-9]* samples" ||
	fail "no line for the first dump: $TTY"
echo "$TTY" | grep -q "dump 2 of 2 written: $WORK/e1.heap" || fail "no line for the second: $TTY"
echo "$TTY" | grep -q 's left; then dump 2 of 2; Ctrl-C stops, the dumps made are kept' ||
	fail "no countdown: $TTY"
# The countdown is erased (\r, then ESC [ K: erase to the end of the line)
# before the next line, and the output ends at the start of a line.
echo "$TTY" | grep -q 'kept^\[\[K^M^\[\[K' || fail "the countdown was not erased: $TTY"
[ "$(tail -c 1 "$WORK/tty.raw" | od -An -c | tr -d ' ')" = '\n' ] || fail "a line left drawn: $TTY"
pass "--every on a terminal: dumps as they land, the countdown, cleared"

# --for on a terminal: time left and what follows.
tty_run "'$JEATTACH' -p $v --for 1s --dump '$WORK/f.heap' >/dev/null"
echo "$TTY" | grep -q '1 s left; then dump and put prof.active back; Ctrl-C ends the wait early, and still dumps and restores' ||
	fail "--for: $TTY"
pass "--for on a terminal: time left, the end, Ctrl-C"

# Not a terminal: nothing of it.
expect_rc 0 "$JEATTACH" -p "$v" --every 1s --count 2 --dump "$WORK/n%n.heap"
case $ERR in *"s left"*|*"written:"*|*"$(printf '\r')"*) fail "progress on a non-terminal: $ERR" ;; esac
pass "nothing on a non-terminal"

# --json: events as they happen, then the record, unchanged.
expect_rc 0 "$JEATTACH" -p "$v" --every 1s --count 2 --dump "$WORK/j%n.heap" --json
[ "$(printf '%s\n' "$OUT" | tail -1 | cut -c1-7)" = '{"pid":' ] || fail "the record is not last: $OUT"
ev=$(json_events "$OUT")
printf '%s\n' "$ev" | python3 -c '
import json, os, sys
ev = [json.loads(l) for l in sys.stdin]
kinds = [e["event"] for e in ev]
assert kinds[0] == "dump" and kinds[-1] == "dump", kinds
assert "wait" in kinds and "wait_end" in kinds, kinds
assert kinds.index("wait") < kinds.index("wait_end") < len(kinds) - 1, kinds
dumps = [e for e in ev if e["event"] == "dump"]
assert [d["seq"] for d in dumps] == [0, 1], dumps
for d in dumps:
    assert d["pid"] == int(sys.argv[1]) and d["bytes"] == os.path.getsize(d["file"]), d
    assert isinstance(d["samples"], int) and d["prof_active"] is True, d
w = [e for e in ev if e["event"] == "wait"]
assert w[0]["total_ms"] == 1000 and all(0 <= e["remaining_ms"] <= 1000 for e in w), w
assert w[0]["then"].startswith("dump 2 of 2"), w
' "$v" || fail "events: $ev"
[ "$(json_get "$OUT" "[a['action'] for a in j['actions']]")" = "['dump', 'wait', 'dump']" ] || fail "$OUT"
# A run without waits prints the record alone, as before.
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/one.heap" --json
[ "$(printf '%s\n' "$OUT" | wc -l)" = 1 ] || fail "more than the record: $OUT"
expect_rc 0 "$JEATTACH" -p "$v" --deactivate
finish_victim v
pass "--json: dump, wait and wait_end events before the record"

# A long prof.dump (2^18 stacks: seconds to collect and write): its
# seconds and bytes on the terminal, and dump_running events in JSON. The
# first comes after a second of the call: a dump that took less (jeattach's
# own dump_us says so; an emulated machine builds fewer stacks, lib.sh's
# stacks, and dumps them faster than it builds them) cannot show one, and
# that is said instead.
START_SECONDS=120 start_victim_env big "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0" \
	"$TARGETS/victim_bigprof" -n "$(stacks 262144)"
tty_run "'$JEATTACH' -p $big --dump '$WORK/big.heap' --json >'$WORK/big.json'"
dump_us=$(json_get "$(tail -1 "$WORK/big.json")" "j['actions'][0]['dump_us']")
if [ "$dump_us" -lt 1100000 ] && ! echo "$TTY" | grep -q 'dump running for'; then
	finish_victim big
	echo "note: a long prof.dump's progress not checked: the dump took $dump_us us here (under the second a progress line waits for)"
	exit 0
fi
echo "$TTY" | grep -q "jeattach: $big: dump running for [0-9]* s, [0-9.]* MB written" ||
	fail "no progress line for a $dump_us us dump: $TTY"
grep -q '^{"event":"dump_running","pid":'"$big"',"elapsed_ms":[0-9]*,"bytes":[0-9]*}$' "$WORK/big.json" ||
	fail "no dump_running event: $(cat "$WORK/big.json")"
# JSON on the terminal itself: the events are the progress, no live line
# is drawn into them.
tty_run "'$JEATTACH' -p $big --dump '$WORK/big2.heap' --json"
echo "$TTY" | grep -q '^{"event":"dump_running"' || fail "no dump_running event on the terminal: $TTY"
echo "$TTY" | grep -q 'dump running for' && fail "a live line among the JSON lines: $TTY"
finish_victim big
pass "a long prof.dump: seconds and bytes written, on the terminal and in JSON"
