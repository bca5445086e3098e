#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jeheap trend on a real series of dumps (jeattach --every) of a victim
# that leaks from one site at a known, steady rate among sites that
# allocate and free: the leaking site ranks first and its slope is within
# 10% of the rate the victim logged; the JSON parses, the SVG is
# well-formed and names it; and the errors: one dump, one dump twice, a
# dump without jeattach's time stamp (its mtime, with a warning), --times;
# names holding markup, control bytes and invalid UTF-8.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# lg_prof_sample:10 samples one allocation per KiB on average: the leak's
# 4 KiB blocks are sampled 98% of the time (1 - e^-4), so the un-sampled
# sizes err by well under 1% over the hundreds of blocks a series sees.
CONF="MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:10"
start_victim_env v "$CONF" "$TARGETS/victim_leak" "$WORK/truth.log"
expect_rc 0 "$JEATTACH" -p "$v" --every 500ms --count 12 --dump "$WORK/d%n.heap"
finish_victim v
ls "$WORK"/d*.heap | wc -l | grep -qx 12 || fail "12 dumps wanted: $(ls "$WORK")"
grep -qE '^# jeattach dump-time [0-9]{1,12}\.[0-9]{9}$' "$WORK/d0.heap" ||
	fail "no dump-time stamp: $(tail -5 "$WORK/d0.heap")"
pass "each dump is stamped with its time"

# The files in the shell's order (d0, d1, d10, d11, d2, ...): not their
# time order, which trend restores from the stamps.
expect_rc 0 "$JEHEAP" trend --json "$WORK"/d*.heap
printf '%s\n' "$OUT" >"$WORK/trend.json"
python3 - "$WORK/trend.json" "$WORK/truth.log" <<'PY' || fail "trend: $OUT"
import json, sys
j = json.load(open(sys.argv[1]))
times = [d["time"] for d in j["dumps"]]
assert times == sorted(times) and len(times) == 12, times
assert all(d["time_source"] == "stamp" for d in j["dumps"]), j["dumps"]
assert [d["file"].rsplit("/", 1)[1] for d in j["dumps"]] == ["d%d.heap" % i for i in range(12)]
first = j["stacks"][0]
assert first["frames"][0] == "tr_leak_site", [s["frames"][:2] for s in j["stacks"][:3]]
assert first["verdict"] == "likely_leak", first
assert first["rank"] == 1 and len(first["values"]) == 12
# The truth: the victim's own log of what it leaked, fitted over the
# series' span (least squares, as trend fits).
pts = [tuple(map(float, l.split())) for l in open(sys.argv[2]) if len(l.split()) == 2]
pts = [p for p in pts if times[0] <= p[0] <= times[-1]]
assert len(pts) > 100, len(pts)
n = len(pts); mx = sum(p[0] for p in pts) / n; my = sum(p[1] for p in pts) / n
truth = sum((p[0] - mx) * (p[1] - my) for p in pts) / sum((p[0] - mx) ** 2 for p in pts)
err = abs(first["slope_per_second"] - truth) / truth
print("leak: %.0f B/s, truth %.0f B/s (%.2f%% off), fit %.4f" %
      (first["slope_per_second"], truth, 100 * err, first["fit"]))
assert err < 0.10, (first["slope_per_second"], truth)
# Nothing else is judged a leak as steep: the noisy sites scatter.
for s in j["stacks"][1:]:
    assert s["verdict"] != "likely_leak" or s["slope_per_second"] < truth / 4, s
# The total is each dump's sum.
for k in range(12):
    tot = sum(s["values"][k] for s in j["stacks"])
    assert abs(tot - j["total"]["values"][k]) <= 1e-6 * max(1, tot), k
PY
pass "the leaking site ranks first, its slope within 10% of the truth"

expect_rc 0 "$JEHEAP" trend "$WORK"/d*.heap
printf '%s\n' "$OUT" | sed -n 3p | grep -qE '^ +\+[0-9.]+ MiB/min  fit (0\.9[0-9]|1\.00)  likely leak .*tr_leak_site <- main' ||
	fail "text: $OUT"
printf '%s\n' "$OUT" | sed -n 2p | grep -qE ' total$' || fail "text total: $OUT"
pass "text"

expect_rc 0 "$JEHEAP" trend --top 3 -o "$WORK/trend.svg" "$WORK"/d*.heap
python3 - "$WORK/trend.svg" <<'PY' || fail "svg"
import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
S = "{http://www.w3.org/2000/svg}"
assert root.tag == S + "svg", root.tag
lines = root.findall(".//" + S + "polyline")
assert len(lines) == 4, len(lines)  # the total and the top 3
texts = ["".join(t.itertext()) for t in root.iter(S + "text")]
assert any("tr_leak_site" in t and "likely leak" in t for t in texts), texts
assert any("seconds since the first dump" in t for t in texts), texts
for p in lines:
    assert len(p.get("points").split()) == 12, p.get("points")
PY
pass "svg"

# A series a little over ten minutes: the time axis ends at 12, not 15.
expect_rc 0 "$JEHEAP" trend --times 0,300,606 -o "$WORK/ten.svg" "$WORK/d0.heap" "$WORK/d1.heap" "$WORK/d2.heap"
python3 - "$WORK/ten.svg" <<'PY' || fail "a 10.1-minute series' axis"
import sys, xml.etree.ElementTree as E
S = "{http://www.w3.org/2000/svg}"
els = list(E.parse(sys.argv[1]).getroot().iter(S + "text"))
texts = ["".join(t.itertext()) for t in els]
assert any("minutes since the first dump" in t for t in texts), texts
# The time axis' labels: centred under the plot, one row.
xl = [t for t in els if t.get("text-anchor") == "middle" and "".join(t.itertext()).replace(".", "", 1).isdigit()]
rows = {t.get("y") for t in xl}
assert len(rows) == 1, rows
ticks = [float("".join(t.itertext())) for t in xl]
assert ticks and 10.1 <= max(ticks) <= 12, ticks
PY
pass "a 10.1-minute series: its time axis ends at 12 minutes"

# One dump: a usage error that says what to do.
expect_rc 2 "$JEHEAP" trend "$WORK/d0.heap"
echo "$ERR" | grep -q 'trend needs at least two dumps.*--every' || fail "one dump: $ERR"
# The same dump twice: two dumps made at the same moment.
expect_rc 3 "$JEHEAP" trend "$WORK/d0.heap" "$WORK/d1.heap" "$WORK/d0.heap"
echo "$ERR" | grep -q 'd0.heap: made at the same time as .*d0.heap; give each dump once' ||
	fail "same dump twice: $ERR"
[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "not one line: $ERR"
expect_rc 2 "$JEHEAP" trend --times 1,2 "$WORK/d0.heap" "$WORK/d1.heap" "$WORK/d2.heap"
echo "$ERR" | grep -q "expected 3 numbers of seconds" || fail "--times: $ERR"
expect_rc 2 "$JEHEAP" trend --json -o "$WORK/x.svg" "$WORK/d0.heap" "$WORK/d1.heap"
expect_rc 2 "$JEHEAP" top --json "$WORK/d0.heap"
pass "errors"

# Without jeattach's stamp (dumps from jemalloc itself, or an older
# jeattach): each file's mtime, with a warning; --times overrides.
for i in 0 1 2 3; do
	grep -v '^# jeattach dump-time' "$WORK/d$i.heap" >"$WORK/old$i.heap"
	touch -d "@$((1700000000 + 60 * i))" "$WORK/old$i.heap"
done
expect_rc 0 "$JEHEAP" trend --json "$WORK"/old*.heap
echo "$ERR" | grep -q "old0.heap and others: no dump-time stamp.*modification time is used" ||
	fail "no warning: $ERR"
[ "$(json_get "$OUT" "[d['time'] for d in j['dumps']] == [1700000000 + 60 * i for i in range(4)] and {d['time_source'] for d in j['dumps']} == {'file_mtime'}")" = True ] ||
	fail "mtime fallback: $OUT"
expect_rc 0 "$JEHEAP" trend --json --times 0,10,20,30 "$WORK"/old*.heap
[ -z "$ERR" ] || fail "--times warned: $ERR"
[ "$(json_get "$OUT" "[d['time'] for d in j['dumps']]")" = "[0, 10, 20, 30]" ] ||
	fail "--times: $OUT"
# A stamp before the process's own text is not believed (only the
# trailing block is): moved above a maps line, it is ignored.
awk '/^# jeattach dump-time/ { t = $0; next } { print } /^MAPPED_LIBRARIES:/ { print "# jeattach boot-id 00000000-0000-0000-0000-000000000000"; print t }' \
	"$WORK/d0.heap" >"$WORK/forged.heap"
touch -d @1700000000 "$WORK/forged.heap"
expect_rc 0 "$JEHEAP" trend --json "$WORK/forged.heap" "$WORK/d1.heap"
[ "$(json_get "$OUT" "j['dumps'][0]['time_source']")" = file_mtime ] || fail "forged stamp believed: $OUT"
pass "the mtime fallback, --times, a stamp out of place"

# Names can hold anything (symbols come from the profiled binaries, or
# here from jeprof's symbolized form): markup, "]]>", control bytes,
# invalid UTF-8. The chart stays well-formed XML, the JSON valid.
for i in 0 1; do
	printf -- '--- symbol\nbinary=/bin/x\n0x0000000000001000 leak]]>&"<\001\377x\n---\n--- heap\nheap_v2/1\n  t*: %d: %d [0: 0]\n@ 0x1000\n  t*: %d: %d [0: 0]\n' \
		$((i + 1)) $((4096 * (i + 1))) $((i + 1)) $((4096 * (i + 1))) >"$WORK/hostile$i.heap"
done
expect_rc 0 "$JEHEAP" trend --times 0,60 -o "$WORK/hostile.svg" "$WORK/hostile0.heap" "$WORK/hostile1.heap"
python3 - "$WORK/hostile.svg" <<'PY' || fail "hostile names: $(cat "$WORK/hostile.svg")"
import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
assert any('leak]]>&"<\ufffd\ufffdx' in t and "+4.00 KiB/min" in t for t in texts), texts
PY
expect_rc 0 "$JEHEAP" trend --json --times 0,60 "$WORK/hostile0.heap" "$WORK/hostile1.heap"
printf '%s\n' "$OUT" | python3 -c 'import json, sys; j = json.load(sys.stdin); assert j["stacks"][0]["frames"][0].startswith("leak]]>&\"<"), j' ||
	fail "hostile names in JSON: $OUT"
pass "names with markup, control bytes and invalid UTF-8"
