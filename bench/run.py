#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Reproduce every figure in doc/benchmarks.md.

bench/run.py BUILDDIR [--runs N] [--gdb-runs M] [--big] [--skip-attach] [--skip-heap]
bench/run.py BUILDDIR --compare OLDBUILDDIR [--runs N] [--big]
bench/run.py BUILDDIR --top-cost SECONDS
bench/run.py BUILDDIR --trend-only [--runs N]

Attach: a busy 8-thread victim and a 1000-idle-thread victim (tests/targets/
victim_dyn with a ticker thread that measures the longest gap between its
1 ms wake-ups: the pause the process felt). For `jeattach --status` and
`--activate`, N runs each: jeattach's own hold_us_max (the longest any thread
was stopped), the wall time of the command, the ticker's gap; then the same
mallctl through `gdb -p PID -batch -ex 'call ...'`, M runs. EINTRs leaked are
what each victim counted in its blocked threads, one victim per tool.

Heap: bench/bigprof.c profiles (20,000 stacks; with --big also
200,000 stacks, ~68 MB): `jeheap top` against `jeprof --text`, wall time and
peak RSS, and jeheap's parsing throughput.

Trend (--trend-only, also part of the heap run): `jeheap trend` over 30
dumps made from the 20,000-stack profile, one a minute by their stamps,
every tenth stack growing by its own size each dump (not 30 identical
files).

Medians of all runs, with min and max; ratios to the peer from the same run.

--compare: the same build before and after a change, in one run. Old and
new jeattach take turns on the same victims (the order alternates run by
run), and old and new jeheap on the same profiles: medians and new/old
ratios, so a restructuring can show it made nothing slower.
"""
import argparse, json, os, platform, re, signal, statistics, subprocess, sys, tempfile, time

def machine():
    cpu = "?"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    return f"{platform.node()}: {os.cpu_count()} cores, {cpu}, Linux {platform.release()}"

def med(xs):
    return statistics.median(xs) if xs else float("nan")

def spread(xs):
    return f"{med(xs):.0f} (min {min(xs):.0f}, max {max(xs):.0f}, n={len(xs)})" if xs else "-"

class Victim:
    def __init__(self, build, args, env_extra=None, binary="victim_dyn"):
        env = dict(os.environ, MALLOC_CONF="prof:true,prof_active:false", **(env_extra or {}))
        self.out = tempfile.NamedTemporaryFile("w+", delete=False, prefix="bench-victim-")
        self.p = subprocess.Popen([f"{build}/tests/targets/{binary}"] + args, stdout=self.out,
                                  stderr=subprocess.STDOUT, env=env)
        for _ in range(400):
            if "ready" in open(self.out.name).read():
                break
            time.sleep(0.05)
        else:
            raise SystemExit("victim did not start")
        self.pid = self.p.pid

    def gap(self):
        """The longest pause since the last call, microseconds."""
        before = open(self.out.name).read().count("gap max_us=")
        os.kill(self.pid, signal.SIGUSR2)
        for _ in range(200):
            text = open(self.out.name).read()
            found = re.findall(r"gap max_us=(\d+)", text)
            if len(found) > before:
                return int(found[-1])
            time.sleep(0.01)
        raise SystemExit("victim did not answer SIGUSR2")

    def finish(self):
        os.kill(self.pid, signal.SIGUSR1)
        self.p.wait(timeout=30)
        text = open(self.out.name).read()
        os.unlink(self.out.name)
        m = re.search(r"report eintr=(\d+) early=(\d+) heap_errors=(\d+) fp_errors=(\d+)", text)
        return tuple(int(x) for x in m.groups()) if m else None

def timed(cmd):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True)
    return r, (time.perf_counter() - t0) * 1e6

def bench_attach(build, kind, args, runs, gdb_runs, results):
    je = f"{build}/src/jeattach"
    for op in ("status", "activate"):
        v = Victim(build, args)
        v.gap()
        holds, walls, gaps = [], [], []
        for i in range(runs):
            action = "--status" if op == "status" else ("--activate" if i % 2 == 0 else "--deactivate")
            v.gap()
            r, wall = timed([je, "-p", str(v.pid), action, "--json", "--timeout", "10"])
            if r.returncode != 0:
                raise SystemExit(f"jeattach failed: {r.stderr}")
            gaps.append(v.gap())
            holds.append(json.loads(r.stdout)["hold_us_max"])
            walls.append(wall)
        rep = v.finish()
        results.append((kind, op, "jeattach", holds, walls, gaps, rep, runs))
        if gdb_runs:
            v = Victim(build, args)
            v.gap()
            walls, gaps = [], []
            call = ('call (int)mallctl("version",0,0,0,0)' if op == "status" else
                    'call (int)mallctl("prof.active",0,0,"\\001",1)')
            for i in range(gdb_runs):
                v.gap()
                r, wall = timed(["gdb", "-p", str(v.pid), "-batch", "-nx", "-ex", call])
                if "$1 = 0" not in r.stdout:
                    raise SystemExit(f"gdb failed: {r.stdout} {r.stderr}")
                gaps.append(v.gap())
                walls.append(wall)
            rep = v.finish()
            results.append((kind, op, "gdb", None, walls, gaps, rep, gdb_runs))

def bench_pass(build, runs):
    """The per-thread pass on a 200-thread victim (2 busy, 197 idle, the
    ticker): jemalloc 5.2.1's --activate re-arm (Debian 11's build, fetched
    by tests/jemalloc-archive.sh, LD_PRELOAD into victim_plain) and
    --name-threads on the system's jemalloc. Per run: the median and the
    longest single-thread hold of the pass, the whole pass, the ticker gap
    (the pause the process felt), jeattach's wall time."""
    je = f"{build}/src/jeattach"
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    lib = subprocess.run([f"{src}/tests/jemalloc-archive.sh", "5.2.1"], capture_output=True,
                         text=True, env=dict(os.environ, top_builddir=build))
    cases = [("5.3 (system), --name-threads", {}, "victim_dyn", ["--name-threads"])]
    if lib.returncode == 0:
        cases.insert(0, ("5.2.1 (Debian 11), --activate re-arm",
                         {"LD_PRELOAD": lib.stdout.strip()}, "victim_plain",
                         ["--activate", "--discard-samples"]))
    else:
        print(f"# 5.2.1 not measured: {lib.stdout.strip() or lib.stderr.strip()}")
    print("\n| victim | operation | threads | hold per thread, median of runs, us | longest hold, us | whole pass, us | ticker gap, us | wall, us | missed | victim checks |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, env, binary, args in cases:
        v = Victim(build, ["-b", "2", "-i", "197", "-t"], env, binary)
        nthreads = len(os.listdir(f"/proc/{v.pid}/task"))
        v.gap()
        meds, maxs, passes, gaps, walls, missed = [], [], [], [], [], 0
        for i in range(runs):
            v.gap()
            r, wall = timed([je, "-p", str(v.pid)] + args + ["--json", "--timeout", "10"])
            if r.returncode != 0:
                raise SystemExit(f"jeattach failed: {r.stderr}")
            gaps.append(v.gap())
            a = json.loads(r.stdout)["actions"][0]
            meds.append(a["pass_hold_us_median"])
            maxs.append(a["pass_hold_us_max"])
            passes.append(a["pass_us"])
            missed += a["threads_missed"]
            walls.append(wall)
            if "--activate" in args:
                timed([je, "-p", str(v.pid), "--deactivate"])
        rep = v.finish()
        ok = "clean" if rep and rep == (0, 0, 0, 0) else f"{rep}"
        print(f"| {name.split(',')[0]} | {name.split(', ')[1]} | {nthreads} | {spread(meds)} | "
              f"{spread(maxs)} | {spread(passes)} | {spread(gaps)} | {spread(walls)} | {missed} | {ok} |")

def cpu_ticks(pid):
    """utime + stime of a process, clock ticks (fields 14 and 15 of its stat)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])

def bench_top(build, seconds):
    """jeattach --top --json at 1 s on the busy 8-thread and the 1000-thread
    victims for SECONDS refreshes: holds per refresh, each stats hold (the
    first, which also learns the arenas, apart), the threads located (one
    stop each for the thread pointer) and when locating ended (after it,
    every refresh reads all counters with no stop), jeattach's own CPU from
    that refresh to the end (/proc/PID/stat), the longest pause the
    victim's ticker felt, and jemalloc's stats.metadata at the first and
    last refresh (a thread given a tcache by a borrow would grow it)."""
    je = f"{build}/src/jeattach"
    hz = os.sysconf("SC_CLK_TCK")
    print("\n| victim | threads | refreshes | holds | stats hold, us (after the 1st) | 1st hold, us | threads located / missed | locating done at refresh | jeattach CPU after it, % of a core | ticker gap, us | metadata first -> last, MB | victim checks |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for kind, args in (("busy, 8 threads", ["-b", "8", "-t"]),
                       ("idle, 1000 threads", ["-b", "0", "-i", "1000", "-t"])):
        v = Victim(build, args)
        nthreads = len(os.listdir(f"/proc/{v.pid}/task"))
        v.gap()
        p = subprocess.Popen([je, "-p", str(v.pid), "--top", "--json", "--interval", "1s",
                              "--count", str(seconds)], stdout=subprocess.PIPE, text=True)
        lines, mark, done_at = [], None, None
        for line in p.stdout:
            j = json.loads(line)
            lines.append(j)
            # done: nothing located since the refresh before (a thread
            # waiting on a socket stays pending, and is never stopped)
            if done_at is None and j["seq"] > 1 and \
                    j["threads_located"] == lines[-2]["threads_located"]:
                done_at = j["seq"]
                mark = (cpu_ticks(p.pid), time.monotonic())
            if j["seq"] == seconds - 1 and mark:
                end = (cpu_ticks(p.pid), time.monotonic())
        p.wait()
        gap = v.gap()
        rep = v.finish()
        last = lines[-1]
        holds = [j["hold_us"] for j in lines[1:]]
        cpu = 100.0 * (end[0] - mark[0]) / hz / (end[1] - mark[1]) if mark else float("nan")
        ok = "clean" if rep and rep[1:] == (0, 0, 0) else f"{rep}"
        print(f"| {kind} | {nthreads} | {len(lines)} | {last['holds']} | {spread(holds)} | "
              f"{lines[0]['hold_us']} | {last['threads_located']} / {last['threads_missed']} | "
              f"{done_at} | {cpu:.2f} | {gap} | {lines[0]['metadata'] / 1e6:.1f} -> "
              f"{last['metadata'] / 1e6:.1f} | {ok} |")

def run_measured(cmd, stdout=subprocess.DEVNULL):
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        raise SystemExit(f"{cmd} failed: {status}")
    return wall, ru.ru_maxrss * 1024

def jeheap_of(build):
    """The command that runs jeheap of a build tree (src/ before the layout
    of 2026-11), as a list. In a libtool build jeheap/jeheap is a shell
    script that sets the library path and runs jeheap/.libs/jeheap: that
    binary is what gets installed, so it is what is measured, its library
    found through LD_LIBRARY_PATH (env's exec costs well under a
    millisecond; the script's shell costs several)."""
    build = os.path.abspath(build)
    for rel in ("jeheap", "src"):
        real = os.path.join(build, rel, ".libs", "jeheap")
        if os.path.exists(real):
            return ["env", f"LD_LIBRARY_PATH={build}/lib/.libs:{build}/src/.libs", real]
        if os.path.exists(os.path.join(build, rel, "jeheap")):
            return [os.path.join(build, rel, "jeheap")]
    raise SystemExit(f"no jeheap in {build}")

def make_profiles(big):
    """bigprof.c's profiles: [(stacks, path)], and the directory to remove."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bigprof.c")
    if not os.path.exists(src):
        return None, None, None
    work = tempfile.mkdtemp(prefix="bench-heap-")
    exe = os.path.join(work, "bigprof")
    subprocess.run(["cc", "-O1", "-g", "-fno-omit-frame-pointer", "-fno-optimize-sibling-calls",
                    "-o", exe, src, "-ljemalloc"], check=True)
    heaps = []
    for n, depth in [(20000, 8)] + ([(200000, 10)] if big else []):
        heap = os.path.join(work, f"big{n}.heap")
        env = dict(os.environ, MALLOC_CONF="prof:true,lg_prof_sample:0")
        subprocess.run([exe, str(n), str(depth), heap], check=True, env=env)
        heaps.append((n, heap))
    return work, exe, heaps

def bench_compare(new, old, runs, big, attach=True, heap=True):
    builds = (("old", old), ("new", new))
    if attach:
        compare_attach(new, builds, runs)
    if heap:
        compare_heap(builds, runs, big)

def compare_attach(new, builds, runs):
    print("\n| victim | operation | old: longest stop, us | new | new/old | old: wall, us | new | new/old |")
    print("|---|---|---|---|---|---|---|---|")
    for kind, args in (("busy, 8 threads", ["-b", "8", "-t"]),
                       ("idle, 1000 threads", ["-b", "0", "-i", "1000", "-t"])):
        for op in ("status", "activate"):
            v = Victim(new, args)
            holds = {"old": [], "new": []}
            walls = {"old": [], "new": []}
            for i in range(runs):
                action = "--status" if op == "status" else ("--activate" if i % 2 == 0 else "--deactivate")
                for tag, build in (builds if i % 2 == 0 else builds[::-1]):
                    r, wall = timed([f"{build}/src/jeattach", "-p", str(v.pid), action, "--json",
                                     "--timeout", "10"])
                    if r.returncode != 0:
                        raise SystemExit(f"{tag} jeattach failed: {r.stderr}")
                    holds[tag].append(json.loads(r.stdout)["hold_us_max"])
                    walls[tag].append(wall)
            rep = v.finish()
            if not rep or rep != (0, 0, 0, 0):
                raise SystemExit(f"victim not clean after {op}: {rep}")
            ho, hn, wo, wn = (med(holds["old"]), med(holds["new"]), med(walls["old"]),
                              med(walls["new"]))
            print(f"| {kind} | {op} | {ho:.0f} | {hn:.0f} | {hn / ho:.2f} | {wo:.0f} | {wn:.0f} "
                  f"| {wn / wo:.2f} |")

def compare_heap(builds, runs, big):
    work, _, heaps = make_profiles(big)
    if not heaps:
        print("\nbench/bigprof.c not found: jeheap skipped")
        return
    print("\n| profile | command | old wall, s | new | new/old | old peak RSS, MB | new |")
    print("|---|---|---|---|---|---|---|")
    for n, heap in heaps:
        for name, cmd in (("top", ["top", heap]), ("flame", ["flame", "-o", "/dev/null", heap]),
                          ("pprof", ["pprof", "-o", "/dev/null", heap])):
            t = {"old": [], "new": []}
            rss = {"old": 0, "new": 0}
            for i in range(runs):
                for tag, build in (builds if i % 2 == 0 else builds[::-1]):
                    w, r = run_measured(jeheap_of(build) + cmd)
                    t[tag].append(w)
                    rss[tag] = max(rss[tag], r)
            to, tn = med(t["old"]), med(t["new"])
            print(f"| {n:,} stacks | {name} | {to:.3f} | {tn:.3f} | {tn / to:.2f} | "
                  f"{rss['old'] / 1e6:.0f} | {rss['new'] / 1e6:.0f} |")
    subprocess.run(["rm", "-rf", work])

def bench_writers(build, exe, heap, n, size, runs, out2):
    """The other views and writers on the same profile; jeprof --lines as the
    peer of --lines (once: it runs addr2line over every address)."""
    jeheap = jeheap_of(build)
    cmds = [("top --lines", jeheap + ["top", "--lines", heap]),
            ("collapsed", jeheap + ["collapsed", heap]),
            ("flame", jeheap + ["flame", "-o", "/dev/null", heap]),
            ("dot", jeheap + ["dot", "-o", "/dev/null", heap]),
            ("pprof", jeheap + ["pprof", "-o", "/dev/null", heap])]
    for name, cmd in cmds:
        r = [run_measured(cmd) for _ in range(runs)]
        t, rss = med([w for w, _ in r]), max(x for _, x in r)
        peer = ""
        if name == "top --lines" and n <= 20000:
            pw, _ = run_measured(["jeprof", "--text", "--lines", exe, heap])
            peer = f"jeprof --text --lines {pw:.2f} s (n=1): {pw / t:.0f}x"
        out2.append(f"| {n:,} stacks, {size / 1e6:.1f} MB | jeheap {name} | {t:.3f} s "
                    f"({min(w for w, _ in r):.3f}-{max(w for w, _ in r):.3f}, n={runs}) | "
                    f"{rss / 1e6:.0f} MB | {peer} |")

def make_series(heap, work, count=30):
    """count dumps of one process a minute apart, made from heap: every
    tenth stack holds (k + 1) times its objects and bytes in dump k (its t*:
    and tN: lines alike), and each ends with jeattach's stamp block (a boot
    id, the dump's time), as jeattach --every would leave them."""
    boot = open("/proc/sys/kernel/random/boot_id").read().strip()
    lines = open(heap).read().rstrip("\n").split("\n")
    line = re.compile(r"  (t[^:]*): (\d+): (\d+) (.*)")
    paths = []
    for k in range(count):
        out, stack = [], -1
        for l in lines:
            stack += l.startswith("@")
            m = line.match(l) if stack >= 0 and stack % 10 == 0 else None
            if m:
                l = f"  {m[1]}: {int(m[2]) * (k + 1)}: {int(m[3]) * (k + 1)} {m[4]}"
            out.append(l)
        path = os.path.join(work, f"series{k:02d}.heap")
        with open(path, "w") as f:
            f.write("\n".join(out) + f"\n# jeattach boot-id {boot}\n"
                    f"# jeattach dump-time {1700000000 + 60 * k}.000000000\n")
        paths.append(path)
    return paths

def bench_trend(build, heap, work, n, runs, out2):
    """jeheap trend over 30 dumps of the n-stack profile: text, and the SVG."""
    series = make_series(heap, work)
    size = sum(os.path.getsize(p) for p in series)
    for name, args in (("trend (30 dumps)", ["trend"]),
                       ("trend -o x.svg (30 dumps)", ["trend", "-o", os.path.join(work, "t.svg")])):
        r = [run_measured(jeheap_of(build) + args + series) for _ in range(runs)]
        t, rss = med([w for w, _ in r]), max(x for _, x in r)
        out2.append(f"| {n:,} stacks x 30, {size / 1e6:.0f} MB | jeheap {name} | {t:.3f} s "
                    f"({min(w for w, _ in r):.3f}-{max(w for w, _ in r):.3f}, n={runs}) | "
                    f"{rss / 1e6:.0f} MB | |")

def bench_trend_only(build, runs):
    work, _, heaps = make_profiles(False)
    if not heaps:
        raise SystemExit("bench/bigprof.c not found")
    out2 = []
    bench_trend(build, heaps[0][1], work, heaps[0][0], runs, out2)
    print("\n| profile | command | wall | peak RSS | peer (same run) |")
    print("|---|---|---|---|---|")
    print("\n".join(out2))
    subprocess.run(["rm", "-rf", work])

def bench_heap(build, big, runs, out, out2):
    work, exe, heaps = make_profiles(big)
    if not heaps:
        out.append("bench/bigprof.c not found: heap benchmark skipped")
        return
    for n, heap in heaps:
        size = os.path.getsize(heap)
        jh = [run_measured(jeheap_of(build) + ["top", heap]) for _ in range(runs)]
        jp_runs = 3 if n <= 20000 else 1
        jp = [run_measured(["jeprof", "--text", exe, heap]) for _ in range(jp_runs)]
        jt, jr = med([w for w, _ in jh]), max(r for _, r in jh)
        pt, pr = med([w for w, _ in jp]), max(r for _, r in jp)
        out.append(f"| {n:,} stacks, {size / 1e6:.1f} MB | {jt:.3f} s ({min(w for w, _ in jh):.3f}-"
                   f"{max(w for w, _ in jh):.3f}, n={runs}) | {jr / 1e6:.0f} MB | {pt:.2f} s (n={jp_runs}) "
                   f"| {pr / 1e6:.0f} MB | {pt / jt:.0f}x | {size / 1e6 / jt:.0f} MB/s |")
        bench_writers(build, exe, heap, n, size, runs, out2)
        if n <= 20000:
            bench_trend(build, heap, work, n, runs, out2)
    subprocess.run(["rm", "-rf", work])

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--runs", type=int, default=21)
    ap.add_argument("--gdb-runs", type=int, default=5)
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--skip-attach", action="store_true")
    ap.add_argument("--skip-heap", action="store_true")
    ap.add_argument("--compare", metavar="OLDBUILD")
    ap.add_argument("--pass-only", action="store_true",
                    help="only the per-thread pass on 200 threads (doc/benchmarks.md)")
    ap.add_argument("--top-cost", type=int, metavar="SECONDS",
                    help="only --top's cost at 1 s refresh, SECONDS refreshes (doc/benchmarks.md)")
    ap.add_argument("--trend-only", action="store_true",
                    help="only jeheap trend over 30 dumps of 20,000 stacks (doc/benchmarks.md)")
    a = ap.parse_args()
    print(f"# bench/run.py {' '.join(sys.argv[1:])}")
    print(f"# {machine()}, {time.strftime('%Y-%m-%d %H:%M')}")
    if a.top_cost:
        bench_top(os.path.abspath(a.build), a.top_cost)
        return
    if a.trend_only:
        bench_trend_only(os.path.abspath(a.build), a.runs)
        return
    if a.pass_only:
        bench_pass(os.path.abspath(a.build), a.runs)
        return
    if a.compare:
        bench_compare(a.build, a.compare, a.runs, a.big, not a.skip_attach, not a.skip_heap)
        return
    if not a.skip_attach:
        results = []
        bench_attach(a.build, "busy, 8 threads", ["-b", "8", "-t"], a.runs, a.gdb_runs, results)
        bench_attach(a.build, "idle, 1000 threads", ["-b", "0", "-i", "1000", "-t"], a.runs,
                     a.gdb_runs, results)
        print("\n| victim | operation | tool | longest thread stop, us | ticker gap, us | wall, us | EINTR leaked / runs | victim checks |")
        print("|---|---|---|---|---|---|---|---|")
        for kind, op, tool, holds, walls, gaps, rep, n in results:
            stop = spread(holds) if holds else "all threads, = gap"
            ok = "clean" if rep and rep[1:] == (0, 0, 0) else f"{rep}"
            print(f"| {kind} | {op} | {tool} | {stop} | {spread(gaps)} | {spread(walls)} | "
                  f"{rep[0] if rep else '?'} / {n} | {ok} |")
        print("\nRatios, gdb / jeattach (medians, same run):")
        for i in range(0, len(results), 2):
            j, g = results[i], results[i + 1] if i + 1 < len(results) else None
            if g and g[2] == "gdb":
                print(f"- {j[0]}, {j[1]}: wall {med(g[4]) / med(j[4]):.0f}x, "
                      f"pause felt {med(g[5]) / max(med(j[3]), 1):.0f}x (gdb's ticker gap / jeattach's longest stop)")
    if not a.skip_heap:
        out, out2 = [], []
        bench_heap(a.build, a.big, 5, out, out2)
        print("\n| profile | jeheap top | jeheap peak RSS | jeprof --text | jeprof peak RSS | speed-up | jeheap throughput |")
        print("|---|---|---|---|---|---|---|")
        print("\n".join(out))
        print("\n| profile | command | wall | peak RSS | peer (same run) |")
        print("|---|---|---|---|---|")
        print("\n".join(out2))

if __name__ == "__main__":
    main()
