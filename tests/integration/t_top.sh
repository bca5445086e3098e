#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --top: bad input refused with one line; on a non-terminal one JSON line
# per refresh (totals, rates, arenas, every thread's counters read with no
# stop after one borrow each); threads that come and go; the target's exit
# and SIGTERM end it cleanly; the victims' self-checks stay clean. Threads
# are located by their thread pointers, never borrowed: idle threads cost
# the target nothing (no tsd, no tcache: stats.metadata stays flat).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim v "$TARGETS/victim_dyn" -b 4 -t

# Bad input: exit 2, one line naming the fix.
expect_rc 2 "$JEATTACH" -p "$v,$v" --top
echo "$ERR" | grep -q -- '--top watches one process: give one pid' || fail "$ERR"
expect_rc 2 "$JEATTACH" -p "$v" --top --dump x.heap
echo "$ERR" | grep -q -- '--top is a view of its own' || fail "$ERR"
expect_rc 2 "$JEATTACH" -p "$v" --stats --interval 1s
echo "$ERR" | grep -q -- '--interval goes with --top or --prometheus' || fail "$ERR"
expect_rc 2 "$JEATTACH" -p "$v" --top --interval 5ms
echo "$ERR" | grep -q -- 'at least 100ms' || fail "$ERR"
expect_rc 2 "$JEATTACH" --all victim_dyn --top
echo "$ERR" | grep -q -- 'watches one process' || fail "$ERR"
pass "bad input refused"

# No jemalloc in the target: the engine's one-line message and code.
start_victim p "$TARGETS/victim_plain" -b 0
expect_rc 5 "$JEATTACH" -p "$p" --top
echo "$ERR" | grep -q "^jeattach: $p: no jemalloc found" || fail "$ERR"
[ -z "$OUT" ] || fail "printed: $OUT"
finish_victim p
pass "no jemalloc: exit 5"

# A refresh that finds no safe thread within --timeout (the only thread
# asked for sits in a signal handler) is one missed line, and the view
# goes on, on its cadence: the next refresh at the next 400 ms tick, not
# at once (before: exit 9 at the first; a late row was followed by one a
# few ms after it). A view that never held a thread ends with exit 9.
start_victim h "$TARGETS/victim_dyn" -b 0 -H
"$JEATTACH" -p "$h" --top --tid "$(victim_tid h inhandler)" --interval 400ms --timeout 0.5 --count 3 \
	2>"$WORK/m.err" | python3 -c '
import sys, time
for l in sys.stdin: print("%.3f %s" % (time.monotonic(), l.strip()), flush=True)' >"$WORK/m.out"
python3 - "$WORK/m.out" "$h" <<'PY' || fail "missed refreshes: $(cat "$WORK/m.out")"
import json, sys
rows = [l.split(" ", 1) for l in open(sys.argv[1])]
assert len(rows) == 3, rows
for k, (at, line) in enumerate(rows):
    j = json.loads(line)
    assert j["pid"] == int(sys.argv[2]) and j["seq"] == k + 1 and j["missed"] is True, j
    assert "is running a signal handler" in j["error"], j
# each hold gives up after 0.5 s, past the 0.4 s tick: the next starts at
# the tick after (0.8 s), never at once
gaps = [float(rows[k + 1][0]) - float(rows[k][0]) for k in range(2)]
assert all(g > 0.7 for g in gaps), gaps
PY
grep -q "no thread was at a safe point" "$WORK/m.err" || fail "no message for the exit 9: $(cat "$WORK/m.err")"
finish_victim h
pass "a missed refresh is a line of its own, the view keeps its cadence"

# A pipe: JSON lines, one per refresh.
expect_rc 0 "$JEATTACH" -p "$v" --top --interval 300ms --count 4
[ "$(printf '%s\n' "$OUT" | wc -l)" = 4 ] || fail "not 4 lines: $OUT"
printf '%s\n' "$OUT" >"$WORK/top.jsonl"
python3 - "$WORK/top.jsonl" "$v" <<'PY' || fail "JSON lines: $OUT"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
pid = int(sys.argv[2])
for k, j in enumerate(lines):
    assert j["pid"] == pid and j["seq"] == k + 1 and j["holds"] == k + 1, j
    assert j["allocated"] <= j["active"] <= j["resident"] <= j["mapped"], j
    for key in ("retained", "metadata", "allocated_rate", "hold_us", "threads_pending",
                "threads_peek_us_max"):
        assert key in j, key
    assert j["jemalloc_version"].startswith("5."), j["jemalloc_version"]
    assert abs(j["active_per_allocated"] - j["active"] / j["allocated"]) < 1e-3
    assert len(j["arenas"]) >= 1 and all(a["active"] >= 0 for a in j["arenas"])
last = lines[-1]
# 4 busy threads, a ticker and main at least; none stopped (their thread
# pointers come from glibc's list of thread descriptors), none borrowed
# (one hold per refresh)
assert len(last["threads"]) >= 6, last["threads"]
assert "threads_note" not in last, last
assert last["threads_peeked"] == 0 and last["threads_missed"] == 0, last
# the acceptor, waiting in accept(), is located too (no stop, so its
# socket wait no longer matters); a thread born as the list was read may
# be left for the next refresh
acc = [t for t in last["threads"] if t["allocated"] is None]
assert len(acc) <= 1 and last["threads_pending"] == len(acc), last
read = [t for t in last["threads"] if t["allocated"] is not None]
assert len(read) >= 5, last["threads"]
assert all(t["name"] == "victim_dyn" for t in last["threads"]), last["threads"]
busy = [t for t in read if t["alloc_rate"] > 100000]
assert len(busy) >= 3, read
# counters only grow, for the same thread
first = {t["tid"]: t["allocated"] for t in lines[-2]["threads"] if t["allocated"] is not None}
assert all(t["allocated"] >= first[t["tid"]] for t in read if t["tid"] in first)
PY
pass "JSON lines: totals, rates, arenas, per-thread counters and rates"

# The per-thread counters cost no hold: as many holds as refreshes (the
# stats), and no stop at all.
expect_rc 0 "$JEATTACH" -p "$v" --top --json --interval 200ms --count 8
last=$(printf '%s\n' "$OUT" | tail -1)
[ "$(json_get "$last" "j['holds']")" = 8 ] || fail "holds: $last"
[ "$(json_get "$last" "j['threads_peeked']")" = 0 ] || fail "stopped threads: $last"
pass "one hold per refresh"

# Idle threads that never allocated: located, read as 0, and given
# nothing. A mallctl in each (the old way: one borrow for its own
# thread.allocatedp) made jemalloc create a tsd and a tcache per thread,
# about 32 KiB of metadata each, which every later epoch merged.
start_victim i "$TARGETS/victim_dyn" -b 1 -i 120 -t
expect_rc 0 "$JEATTACH" -p "$i" --stats --json
meta0=$(json_get "$OUT" "j['actions'][0]['metadata']")
# (1 s refreshes, times TEST_SLOWDOWN: 30% of each for locating, enough for 120 threads on a
# loaded machine)
expect_rc 0 "$JEATTACH" -p "$i" --top --interval "$(slow 1)s" --count 3
printf '%s\n' "$OUT" | tail -1 >"$WORK/idle.json"
expect_rc 0 "$JEATTACH" -p "$i" --stats --json
meta1=$(json_get "$OUT" "j['actions'][0]['metadata']")
python3 - "$WORK/idle.json" "$meta0" "$meta1" <<'PY' || fail "idle threads: $(cat "$WORK/idle.json")"
import json, sys
j = json.load(open(sys.argv[1]))
m0, m1 = int(sys.argv[2]), int(sys.argv[3])
assert j["holds"] == 3, j["holds"]
ts = j["threads"]
assert len(ts) >= 122, len(ts)
zero = [t for t in ts if t["allocated"] == 0 and t["deallocated"] == 0]
assert len(zero) >= 120, [t for t in ts if t["allocated"] != 0][:5]
assert max(t["allocated"] or 0 for t in ts) > 0, "no thread allocated?"
# 120 tcaches would be ~3.8 MB; allow the busy thread's own growth
assert m1 - m0 < 1 << 20, f"stats.metadata grew by {m1 - m0} bytes"
PY
finish_victim i
pass "idle threads: read as 0, jemalloc's metadata unchanged"

# Threads that come and go (-c: short-lived threads nonstop).
start_victim c "$TARGETS/victim_dyn" -b 1 -c
expect_rc 0 "$JEATTACH" -p "$c" --top --interval 200ms --count 6
printf '%s\n' "$OUT" | tail -1 >"$WORK/churn.json"
python3 - "$WORK/churn.json" "$c" <<'PY' || fail "churn: $OUT"
import json, os, sys
j = json.load(open(sys.argv[1]))
assert j["seq"] == 6 and len(j["threads"]) >= 2, j
PY
finish_victim c
pass "threads that come and go"

# The target exits: the view ends, exit 3, one line.
start_victim x "$TARGETS/victim_dyn" -b 1 -x "$(slow 4000)"
expect_rc 3 "$JEATTACH" -p "$x" --top --interval "$(slow 200)ms"
echo "$ERR" | grep -Eq "^jeattach: $x: the process exited( with status 0)?; the view ends$" || fail "$ERR"
[ -n "$OUT" ] || fail "no line before the exit"
pass "the target's exit ends the view"

# SIGTERM between refreshes: 128 + 15, and the victim unharmed.
"$JEATTACH" -p "$v" --top --interval 200ms >"$WORK/term.out" 2>"$WORK/term.err" &
tp=$!
sleep "$(slow 15)e-1" && kill -TERM "$tp"
wait "$tp" && fail "SIGTERM: exit 0"
[ $? = 143 ] || fail "SIGTERM: not 143: $(cat "$WORK/term.err")"
[ -s "$WORK/term.out" ] || fail "SIGTERM: nothing printed"
pass "SIGTERM ends it"

# The reader goes (top | head -1): EPIPE ends it, 128 + SIGPIPE.
(timeout 20 "$JEATTACH" -p "$v" --top --interval 200ms 2>"$WORK/pipe.err"; echo $? >"$WORK/pipe.rc") |
	head -1 >"$WORK/pipe.out"
[ "$(cat "$WORK/pipe.rc")" = 141 ] || fail "closed pipe: exit $(cat "$WORK/pipe.rc") $(cat "$WORK/pipe.err")"
[ -s "$WORK/pipe.out" ] || fail "closed pipe: no line"
pass "a closed pipe ends it"

finish_victim v
