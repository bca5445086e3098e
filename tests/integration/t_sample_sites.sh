#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --sample's accuracy against jemalloc's own profiling of the same
# allocations: victim_sites runs with MALLOC_CONF=prof:true,lg_prof_sample:12
# (Debian's libjemalloc2 is built with profiling), the sampler goes in at
# the same mean (--sample-rate 4096), and only then does the victim
# allocate at its sites (SIGUSR2): jemalloc counts from the start, the
# sampler from its window, so both see the same allocations. Right after
# the window, jemalloc's own profile (--dump). Each live site's bytes, as
# jeheap json un-samples them, must agree within 10% between the two,
# each within 8% of the truth (the victim's malloc_usable_size sums), in
# the same order; the short-lived site holds nothing in either.
#
# Why 10% cannot fail by chance (but for about 1 run in 10,000): a block
# of s bytes is sampled with p = 1 - exp(-s/4096) (both samplers are
# exponential in bytes), so a site of N blocks has about N*p samples and
# its un-sampled bytes a relative error of sqrt((1-p)/(N*p)):
#   site_leak   2048 x 4 KiB   p 0.632, ~1295 samples: 1.69%
#   site_cache   512 x 8 KiB   p 0.865,  ~443 samples: 1.75%
#   site_hold    256 x 12 KiB  p 0.950,  ~243 samples: 1.43%
# The two profiles sample independently: their difference is sqrt(2)
# times that, 2.0-2.5%, so 10% is 4.0-5.0 standard deviations (two-sided
# 5e-5 at worst, 8e-5 for the three); 8% of the truth is 4.6 or more
# (2e-5 for the six). Larger blocks would be quieter still but sampled
# nearly always (p -> 1), which would test the un-sampling less: site_leak
# keeps p near 0.6. The sampler's ring takes 64 samples between two reads
# (every 250 ms), so the victim paces these ~2,200 samples over 20 s
# (~135/s at most); a full ring drops samples, which would bias the
# sampler low, and fails the test as such.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

LG=12
PHASE=$(slow 20)
start_victim_env v "MALLOC_CONF=prof:true,lg_prof_sample:$LG" "$TARGETS/victim_sites" "$PHASE"
# A window longer than the phase, ended by SIGINT once the victim is done
# (jeattach(1): Ctrl-C ends the wait early and still writes the profile).
"$JEATTACH" -p "$v" --sample --sample-rate $((1 << LG)) --for "$(slow 120)s" \
	--dump "$WORK/s.heap" --json >"$WORK/s.out" 2>"$WORK/s.err" &
jp=$!
track "$jp"
# Its first "wait" event: the hooks are in.
await_line "$WORK/s.out" '"event":"wait"' "$jp" "the sampler's window"
kill -USR2 "$v"
n=0
until grep -q '^live ' "$v_out"; do
	n=$((n + 1))
	[ $n -gt $(((PHASE + $(slow 20)) * 10)) ] && fail "the victim's phase did not end: $(cat "$v_out")"
	kill -0 "$jp" 2>/dev/null || fail "jeattach ended before the victim's phase: $(cat "$WORK/s.err")"
	sleep 0.1
done
kill -INT "$jp"
wait "$jp"
rc=$?
[ $rc = 130 ] || fail "the sampler's run: exit $rc (wanted 130, SIGINT): $(cat "$WORK/s.err")"
# jemalloc's own, of the same process, nothing allocated at the sites since.
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/j.heap"
finish_victim v

grep -v '^{"event":' "$WORK/s.out" | tail -1 >"$WORK/run.json"
grep '^live ' "$v_out" >"$WORK/truth"
expect_rc 0 "$JEHEAP" json "$WORK/s.heap"
printf '%s\n' "$OUT" >"$WORK/s.json"
expect_rc 0 "$JEHEAP" json "$WORK/j.heap"
printf '%s\n' "$OUT" >"$WORK/j.json"
python3 - "$WORK/run.json" "$WORK/truth" "$WORK/s.json" "$WORK/j.json" >"$WORK/cmp.out" 2>&1 <<'PY' || fail "the sampler's profile against jemalloc's own: $(cat "$WORK/cmp.out")"
import json, sys
end = [a for a in json.load(open(sys.argv[1]))["actions"] if a["action"] == "sample_end"][0]
bad = []
# A sample not taken or not unwound is missing from the sampler's bytes.
if end["dropped_ring_full"]:
    bad.append("the ring was full %d times: samples came faster than jeattach read them"
               " (a loaded machine?)" % end["dropped_ring_full"])
for k in ("dropped_set_full", "dropped_threads", "no_stack", "not_unwound", "refused", "expired"):
    if end[k]:
        bad.append("sample_end's %s is %d" % (k, end[k]))
truth = {k: int(v) for k, v in (kv.split("=") for kv in open(sys.argv[2]).read().split()[1:])}
live = sorted((s for s in truth if truth[s]), key=lambda s: -truth[s])
def flat(path):
    return {f["name"]: f["flat"] for f in json.load(open(path))["functions"]}
sam, own = flat(sys.argv[3]), flat(sys.argv[4])
for site in live:
    t, s, j = truth[site], sam.get(site, 0), own.get(site, 0)
    print("%s: sampler %.2f MiB, jemalloc %.2f MiB, truth %.2f MiB (sampler/jemalloc %+.1f%%)"
          % (site, s / 2**20, j / 2**20, t / 2**20, 100 * (s / j - 1) if j else float("inf")))
    if not j or abs(s / j - 1) >= 0.10:
        bad.append("%s: sampler and jemalloc differ by 10%% or more" % site)
    for who, b in (("sampler", s), ("jemalloc", j)):
        if abs(b / t - 1) >= 0.08:
            bad.append("%s: %s's %.0f bytes are 8%% or more off the truth %d" % (site, who, b, t))
# The same order as the truth: the live sites are each profile's first.
for who, prof in (("sampler", sam), ("jemalloc", own)):
    first = sorted(prof, key=lambda f: -prof[f])[:len(live)]
    if first != live:
        bad.append("%s's first functions are %s, not %s" % (who, first, live))
# Short-lived: under 1% of the smallest live site's bytes in both.
for site in (s for s in truth if not truth[s]):
    floor = 0.01 * truth[live[-1]]
    print("%s: sampler %.0f B, jemalloc %.0f B, truth 0" % (site, sam.get(site, 0), own.get(site, 0)))
    if sam.get(site, 0) >= floor or own.get(site, 0) >= floor:
        bad.append("%s: freed at once, yet held in a profile" % site)
assert not bad, bad
PY
cat "$WORK/cmp.out"
pass "--sample's per-site bytes within 10% of jemalloc's own profiling, same ranking"
