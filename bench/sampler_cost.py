#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""What jeattach --sample costs the service it samples, and what its peers do.

bench/sampler_cost.py BUILDDIR [--requests N] [--rounds R]

Debian's redis-server started with no MALLOC_CONF (the case --sample is
for: no profiling), filled with 100,000 keys of 256 B, then
redis-benchmark (50 connections, GET and SET of 256 B over those keys, N
requests each) under each condition, its throughput and latency
percentiles (its --csv) taken:

  none      no tool
  floor     jeattach's hooks installed for the whole run, never sampling
            (--sample-rate 2^40): jemalloc's cost of having hooks at all
            (its slow path and hook_invoke on every call) plus the hooks'
            own bookkeeping; the mechanism's floor
  sampler   jeattach --sample at the default rate (512 KiB) for the run
  after     the run right after a sampler window ended: what stays
  memleak   bcc's memleak-bpfcc -p PID -O LIBJEMALLOC (uprobes on malloc,
            free and the rest of the allocator's entry points, a stack per
            allocation), attached for the run, its report every 5 s;
            bench/peers.py says what it needs to run here
  heaptrack heaptrack -p PID attached for the run (its injection and stop
            are gdb calls: bench/peers.py's gdb workaround where needed)

Each round runs every condition once, in an order rotated round by round,
a fresh redis-server each; R rounds. Reported: the medians over the rounds
and their ratios to "none"; the cost of a tool is 1 - its throughput
ratio (throughput lost) and its p99 ratio - 1 (p99 added), and memleak's
cost is given as a multiple of the sampler's. A peer that fails in a round
(does not attach, sees no allocation of redis's, hangs it) is reported
with the round and why. Run it alone on the machine.
"""
import argparse, csv, io, json, os, shutil, signal, socket, statistics, subprocess
import sys, tempfile, time

import peers

CONDITIONS = ("none", "floor", "sampler", "after", "memleak", "heaptrack")
MEMLEAK_INTERVAL = 5  # memleak's own default


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def med(xs):
    return statistics.median(xs) if xs else float("nan")


class Bench:
    def __init__(self, a):
        self.a = a
        self.build = os.path.abspath(a.build)
        self.je = os.path.join(self.build, "src/.libs/jeattach")
        self.env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(self.build, "lib/.libs"))
        self.work = tempfile.mkdtemp(prefix="sampler-cost-")
        self.tool_env = peers.tool_env()
        self.gdb = peers.Gdb(self.work, self.tool_env)
        self.res = {c: [] for c in CONDITIONS}
        self.not_run = {}  # a condition that cannot run at all: why
        self.failed = {c: [] for c in CONDITIONS}  # (round, why) of a peer that failed in a round
        self.notes = {c: [] for c in CONDITIONS}  # (round, what) worth saying of a counted round
        self.je_out = []
        self.memleak_seen, self.attach_ms, self.ht_stop_ms, self.ht_kib = [], {}, [], []

    def redis(self):
        port = free_port()
        env = {k: v for k, v in os.environ.items() if k != "MALLOC_CONF"}
        p = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save",
                              "", "--appendonly", "no"], cwd=self.work, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        subprocess.run(["redis-benchmark", "-p", str(port), "-t", "set", "-n", "200000", "-r",
                        "100000", "-d", "256", "-q"], check=True, stdout=subprocess.DEVNULL)
        return p, port

    def load(self, port):
        r = subprocess.run(["redis-benchmark", "-p", str(port), "-c", "50", "-t", "get,set", "-n",
                            str(self.a.requests), "-r", "100000", "-d", "256", "--csv"],
                           capture_output=True, text=True, check=True)
        rows = list(csv.DictReader(io.StringIO(r.stdout)))
        # Both tests together: requests over their summed time; the worse p99.
        rps = len(rows) / sum(1 / float(x["rps"]) for x in rows)
        return {"rps": rps, "p50_ms": max(float(x["p50_latency_ms"]) for x in rows),
                "p99_ms": max(float(x["p99_latency_ms"]) for x in rows)}

    def sampler(self, pid, rate, seconds):
        f = os.path.join(self.work, f"s{len(self.je_out)}.heap")
        return subprocess.Popen([self.je, "-p", str(pid), "--sample", "--sample-rate", str(rate),
                                 "--for", f"{seconds}s", "--dump", f, "--force", "--json"],
                                env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)

    # -- setup, once, outside any window ------------------------------------
    def setup(self):
        prepared = peers.Memleak.prepare(self.work)
        if isinstance(prepared, str):
            self.not_run["memleak"] = prepared
        else:
            self.memleak = prepared
        if not shutil.which("heaptrack"):
            self.not_run["heaptrack"] = "heaptrack not installed"
            return
        # heaptrack's injection is a gdb call: find the form of gdb that can
        # make one here, on a redis of its own (no profiling: getpid() is
        # the call).
        p, _ = self.redis()
        try:
            why = self.gdb.setup(p.pid, "call (int)getpid()", lambda out: f"$1 = {p.pid}" in out)
        except subprocess.TimeoutExpired:
            why = f"gdb's call did not return in {peers.HANG_S} s"
        finally:
            p.terminate()
            p.wait(timeout=30)
        if why:
            self.not_run["heaptrack"] = why

    # -- one condition, one fresh redis ---------------------------------------
    def window(self, cond, rnd):
        p, port = self.redis()
        try:
            getattr(self, "cond_" + cond)(p.pid, port, rnd)
        finally:
            peers.end(p, 30)

    def measure(self, cond, port):
        self.res[cond].append(self.load(port))

    def cond_none(self, pid, port, rnd):
        self.measure("none", port)

    def hooks(self, cond, pid, port, rate):
        tool = self.sampler(pid, rate, 600)
        try:
            time.sleep(1.5)  # installed, threads settled
            if tool.poll() is not None:
                raise SystemExit(f"jeattach --sample ended early: {tool.communicate()}")
            self.measure(cond, port)
        finally:
            # SIGINT ends its window early, and it still takes the sampler
            # out (the wait's Ctrl-C).
            tool.send_signal(signal.SIGINT)
            out, err = tool.communicate(timeout=60)
        j = json.loads(out.splitlines()[-1]) if out.strip() else {"ok": False}
        if not j.get("ok"):
            raise SystemExit(f"jeattach --sample failed: {out} {err}")
        end = next((x for x in j["actions"] if x["action"] == "sample_end"), {})
        self.je_out.append((cond, end))

    def cond_floor(self, pid, port, rnd):
        self.hooks("floor", pid, port, 1 << 40)

    def cond_sampler(self, pid, port, rnd):
        self.hooks("sampler", pid, port, 524288)

    def cond_after(self, pid, port, rnd):
        t = self.sampler(pid, 524288, 2)
        out, err = t.communicate(timeout=60)
        if t.returncode:
            raise SystemExit(f"jeattach --sample failed: {out} {err}")
        self.measure("after", port)

    def cond_memleak(self, pid, port, rnd):
        ml = peers.Memleak(self.memleak, pid, os.path.join(self.work, f"memleak{rnd}.log"),
                           MEMLEAK_INTERVAL)
        try:
            why = ml.attach()
            if why:
                self.failed["memleak"].append((rnd, why))
                return
            self.attach_ms.setdefault("memleak", []).append(ml.attach_us / 1000)
            r = self.load(port)
            # Still attached: its next report names what it saw.
            ml.wait_report(MEMLEAK_INTERVAL + 5)
            seen = ml.found()
        finally:
            ml.stop()
        if not seen:  # attached to nothing that redis calls: not a measurement of memleak
            self.failed["memleak"].append((rnd, "reported no allocation from redis: " + ml.tail()))
            return
        self.memleak_seen.append(seen)
        self.res["memleak"].append(r)

    def cond_heaptrack(self, pid, port, rnd):
        ht = peers.Heaptrack(pid, os.path.join(self.work, f"ht{rnd}"),
                             os.path.join(self.work, f"heaptrack{rnd}.log"), self.tool_env)
        try:
            bad = ht.attach()
            if bad:
                self.failed["heaptrack"].append((rnd, f"{bad[0]}: {bad[1]}"))
                return
            self.attach_ms.setdefault("heaptrack", []).append(ht.attach_us / 1000)
            r = self.load(port)
            bad = ht.stop()
            if bad:
                # The run was over before the stop: its figures stand; the
                # hang is said (the redis is then killed, a fresh one next).
                self.notes["heaptrack"].append((rnd, f"{bad[0]} after the run: {bad[1]}"))
            else:
                self.ht_stop_ms.append(ht.stop_us / 1000)
                self.ht_kib.append(ht.size() / 1024)
            self.res["heaptrack"].append(r)
        finally:
            ht.kill()

    def run(self):
        self.setup()
        for r in range(self.a.rounds):
            k = r % len(CONDITIONS)
            for cond in CONDITIONS[k:] + CONDITIONS[:k]:
                if cond in self.not_run:
                    continue
                counted, failed = len(self.res[cond]), len(self.failed[cond])
                self.window(cond, r)
                if len(self.res[cond]) > counted:
                    print(f"round {r + 1} {cond}: {self.res[cond][-1]}", file=sys.stderr)
                if len(self.failed[cond]) > failed:
                    print(f"round {r + 1} {cond}: failed: {self.failed[cond][-1][1]}", file=sys.stderr)
            self.rounds_done = r + 1

    # -- the report ------------------------------------------------------------
    def report(self):
        print(f"\nRun: {peers.machine()}, {time.strftime('%Y-%m-%d %H:%M')}, load average before "
              f"{self.load_before}")
        print(f"{versions()}")
        print(f"{getattr(self, 'rounds_done', 0)} of {self.a.rounds} rounds, redis-benchmark -c 50 "
              f"-t get,set -n {self.a.requests} -d 256 on Debian's redis-server (no MALLOC_CONF); "
              f"medians over the rounds (lowest-highest)\n")
        print("| condition | rounds | failed | requests/s | p50, ms | p99, ms | rps / none "
              "| p99 / none |")
        print("|---|---|---|---|---|---|---|---|")
        m = {c: {k: med([x[k] for x in self.res[c]]) for k in ("rps", "p50_ms", "p99_ms")}
             for c in CONDITIONS}
        base = m["none"]
        for c in CONDITIONS:
            rs = self.res[c]
            if not rs:
                why = f"not run: {self.not_run[c]}" if c in self.not_run else \
                    f"failed in every round: {self.failed[c][0][1] if self.failed[c] else '?'}"
                print(f"| {c} | 0 | {len(self.failed[c])} | {why} | | | | |")
                continue

            def cell(k, fmt):
                return (f"{m[c][k]:{fmt}} ({min(x[k] for x in rs):{fmt}}-"
                        f"{max(x[k] for x in rs):{fmt}})")
            print(f"| {c} | {len(rs)} | {len(self.failed[c])} | {cell('rps', ',.0f')} | "
                  f"{cell('p50_ms', '.3f')} | {cell('p99_ms', '.3f')} | "
                  f"{m[c]['rps'] / base['rps']:.2f} | {m[c]['p99_ms'] / base['p99_ms']:.2f} |")
        print()

        # A tool's cost: the throughput it takes (1 - rps ratio) and the p99
        # it adds (p99 ratio - 1), both against "none", from the medians.
        def cost(c):
            return 1 - m[c]["rps"] / base["rps"], m[c]["p99_ms"] / base["p99_ms"] - 1
        print("Cost = throughput lost (1 - rps / none) and p99 added (p99 / none - 1):")
        for c in CONDITIONS[1:]:
            if self.res[c]:
                t, p = cost(c)
                print(f"- {c}: throughput {t:+.1%}, p99 {p:+.1%}")
        if self.res["sampler"] and self.res["floor"]:
            f, s = m["floor"], m["sampler"]
            print(f"- sampler against the floor: rps {s['rps'] / f['rps']:.3f}, "
                  f"p99 {s['p99_ms'] / f['p99_ms']:.3f} (goal: within 10%)")
        if self.res["sampler"] and self.res["memleak"]:
            for i, what in enumerate(("throughput lost", "p99 added")):
                s, ml = cost("sampler")[i], cost("memleak")[i]
                if s <= 0:
                    print(f"- memleak / sampler, {what}: the sampler's is {s:+.1%} (none within "
                          f"noise), memleak's {ml:+.1%}: no finite ratio")
                else:
                    print(f"- memleak / sampler, {what}: {ml:.1%} / {s:.1%} = {ml / s:.1f}x "
                          f"(goal: at least 5x)")
        else:
            print("- memleak / sampler: not measured (no counted round of one of them)")
        print()
        for c, ms in self.attach_ms.items():
            print(f"- {c}: from start to attached, median {med(ms):.0f} ms (not inside the run)")
        for c in ("floor", "sampler"):
            ends = [e for cc, e in self.je_out if cc == c]
            if ends:
                print(f"- {c}: jeattach's samples in a window median "
                      f"{med([e.get('samples', 0) for e in ends]):.0f}, not taken for a full ring "
                      f"median {med([e.get('dropped_ring_full', 0) for e in ends]):.0f}")
        if self.memleak_seen:
            n, size, frame = max(self.memleak_seen, key=lambda x: x[1])
            print(f"- memleak saw redis's allocations in each counted round: its largest stack "
                  f"{n} allocations, {size} B outstanding, from {' '.join(frame.split())}")
        if self.ht_stop_ms:
            print(f"- heaptrack: stop (SIGINT until it exited) median {med(self.ht_stop_ms):.0f} ms, "
                  f"its data median {med(self.ht_kib):.0f} KiB")
        if self.gdb.note:
            print(f"- gdb as installed failed here (\"{self.gdb.note}\"); heaptrack's gdb ran with "
                  f"a target description without AVX, AVX-512 and PKRU (bench/peers.py)")
        for c in CONDITIONS:
            for r, why in self.failed[c]:
                print(f"- {c}, round {r + 1}: failed, not counted: {why}")
            for r, why in self.notes[c]:
                print(f"- {c}, round {r + 1}: {why}")
        for c, why in self.not_run.items():
            print(f"- {c}: not run: {why}")

    def cleanup(self):
        shutil.rmtree(self.work, ignore_errors=True)


def versions():
    out = []
    for pkg in ("libjemalloc2", "bpfcc-tools", "heaptrack", "gdb"):
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", pkg], capture_output=True,
                           text=True)
        out.append(f"{pkg} {r.stdout or 'not installed'}")
    return ", ".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--requests", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    b = Bench(a)
    b.load_before = open("/proc/loadavg").read().split()[0]
    try:
        b.run()
    finally:
        b.report()
        b.cleanup()


if __name__ == "__main__":
    main()
