#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jeheap recent on a real record (jeattach --recent on victim_recent: a
# site kept live, one handed to another thread to free, one freed ~1 ms
# later, one ~200 ms later): each view names the right sites, the
# allocator's frames pruned; then forged and broken files: one line, exit
# 3, never a crash (one under valgrind).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# prof_time_resolution:high: the records' times from CLOCK_REALTIME in ns
# (the default CLOCK_MONOTONIC_COARSE ticks every few ms: a 1 ms lifetime
# would read 0 or one tick). prof_sys_thread_name: the threads' names.
CONF="MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:10,prof_time_resolution:high,prof_sys_thread_name:true"
start_victim_env v "$CONF" "$TARGETS/victim_recent"
expect_rc 0 "$JEATTACH" -p "$v" --recent 10000 --for 2s --recent-out "$WORK/r.json"
finish_victim v
R="$WORK/r.json"

expect_rc 0 "$JEHEAP" recent "$R"
printf '%s\n' "$OUT" | grep -q 'counts are samples, not totals' || fail "no sampling note: $OUT"
printf '%s\n' "$OUT" | grep -q 'clock: realtime' || fail "clock: $OUT"
for s in rc_site_kept rc_site_handoff rc_site_short rc_site_long; do
	printf '%s\n' "$OUT" | grep -qE "  $s <- [a-z]+_main <- start_thread" || fail "top: no $s: $OUT"
done
printf '%s\n' "$OUT" | grep ' <- ' | grep -qE 'malloc|prof_|je_' && fail "allocator frames kept: $OUT"
pass "top: the four sites, each its stack's first frame"

expect_rc 0 "$JEHEAP" recent --top --live 10s --cross-thread --lifetimes --per-stack -n 0 --json "$R"
printf '%s\n' "$OUT" >"$WORK/all.json"
[ "$(printf '%s\n' "$OUT" | wc -l)" = 1 ] || fail "JSON not on one line"
python3 - "$WORK/all.json" <<'PY' || fail "views (the assertion above; $WORK/all.json)"
import json, sys
j = json.load(open(sys.argv[1]))
site = lambda st: st[0] if st else None
top = {site(g["stack"]): g for g in j["top"]}
for s in ("rc_site_kept", "rc_site_handoff", "rc_site_short", "rc_site_long"):
    assert s in top and top[s]["records"] >= 20, (s, top.get(s))
assert sum(g["records"] for g in j["top"]) == j["records"], "groups do not add up"
k = top["rc_site_kept"]
assert k["live"] == k["records"] and k["freed"] == 0, k
# every hand-off freed was freed by the consumer; a few may wait in the
# queue when the record is taken (more on a loaded machine)
h = top["rc_site_handoff"]
assert h["cross_thread"] == h["freed"] and h["live"] <= h["records"] // 4, h
for s in ("rc_site_short", "rc_site_long", "rc_site_kept"):
    assert top[s]["cross_thread"] == 0, top[s]
assert j["sampled"] is True and j["sample_interval"] == 1024, j["sample_interval"]
# --cross-thread: only the hand-off site, freed in rc_free_handoff, by name
ct = j["cross_thread"]
assert ct and all(site(g["alloc_stack"]) == "rc_site_handoff" for g in ct), ct
assert all("rc_free_handoff" in g["free_stack"] for g in ct), ct
# (jemalloc names a thread's data at a sampled allocation of its own
# (prof_sys_thread_name): the consumer allocates none sampled, so no name)
assert ct[0]["alloc_thread_name"] == "rc-producer", ct[0]
assert ct[0]["free_thread"] != ct[0]["alloc_thread"], ct[0]
# --live 10s: every kept block, youngest first, none older than 10 s
live = j["live_records"]
assert all(r["age_ns"] <= 10 * 10**9 for r in live), live[:3]
ages = [r["age_ns"] for r in live]
assert ages == sorted(ages), "not youngest first"
assert sum(site(r["stack"]) == "rc_site_kept" for r in live) == k["live"], len(live)
assert all(r["thread_name"] == "rc-kept" for r in live if site(r["stack"]) == "rc_site_kept")
# --lifetimes: the short site's fullest bucket within [0.5 ms, 16 ms), the
# long one's within [128 ms, 1 s) (a loaded machine sleeps longer, never less)
per = {site(p["stack"]): p for p in j["lifetimes"]["per_stack"]}
def fullest(p):
    return max(p["buckets"], key=lambda b: b["records"])
fs, fl = fullest(per["rc_site_short"]), fullest(per["rc_site_long"])
assert 2**19 <= fs["from_ns"] and fs["to_ns"] <= 2**24, fs
assert 2**27 <= fl["from_ns"] and fl["to_ns"] <= 2**30, fl
assert 5 * 10**5 <= per["rc_site_short"]["median_ns"] < 5 * 10**7, per["rc_site_short"]
assert 1.9 * 10**8 <= per["rc_site_long"]["median_ns"] < 2 * 10**9, per["rc_site_long"]
assert per["rc_site_kept"]["freed"] == 0 and per["rc_site_kept"]["live"] == k["records"]
lt = j["lifetimes"]
assert lt["freed"] + lt["live"] + lt["free_unknown"] == j["records"], lt
assert j["free_unknown"] == lt["free_unknown"] == 0, lt  # the consumer allocates
PY
pass "--json: top, --cross-thread, --live, --lifetimes --per-stack name the right sites"

expect_rc 0 "$JEHEAP" recent --live 500ms --by-size --cross-thread --lifetimes "$R"
printf '%s\n' "$OUT" | grep -qE 'rc-kept \(t[0-9]+\) +rc_site_kept <- kept_main' || fail "live: $OUT"
printf '%s\n' "$OUT" | grep -q 'younger than 500 ms, largest first' || fail "live header: $OUT"
printf '%s\n' "$OUT" | grep -qE 'allocated by rc-producer \(t[0-9]+\), freed by (rc-consumer \()?t[0-9]+' ||
	fail "cross-thread: $OUT"
printf '%s\n' "$OUT" | grep -qE 'freed at: +.*rc_free_handoff <- consumer_main' || fail "free stack: $OUT"
printf '%s\n' "$OUT" | grep -qE '^  \[ *[0-9.]+ ms, +[0-9.]+ ms\) +[0-9]+ ' || fail "histogram: $OUT"
pass "text views"

# A consumer that has never allocated: jemalloc records no free for it
# (free_default's minimal thread state; prof_tctx_create wants a nominal
# one), so its frees are released with no free recorded, and said so.
# jeattach borrows the main thread (--tid): a mallctl run in the consumer
# would make its thread state nominal, and its frees recorded from then on.
start_victim_env f "$CONF" "$TARGETS/victim_recent" -f
expect_rc 0 "$JEATTACH" -p "$f" --tid "$f" --recent 10000 --for 1s --recent-out "$WORK/f.json"
finish_victim f
expect_rc 0 "$JEHEAP" recent --cross-thread --lifetimes --json "$WORK/f.json"
[ "$(json_get "$OUT" "j['free_unknown'] >= 20 and j['cross_thread'] == []")" = True ] ||
	fail "frees only: $OUT"
expect_rc 0 "$JEHEAP" recent --cross-thread "$WORK/f.json"
printf '%s\n' "$OUT" | grep -q 'released with no free recorded: jemalloc records none for a thread that has never allocated' ||
	fail "frees only: $OUT"
pass "a consumer that never allocated: its frees counted apart, said why"

# --live D as a word of its own, and the usage errors
expect_rc 0 "$JEHEAP" recent --live 1h "$R"
expect_rc 2 "$JEHEAP" recent --live soon "$R"
echo "$ERR" | grep -q "expected a duration" || fail "$ERR"
expect_rc 2 "$JEHEAP" recent
echo "$ERR" | grep -q "needs the FILE jeattach --recent wrote" || fail "$ERR"
expect_rc 2 "$JEHEAP" --lines recent "$R"
echo "$ERR" | grep -q "recent takes its options after it" || fail "$ERR"
expect_rc 0 "$JEHEAP" recent --help
for opt in $(printf '%s\n' "$OUT" | grep -oE -- '--[a-z][a-z_-]*' | sort -u); do
	grep -qF -- "$(echo "$opt" | sed 's/-/\\-/g')" "$top_srcdir/doc/jeheap.1" ||
		fail "jeheap recent --help lists $opt, jeheap(1) does not"
done
pass "usage; --help's options all in jeheap(1)"

# Broken and forged files: one line saying what and what to do, exit 3.
bad() { # bad NAME PATTERN: jeheap recent on $WORK/NAME fails with PATTERN
	expect_rc 3 "$JEHEAP" recent "$WORK/$1"
	[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "$1: not one line: $ERR"
	echo "$ERR" | grep -q -- "$2" || fail "$1: $ERR"
}
python3 - "$R" "$WORK" <<'PY'
import json, sys
src, w = sys.argv[1], sys.argv[2]
text = open(src).read()
j = json.loads(text)
def put(name, s):
    open(f"{w}/{name}", "w").write(s)
def forged(name, **rec):
    k = json.loads(text)
    k["recent_alloc"][0].update(rec)
    put(name, json.dumps(k))
put("trunc.json", text[: len(text) // 2])
put("heap.json", "heap_v2/524288\n  t*: 1: 2 [0: 0]\n")
put("text.json", "hello\n")
put("other.json", '{"a": [1, 2]}')
put("empty.json", json.dumps({k: (v if k != "recent_alloc" else []) for k, v in j.items()}))
# nesting under a key this reader does not know (skipped, but bounded)
put("deep.json", '{"later_key":' + "[" * 100000 + "]" * 100000 + "}")
forged("bigname.json", alloc_thread_name="x" * (8 << 20))
forged("bignum.json", size=10**30)
forged("float.json", alloc_time=1e300)
forged("negative.json", usize=-1)
forged("usize.json", size=5000, usize=4096)
forged("trace.json", alloc_trace=["0x1"] * 100000)
forged("addr.json", alloc_trace=["0x1234567890abcdef0"])
forged("badtype.json", released="yes")
put("dupkey.json", text.replace('"sample_interval":', '"sample_interval":1024,"sample_interval":', 1))
put("nul.json", text.replace('"rc-kept"', '"rc-\\u0000kept"', 1))
open(f"{w}/utf8.json", "wb").write(text.replace('"rc-kept"', '"rc-kept\udcff"', 1).encode("utf-8", "surrogateescape"))
put("interval.json", text.replace('"sample_interval":1024', '"sample_interval":1000', 1))
put("trailing.json", text + "{}")
PY
bad trunc.json "truncated: .*take the record again"
bad heap.json "a heap profile, not a record of recent allocations: read it with jeheap top"
bad text.json "not a JSON object: not a record of recent allocations (jeattach --recent writes one)"
bad other.json "no sample_interval: not a record of recent allocations"
bad empty.json "the record holds no allocations: .*record a longer one"
bad deep.json "nested too deep (a damaged or forged record: take it again with jeattach --recent)"
bad bigname.json "string too long\|longer than"
bad bignum.json "size: .* is not an integer from 0 to"
bad float.json "alloc_time: .* is not an integer"
bad negative.json "usize: .* is not an integer"
bad usize.json "usize 4096 is below size 5000"
bad trace.json "alloc_trace: more than 1024 addresses"
bad addr.json "is not an address"
bad badtype.json "released: expected true or false"
bad dupkey.json "sample_interval given twice"
bad nul.json "invalid \\\\u escape"
bad utf8.json "invalid UTF-8"
bad interval.json "sample_interval: not a power of two"
bad trailing.json "text after the value"
expect_rc 3 "$JEHEAP" top "$R"
echo "$ERR" | grep -q "a JSON file, not a heap profile (a record of recent allocations? read it with jeheap recent)" ||
	fail "jeheap top on a record: $ERR"
expect_rc 3 "$JEHEAP" recent "$WORK/missing.json"
echo "$ERR" | grep -q "missing.json: No such file" || fail "$ERR"
pass "broken and forged files: one line, exit 3"

# Under valgrind too, unless this build is the sanitizers' (.ci/run's ASan
# stage runs this test with an ASan jeheap, which checks the same).
BIN="$top_builddir/jeheap/.libs/jeheap"
vg() {
	LD_LIBRARY_PATH="$top_builddir/lib/.libs" valgrind -q --error-exitcode=9 --leak-check=full \
		--errors-for-leak-kinds=definite "$BIN" recent "$@" >/dev/null 2>"$WORK/vg.err"
}
if ! command -v valgrind >/dev/null || [ ! -x "$BIN" ]; then
	echo "(no valgrind or no libtool binary: valgrind part skipped)"
elif ldd "$BIN" | grep -q libasan; then
	echo "(an ASan build: valgrind part skipped, ASan checked the above)"
else
	for f in deep bigname trace trunc utf8; do
		vg "$WORK/$f.json"
		[ $? = 3 ] || fail "valgrind $f: $(cat "$WORK/vg.err")"
	done
	vg --live --cross-thread --lifetimes --per-stack --json "$R" ||
		fail "valgrind on the record: $(cat "$WORK/vg.err")"
	pass "valgrind: forged files and the real record, no error, no leak"
fi

# 100,000 records (the real ones repeated, times shifted): well under a second.
python3 - "$R" "$WORK/big.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
recs, out = j["recent_alloc"], []
while len(out) < 100000:
    for r in recs:
        r = dict(r, alloc_time=r["alloc_time"] - len(out))
        out.append(r)
j["recent_alloc"] = out[:100000]
j["recent_alloc_max"] = 100000
json.dump(j, open(sys.argv[2], "w"))
PY
start=$(date +%s%N)
expect_rc 0 "$JEHEAP" recent --top --live --cross-thread --lifetimes --per-stack --json "$WORK/big.json"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$(json_get "$OUT" "j['records']")" = 100000 ] || fail "big: $OUT"
# a generous bound for a loaded 2-core machine (times TEST_SLOWDOWN: a hang
# guard, not a goal); doc/benchmarks.md has the figure
[ "$ms" -lt "$(slow 5000)" ] || fail "100,000 records took $ms ms"
pass "100,000 records in $ms ms"
