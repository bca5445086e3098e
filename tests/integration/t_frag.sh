#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --frag on Debian's redis-server driven into fragmentation: keys of mixed
# sizes written, nine in ten deleted. The categories must add up to
# jemalloc's resident, and agree with redis' own INFO memory view of the
# same jemalloc (redis 7.0's object.c, getMemoryOverheadData, from the
# figures serverCron keeps: allocator_frag_bytes = active - allocated,
# allocator_rss_bytes = resident - active); the SVG must be
# well-formed XML; with a heap profile, the worst classes get their sites;
# redis must keep answering. Then the error paths.
. "$top_srcdir/tests/integration/lib.sh"
command -v redis-server >/dev/null && command -v redis-cli >/dev/null ||
	skip "redis-server/redis-cli not installed (Debian packages redis-server, redis-tools)"
require_ptrace

# Profiling active with a 16 KiB sample (so a profile names the sites) and
# opt.prof_stats (requested vs usable bytes per class, jemalloc 5.3).
# Its own unix socket, no TCP port (nothing to collide with), no persistence.
sock=$WORK/redis.sock
env MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:14,prof_stats:true \
	redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 --save '' \
	--appendonly no --daemonize no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
rpid=$!
track "$rpid"
i=0
until redis-cli -s "$sock" ping 2>/dev/null | grep -q PONG; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "redis did not start: $(cat "$WORK/redis.log")"
	sleep 0.05
done

# RESP for redis-cli --pipe: SET k<i> of sizes cycling through small and
# large classes, then DEL of nine keys in ten.
python3 - "$WORK" <<'EOF'
import sys
work = sys.argv[1]
sizes = [8, 24, 40, 100, 200, 400, 900, 1500, 3000, 6000, 20000]
n = 40000
def cmd(*a):
    return "*%d\r\n" % len(a) + "".join("$%d\r\n%s\r\n" % (len(x), x) for x in a)
with open(work + "/fill.resp", "w") as f:
    f.write("".join(cmd("SET", "k%d" % i, "x" * sizes[i % len(sizes)]) for i in range(n)))
with open(work + "/del.resp", "w") as f:
    f.write("".join(cmd("DEL", "k%d" % i) for i in range(n) if i % 10))
EOF
redis-cli -s "$sock" --pipe <"$WORK/fill.resp" >"$WORK/fill.out" 2>&1 || fail "fill: $(cat "$WORK/fill.out")"
redis-cli -s "$sock" --pipe <"$WORK/del.resp" >"$WORK/del.out" 2>&1 || fail "delete: $(cat "$WORK/del.out")"
grep -q 'errors: 0' "$WORK/del.out" || fail "delete: $(cat "$WORK/del.out")"

# redis refreshes its allocator figures in serverCron (every 100 ms at
# hz 10): INFO is read after that long, before and after jeattach.
info() {
	sleep 0.25
	{ redis-cli -s "$sock" info memory; redis-cli -s "$sock" info server; } | tr -d '\r' >"$WORK/info.$1"
}
info before
expect_rc 0 "$JEATTACH" -p "$rpid" --frag --json --frag-out "$WORK/frag.svg" \
	--frag-out "$WORK/frag.json"
printf '%s\n' "$OUT" >"$WORK/ours.json"
info after
python3 - "$WORK" <<'EOF' || fail "the figures do not add up: $(cat "$WORK/check.out")"
import json, sys
w = sys.argv[1]
out = open(w + "/check.out", "w")
j = json.load(open(w + "/ours.json"))
f = j["actions"][0]["frag"]
def info(name):
    d = dict(l.split(":", 1) for l in open(w + "/info." + name) if ":" in l)
    return int(d["allocator_frag_bytes"]), int(d["allocator_rss_bytes"]), d["redis_version"]
cats = {c["name"]: c["bytes"] for c in f["categories"]}
total = sum(cats.values())
print("categories", cats, "sum", total, "resident", f["resident"], file=out)
ok = abs(total - f["resident"]) <= 0.05 * f["resident"]
ok &= total == f["sum"] and f["resident"] - total == f["unexplained"]
# active = allocated + free regions + tails + padding (a race at most)
ok &= abs(f["active_gap"]) <= 0.05 * f["active"]
ok &= cats["small_free_regions"] > 0 and f["classes"][0]["wasted"] > 0
# redis' figures, read before and after: ours lies between them, 5% either way
ours = (f["active"] - f["allocated"], f["resident"] - f["active"])
b, a = info("before"), info("after")
names = ["allocator_frag_bytes", "allocator_rss_bytes"]
# Redis 8's object.c makes allocator_frag_bytes the small bins' free
# regions only (allocator_frag_smallbins_bytes): compared on 7.2 and older,
# whose formula is the one above (Debian 12 ships 7.0).
if tuple(int(x) for x in b[2].split(".")[:2]) > (7, 2):
    print("allocator_frag_bytes not compared: redis", b[2], file=out)
    names = names[1:]
for name in names:
    k = ("allocator_frag_bytes", "allocator_rss_bytes").index(name)
    lo, hi = min(b[k], a[k]), max(b[k], a[k])
    slack = 0.05 * max(hi, 1 << 20)
    good = lo - slack <= ours[k] <= hi + slack
    print(name, "ours", ours[k], "redis", b[k], a[k], "ok" if good else "FAIL", file=out)
    ok &= good
# the worst class first
ws = [c["wasted"] for c in f["classes"]]
ok &= ws == sorted(ws, reverse=True)
ok &= f["prof_stats"] is True
# sampling at 16 KiB: some small objects are live in promoted extents
ok &= f["promoted_objects"] > 0 and f["promoted_bytes"] > 0
# values of 20000 B live in the 20480 B class: some rounding is seen
ok &= f["unrequested_large"] is not None and f["unrequested_large"] > 0
ok &= f["unrequested_small"] is not None
print("promoted", f["promoted_objects"], f["promoted_bytes"], file=out)
out.close()
sys.exit(0 if ok else 1)
EOF
# Left as found: no scratch mapping of jeattach's, no report buffer (256 MiB
# + a guard page, rproc.c FULL_ROOM) left in the target.
[ -z "$(scratch_maps "$rpid")" ] || fail "scratch memory left in redis: $(scratch_maps "$rpid")"
while read -r range rest; do
	s=${range%-*} e=${range#*-}
	[ $((0x$e - 0x$s)) = $((256 * 1048576 + 4096)) ] && fail "the report's buffer is left: $range"
done <"/proc/$rpid/maps"
pass "categories add up to resident and agree with INFO memory: $(tr '\n' ' ' <"$WORK/check.out" | cut -c1-400)"
python3 -c "import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.tag.endswith('svg') and len(r.findall('.//{http://www.w3.org/2000/svg}rect')) > 8" \
	"$WORK/frag.svg" || fail "the SVG is not well-formed: $(head -c 300 "$WORK/frag.svg")"
python3 -c "import json, sys; f = json.load(open(sys.argv[1])); assert f['categories'] and f['classes']" \
	"$WORK/frag.json" || fail "--frag-out FILE.json: $(head -c 300 "$WORK/frag.json")"
pass "--frag-out wrote a well-formed SVG and the JSON report"
# Its reader's view: every text inside the picture, as Chromium lays it out
# (the title with jemalloc's version ran past the right edge).
python3 "$top_srcdir/tests/browser/svg_fits.py" "$WORK/frag.svg" "$WORK" >"$WORK/fits.out" 2>&1
case $? in
0) pass "the SVG in Chromium: every text inside the picture" ;;
77) echo "note: $(cat "$WORK/fits.out"): the SVG's layout is not checked" ;;
*) fail "the SVG in Chromium: $(cat "$WORK/fits.out")" ;;
esac

# An existing --frag-out file is kept unless --force (said before the
# target is touched); a missing --frag-profile too.
expect_rc 8 "$JEATTACH" -p "$rpid" --frag --frag-out "$WORK/frag.svg"
[ "$(echo "$ERR" | wc -l)" = 1 ] && echo "$ERR" | grep -q 'exists; give --force' || fail "$ERR"
expect_rc 2 "$JEATTACH" -p "$rpid" --frag --frag-profile "$WORK/no.heap"
[ "$(echo "$ERR" | wc -l)" = 1 ] && echo "$ERR" | grep -q 'No such file' || fail "$ERR"
expect_rc 0 "$JEATTACH" -p "$rpid" --frag --frag-out "$WORK/frag.svg" --force

# The text report, and the sites from a heap profile of the same process.
expect_rc 0 "$JEATTACH" -p "$rpid" --dump "$WORK/redis.heap"
expect_rc 0 "$JEATTACH" -p "$rpid" --frag --frag-profile "$WORK/redis.heap"
printf '%s\n' "$OUT" >"$WORK/text.out"
for w in 'small_free_regions' 'worst size classes' 'sites that fill the worst classes' \
	'allocator_frag_bytes'; do
	grep -q "$w" "$WORK/text.out" || fail "the text report lacks '$w': $(head -40 "$WORK/text.out")"
done
expect_rc 0 "$JEATTACH" -p "$rpid" --frag --json --frag-profile "$WORK/redis.heap"
sites=$(json_get "$OUT" "len(j['actions'][0]['frag']['sites']['stacks'])")
[ "$sites" -gt 0 ] || fail "no site from the profile: $OUT"
# redis stores values with its own allocation calls: a site is in redis.
json_get "$OUT" "[s['stack'] for s in j['actions'][0]['frag']['sites']['stacks']]" |
	grep -qE 'zmalloc|sdsnew|_sds|createStringObject|ztrymalloc' ||
	fail "no redis function among the sites: $(echo "$OUT" | head -c 600)"
pass "$sites allocation sites mapped to classes"

# A bad profile: one line, exit 2, redis untouched.
expect_rc 2 "$JEATTACH" -p "$rpid" --frag --frag-profile "$top_srcdir/README"
[ "$(echo "$ERR" | wc -l)" = 1 ] && echo "$ERR" | grep -q 'frag-profile' || fail "$ERR"

redis-cli -s "$sock" ping | grep -q PONG || fail "redis no longer answers"
grep -qiE 'crash|bug report|assert|signal [0-9]|segmentation' "$WORK/redis.log" &&
	fail "redis' log: $(tail -20 "$WORK/redis.log")"
redis-cli -s "$sock" shutdown nosave >/dev/null 2>&1
pass "redis answers after --frag; its log is clean"

# Usage errors, before any target is touched.
expect_rc 2 "$JEATTACH" -p "$rpid" --frag --frag-out "$WORK/x.txt"
echo "$ERR" | grep -q '.json (the report) or .svg' || fail "$ERR"
expect_rc 2 "$JEATTACH" -p "$rpid" --status --frag-profile "$WORK/redis.heap"
echo "$ERR" | grep -q -- '--frag-profile goes with --frag' || fail "$ERR"
expect_rc 2 "$JEATTACH" -p 1,2 --frag --frag-out "$WORK/x.svg"
echo "$ERR" | grep -q '%p' || fail "$ERR"

# A target whose report is forged (tests/targets/victim_forge.c: JSON that
# closes jeattach's object and starts a record of its own): exit 7, one
# line, one JSON record, the victim unharmed.
start_victim_env fg "MALLOC_CONF=prof:true,prof_active:false" "$TARGETS/victim_forge"
expect_rc 7 "$JEATTACH" -p "$fg" --frag --prefix je_
[ "$(echo "$ERR" | wc -l)" = 1 ] && echo "$ERR" | grep -q 'not valid JSON' || fail "$ERR"
expect_rc 7 "$JEATTACH" -p "$fg" --frag --json --prefix je_ --frag-out "$WORK/forged.svg"
[ "$(printf '%s\n' "$OUT" | wc -l)" = 1 ] && [ "$(json_get "$OUT" "j['exit_code']")" = 7 ] ||
	fail "not one record: $OUT"
[ -e "$WORK/forged.svg" ] && fail "a chart was written from a forged report"
finish_victim fg

# jemalloc 5.2.1 (Debian 11's, preloaded): no opt.prof_stats (ENOENT, said),
# the same arithmetic, and 5.2 ignores the option letter it lacks (h).
if LIB=$("$top_srcdir/tests/jemalloc-archive.sh" 5.2.1 2>/dev/null); then
	start_victim_env v52 "LD_PRELOAD=$LIB" "$TARGETS/victim_plain" -b 3
	expect_rc 0 "$JEATTACH" -p "$v52" --frag --json
	json_get "$OUT" "j['actions'][0]['frag']['version']" | grep -q '^5\.2\.' || fail "5.2: $OUT"
	[ "$(json_get "$OUT" "j['actions'][0]['frag']['prof_stats']")" = None ] || fail "5.2: $OUT"
	json_get "$OUT" "abs(j['actions'][0]['frag']['unexplained']) <= 0.05 * j['actions'][0]['frag']['resident']" |
		grep -q True || fail "5.2: the categories do not add up: $OUT"
	expect_rc 0 "$JEATTACH" -p "$v52" --frag
	echo "$OUT" | grep -q 'this jemalloc has no opt.prof_stats' || fail "5.2: $OUT"
	finish_victim v52
	pass "jemalloc 5.2.1: the same arithmetic, prof_stats said to be absent"
else
	echo "note: Debian 11's libjemalloc2 5.2.1 not available; --frag on 5.2 not checked"
fi

# A process without jemalloc: exit 5, one line.
start_victim plain "$TARGETS/victim_plain" -b 1
expect_rc 5 "$JEATTACH" -p "$plain" --frag
[ "$(echo "$ERR" | wc -l)" = 1 ] && echo "$ERR" | grep -q 'no jemalloc found' || fail "$ERR"
finish_victim plain
pass "error paths"
