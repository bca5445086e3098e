#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --recent N: jemalloc's record of its last N sampled allocations (5.3's
# experimental.prof_recent), kept for a window and written to a file of
# jeattach's, never to the target's stderr; alloc_max and prof.active put
# back as found on every way out (the end of the window, Ctrl-C, a failure
# after the start); a target that keeps more already is left alone; bad
# input and a jemalloc without the record get one line and their code.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

expect_rc 2 "$JEATTACH" -p 1 --recent 0
echo "$ERR" | grep -q -- "--recent '0': expected 1 to 10000" || fail "$ERR"
expect_rc 2 "$JEATTACH" -p 1 --recent 10001
echo "$ERR" | grep -q -- "--recent '10001': expected 1 to 10000" || fail "$ERR"
expect_rc 2 "$JEATTACH" -p 1 --status --recent-out x.json
echo "$ERR" | grep -q -- "--recent-out goes with --recent N" || fail "$ERR"
expect_rc 2 "$JEATTACH" -p 1 --recent 10 --every 1s --count 2
echo "$ERR" | grep -q -- "give it with --for DURATION, not --every" || fail "$ERR"
expect_rc 2 "$JEATTACH" -p 1 --recent 10 --top
echo "$ERR" | grep -q -- "run --recent separately" || fail "$ERR"
pass "bad input refused"

start_victim_env v "MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:12" \
	"$TARGETS/victim_dyn" -b 2
age_threads
expect_rc 0 "$JEATTACH" -p "$v" --recent 40 --for 1s --recent-out "$WORK/r.json" --json
# (The clock is read around the record's call: 10 ms of slack, more on an
# emulated machine, TEST_SLOWDOWN squared, where a hold takes that long.)
python3 - "$WORK/r.json" "$v" "$(printf '%s\n' "$OUT" | tail -1)" "$((10000000 * SLOWDOWN * SLOWDOWN))" <<'PY' || fail "record: $OUT"
import json, sys
j = json.load(open(sys.argv[1]))
pid = int(sys.argv[2])
rep = json.loads(sys.argv[3])
acts = {a["action"]: a for a in rep["actions"]}
assert [a["action"] for a in rep["actions"]] == \
    ["recent_begin", "for_begin", "wait", "recent_dump", "recent_end", "for_end"], rep
assert acts["recent_begin"]["previous_max"] == 0 and acts["recent_begin"]["recent_alloc_max"] == 40
assert acts["recent_end"]["recent_alloc_max"] == 0 and acts["for_end"]["prof_active"] is False
# jemalloc's keys, then jeattach's
assert list(j) == ["sample_interval", "recent_alloc_max", "recent_alloc", "jeattach"], list(j)
assert j["sample_interval"] == 4096 and j["recent_alloc_max"] == 40
recs = j["recent_alloc"]
assert 0 < len(recs) <= 40 and acts["recent_dump"]["records"] == len(recs), len(recs)
for r in recs:
    assert r["usize"] >= r["size"] > 0 and r["alloc_trace"], r
    assert all(a.startswith("0x") for a in r["alloc_trace"])
    if r["released"] and "dalloc_time" in r:
        assert r["dalloc_time"] >= r["alloc_time"], r
ja = j["jeattach"]
assert ja["pid"] == pid and ja["clock"] == "monotonic", ja
assert max(r["alloc_time"] for r in recs) <= ja["clock_now_ns"] + int(sys.argv[4]), ja
assert "victim_dyn" in ja["maps"] and "libjemalloc" in ja["maps"], ja["maps"][:200]
assert ja["stamp"].startswith("# jeattach boot-id "), ja["stamp"][:100]
assert "# jeattach build-id " in ja["stamp"]
PY
expect_rc 0 "$JEATTACH" -p "$v" --get experimental.prof_recent.alloc_max --get prof.active --json
[ "$(json_get "$OUT" "[a['value'] for a in j['actions']]")" = "[0, False]" ] || fail "not put back: $OUT"
grep -q recent_alloc "$v_out" && fail "the record went to the target's output"
pass "a 1 s window: the record in its file, alloc_max and prof.active as found"

# An existing output is refused before the target is touched; --force.
expect_rc 8 "$JEATTACH" -p "$v" --recent 10 --for 200ms --recent-out "$WORK/r.json"
echo "$ERR" | grep -q -- "--recent-out $WORK/r.json: the file exists; give --force" || fail "$ERR"
expect_rc 0 "$JEATTACH" -p "$v" --recent 10 --for 200ms --recent-out "$WORK/r.json" --force
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['recent_alloc_max'] == 10" \
	"$WORK/r.json" || fail "not replaced"
pass "an existing file: refused (exit 8), replaced with --force"

# Ctrl-C during the window: the record is still taken, everything put back.
"$JEATTACH" -p "$v" --recent 20 --for 30s --recent-out "$WORK/int.json" >"$WORK/int.out" 2>&1 &
jp=$!
# Late enough that jeattach has blocked SIGINT to take it (before, this
# background job ignores it, as the shell starts it, and it would be lost).
sleep "$(slow 15)e-1"
kill -INT "$jp"
wait "$jp"
rc=$?
[ $rc = 130 ] || fail "Ctrl-C: exit $rc: $(cat "$WORK/int.out")"
python3 -c "import json,sys; assert json.load(open(sys.argv[1]))['recent_alloc']" "$WORK/int.json" ||
	fail "no record after Ctrl-C: $(cat "$WORK/int.out")"
expect_rc 0 "$JEATTACH" -p "$v" --get experimental.prof_recent.alloc_max --get prof.active --json
[ "$(json_get "$OUT" "[a['value'] for a in j['actions']]")" = "[0, False]" ] || fail "not put back: $OUT"
pass "Ctrl-C in the window: record taken, alloc_max and prof.active put back"

# Changed by someone else during the window (the program, another tool):
# theirs, left as it is, with a warning (before: overwritten with the
# value saved at the start).
"$JEATTACH" -p "$v" --recent 100 --for 2s --recent-out "$WORK/c1.json" >"$WORK/c1.out" 2>&1 &
c1=$!
sleep 0.7
expect_rc 0 "$JEATTACH" -p "$v" --set experimental.prof_recent.alloc_max=500
wait "$c1" || fail "the run: $(cat "$WORK/c1.out")"
grep -q "was changed to 500 during the window, not by this run: left as it is" "$WORK/c1.out" ||
	fail "no warning: $(cat "$WORK/c1.out")"
expect_rc 0 "$JEATTACH" -p "$v" --get experimental.prof_recent.alloc_max
echo "$OUT" | grep -q 'value *500$' || fail "overwritten: $OUT"
expect_rc 0 "$JEATTACH" -p "$v" --set experimental.prof_recent.alloc_max=0
pass "changed by another during the window: left as they set it, said"

# Without --recent-out: an automatic name in jeattach's directory.
(cd "$WORK" && "$JEATTACH" -p "$v" --recent 5 --for 200ms --json) >"$WORK/auto.out" ||
	fail "automatic name: $(cat "$WORK/auto.out")"
[ -s "$WORK/jeattach-recent.$v.0.json" ] || fail "no $WORK/jeattach-recent.$v.0.json: $(cat "$WORK/auto.out")"
finish_victim v
pass "automatic name jeattach-recent.PID.0.json"

# A target that keeps more already is left as found; one that keeps all
# (-1) is refused: its record has no bound (jemalloc writes it with its
# dump lock held: one that outgrew jeattach's room left that lock taken).
start_victim_env m "MALLOC_CONF=prof:true,prof_active:true,prof_recent_alloc_max:50" \
	"$TARGETS/victim_dyn" -b 1
expect_rc 0 "$JEATTACH" -p "$m" --recent 10 --for 300ms --recent-out "$WORK/m.json" --json
[ "$(json_get "$(printf '%s\n' "$OUT" | tail -1)" "[a for a in j['actions'] if a['action'] == 'recent_begin'][0]['previous_max']")" = 50 ] ||
	fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$m" --get experimental.prof_recent.alloc_max
echo "$OUT" | grep -q 'value *50$' || fail "changed: $OUT"
finish_victim m
start_victim_env a "MALLOC_CONF=prof:true,prof_active:false,prof_recent_alloc_max:-1" \
	"$TARGETS/victim_dyn" -b 1
expect_rc 10 "$JEATTACH" -p "$a" --recent 10 --for 300ms --recent-out "$WORK/a.json"
echo "$ERR" | grep -q "keeps all its recent allocations.*nothing was changed" || fail "$ERR"
[ ! -e "$WORK/a.json" ] || fail "a record was written"
expect_rc 0 "$JEATTACH" -p "$a" --get experimental.prof_recent.alloc_max --get prof.active --json
[ "$(json_get "$OUT" "[a['value'] for a in j['actions']]")" = "[-1, False]" ] || fail "changed: $OUT"
finish_victim a
pass "a target keeping more records: left alone; keeping all: refused, nothing changed"

# Profiling not enabled at start: jeattach's one line, exit 6.
start_victim_env p "MALLOC_CONF=prof:false" "$TARGETS/victim_dyn" -b 1
expect_rc 6 "$JEATTACH" -p "$p" --recent 10 --for 200ms --recent-out "$WORK/p.json"
echo "$ERR" | grep -q "prof:true" || fail "$ERR"
finish_victim p
pass "no opt.prof: exit 6"

# jemalloc 5.2 has no record: said, exit 7, prof.active as found.
LIB=$("$top_srcdir/tests/jemalloc-archive.sh" 5.2.1 2>/dev/null)
if [ $? != 0 ]; then
	echo "note: Debian 11's libjemalloc2 5.2.1 is not available here: the 5.2 case is not checked"
else
	start_victim_env o "LD_PRELOAD=$LIB MALLOC_CONF=prof:true,prof_active:false" \
		"$TARGETS/victim_plain" -b 1
	expect_rc 0 "$JEATTACH" -p "$o" --get config.prof
	# Debian builds jemalloc with profiling on i386 and amd64 only
	# (debian/rules): without it (arm64) profiling is refused first.
	if echo "$OUT" | grep -q false; then
		echo "note: Debian 11's 5.2.1 for $(uname -m) has no profiling: the 5.2 case is not checked"
	else
		expect_rc 7 "$JEATTACH" -p "$o" --recent 10 --for 200ms --recent-out "$WORK/o.json"
		echo "$ERR" | grep -q "keeps no record of recent allocations (experimental.prof_recent: 5.3.0 and later)" ||
			fail "$ERR"
		expect_rc 0 "$JEATTACH" -p "$o" --get prof.active
		echo "$OUT" | grep -q 'false' || fail "prof.active left on: $OUT"
		pass "jemalloc 5.2.1: no record, exit 7, profiling not touched"
	fi
	finish_victim o
fi

# The process frozen by its cgroup during the window: the record cannot be
# taken nor alloc_max put back; jeattach says so, and how to put it back.
# A cgroup2 freezer (cgroup.freeze) or a v1 one (freezer.state), as
# t_frozen.sh finds them.
mp=$(awk '$0 ~ / - cgroup2 / && $4 == "/" { print $5; exit }' /proc/self/mountinfo)
file=cgroup.freeze on=1 off=0
if [ -z "$mp" ]; then
	mp=$(awk '$0 ~ / - cgroup / && $4 == "/" && $NF ~ /(^|,)freezer(,|$)/ { print $5; exit }' \
		/proc/self/mountinfo)
	file=freezer.state on=FROZEN off=THAWED
fi
cg=$mp/jeattach-recent-$$
if [ -n "$mp" ] && [ "$(id -u)" = 0 ] && mkdir "$cg" 2>/dev/null; then
	start_victim_env f "MALLOC_CONF=prof:true,prof_active:true" "$TARGETS/victim_dyn" -b 1
	echo "$f" >"$cg/cgroup.procs" || fail "cannot move the victim into $cg"
	"$JEATTACH" -p "$f" --recent 10 --for "$(slow 1)s" --timeout 2 --recent-out "$WORK/f.json" -v \
		>"$WORK/fz.out" 2>&1 &
	jp=$!
	# Frozen once the window has begun (the first hold released), not
	# before jeattach attached: on a slow machine 0.5 s was not enough.
	await_line "$WORK/fz.out" ': released$' "$jp" "the window's start"
	echo "$on" >"$cg/$file"
	wait "$jp"
	rc=$?
	echo "$off" >"$cg/$file"
	echo "$f" >"$mp/cgroup.procs"
	rmdir "$cg"
	[ $rc = 10 ] || fail "frozen: exit $rc: $(cat "$WORK/fz.out")"
	grep -q "could not be put back: jemalloc keeps recording recent allocations (it kept 0); put it back with: jeattach -p $f --set experimental.prof_recent.alloc_max=0" "$WORK/fz.out" ||
		fail "frozen: $(cat "$WORK/fz.out")"
	expect_rc 0 "$JEATTACH" -p "$f" --get experimental.prof_recent.alloc_max
	echo "$OUT" | grep -q 'value *10$' || fail "frozen: alloc_max not left at 10: $OUT"
	expect_rc 0 "$JEATTACH" -p "$f" --set experimental.prof_recent.alloc_max=0
	# Freezing alone makes the victim's waits return EINTR (t_frozen.sh
	# checks that against a control victim): its report is not ours.
	kill "$f"
	pass "frozen during the window: exit 10, how to put alloc_max back said, and it works"
else
	echo "note: no cgroup freezer to use here (needs root): the frozen case is not checked"
fi
