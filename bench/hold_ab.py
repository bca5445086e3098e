#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Hold and wall of --status, --activate, --deactivate, --dump and --stats, two builds interleaved on
one idle victim (victim_dyn -b 0 -w), medians of RUNS each:
    python3 bench/hold_ab.py NEWBUILD OLDBUILD [RUNS]
A build is a configured and built tree (src/.libs/jeattach, lib/.libs)."""
import json, os, statistics, subprocess, sys, time

new, old = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 31
out = open("/tmp/hold_ab.victim", "w")
env = dict(os.environ, MALLOC_CONF="prof:true,prof_active:false")
v = subprocess.Popen([os.path.join(new, "tests/targets/victim_dyn"), "-b", "0", "-w"],
                     stdout=out, stderr=out, env=env)
while "ready" not in open("/tmp/hold_ab.victim").read():
    time.sleep(0.05)
# --activate and --deactivate take turns, so each starts from the other's state.
acts = {"status": ["--status"], "activate": ["--activate"], "deactivate": ["--deactivate"], "dump": ["--dump", "/tmp/hold_ab.heap", "--force"], "stats": ["--stats"]}
res = {}
for _ in range(runs):
    for name, tree in (("new", new), ("old", old)):
        for a, args in acts.items():
            r = subprocess.run([os.path.join(tree, "src/.libs/jeattach"), "-p", str(v.pid)] + args +
                               ["--json"], capture_output=True, text=True,
                               env=dict(os.environ, LD_LIBRARY_PATH=os.path.join(tree, "lib/.libs")))
            j = json.loads(r.stdout.splitlines()[-1])
            res.setdefault((name, a), []).append((j["hold_us_max"], j["wall_us"]))
v.terminate()
print("| operation | old hold, us | new | new/old | old wall, us | new | new/old |")
print("|---|---|---|---|---|---|---|")
for a in acts:
    o = [h for h, _ in res[("old", a)]]; n = [h for h, _ in res[("new", a)]]
    ow = [w for _, w in res[("old", a)]]; nw = [w for _, w in res[("new", a)]]
    mo, mn, mow, mnw = (statistics.median(x) for x in (o, n, ow, nw))
    print(f"| {a} | {mo:.0f} | {mn:.0f} | {mn / mo:.2f} | {mow:.0f} | {mnw:.0f} | {mnw / mow:.2f} |")
