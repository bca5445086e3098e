#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""What jeattach --sample costs the service it samples.

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
  memleak   bcc's memleak-bpfcc -p PID (uprobes on malloc and free), where
            it runs
  heaptrack heaptrack -p PID, where it runs

Conditions are interleaved, a fresh redis-server each; R rounds; medians
over the rounds and their ratio to "none". Run it alone on the machine.
"""
import argparse, csv, io, os, shutil, signal, socket, statistics, subprocess, sys, tempfile, time

CONDITIONS = ("none", "floor", "sampler", "after", "memleak", "heaptrack")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Bench:
    def __init__(self, a):
        self.a = a
        self.build = os.path.abspath(a.build)
        self.je = os.path.join(self.build, "src/.libs/jeattach")
        self.env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(self.build, "lib/.libs"))
        self.work = tempfile.mkdtemp(prefix="sampler-cost-")
        self.res = {c: [] for c in CONDITIONS}
        self.not_run = {}
        self.je_out = []

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

    def window(self, cond):
        p, port = self.redis()
        tool = None
        try:
            if cond in ("floor", "sampler"):
                rate = 1 << 40 if cond == "floor" else 524288
                tool = self.sampler(p.pid, rate, 600)
                time.sleep(1.5)  # installed, threads settled
            elif cond == "after":
                t = self.sampler(p.pid, 524288, 2)
                out, err = t.communicate(timeout=60)
                if t.returncode:
                    raise SystemExit(f"jeattach --sample failed: {out} {err}")
            elif cond == "memleak":
                exe = shutil.which("memleak-bpfcc")
                if not exe:
                    self.not_run[cond] = "memleak-bpfcc not installed (bpfcc-tools)"
                    return
                tool = subprocess.Popen([exe, "-p", str(p.pid), "60"], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True)
                time.sleep(5)  # its probes compiled and attached
                if tool.poll() is not None:
                    err = tool.stderr.read().strip().splitlines() or ["exited"]
                    self.not_run[cond] = "memleak-bpfcc: " + err[-1][-200:]
                    return
            elif cond == "heaptrack":
                exe = shutil.which("heaptrack")
                if not exe:
                    self.not_run[cond] = "heaptrack not installed"
                    return
                tool = subprocess.Popen(["bash", exe, "-p", str(p.pid), "-o",
                                         os.path.join(self.work, "ht")], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True, start_new_session=True)
                time.sleep(5)
                if "libheaptrack_inject" not in open(f"/proc/{p.pid}/maps").read():
                    self.not_run[cond] = "heaptrack did not attach"
                    return
            self.res[cond].append(self.load(port))
        finally:
            if tool and tool.poll() is None:
                # jeattach: SIGINT ends its window early, and it still takes the
                # sampler out (the wait's Ctrl-C); the others stop on it too.
                os.kill(tool.pid, signal.SIGINT)
                try:
                    out, _ = tool.communicate(timeout=60)
                    if cond in ("floor", "sampler"):
                        self.je_out.append(out.splitlines()[-1] if out else "")
                except subprocess.TimeoutExpired:
                    os.killpg(tool.pid, signal.SIGKILL) if cond == "heaptrack" else tool.kill()
            p.terminate()
            p.wait(timeout=30)

    def run(self):
        for r in range(self.a.rounds):
            order = list(CONDITIONS[r % 4:4] + CONDITIONS[:r % 4]) + ["memleak", "heaptrack"]
            for cond in order:
                if cond in self.not_run:
                    continue
                self.window(cond)
                if self.res[cond]:
                    print(f"round {r + 1} {cond}: {self.res[cond][-1]}", file=sys.stderr)

    def report(self):
        print(f"{self.a.rounds} rounds, redis-benchmark -c 50 -t get,set -n {self.a.requests} "
              f"-d 256 on Debian's redis-server (no MALLOC_CONF); medians\n")
        print("| condition | rounds | requests/s | p50, ms | p99, ms | rps / none | p99 / none |")
        print("|---|---|---|---|---|---|---|")
        base = {k: statistics.median(x[k] for x in self.res["none"]) for k in ("rps", "p99_ms")}
        for c in CONDITIONS:
            rs = self.res[c]
            if not rs:
                print(f"| {c} | 0 | not run: {self.not_run.get(c, '')} | | | | |")
                continue
            m = {k: statistics.median(x[k] for x in rs) for k in ("rps", "p50_ms", "p99_ms")}
            print(f"| {c} | {len(rs)} | {m['rps']:.0f} | {m['p50_ms']:.3f} | {m['p99_ms']:.3f} | "
                  f"{m['rps'] / base['rps']:.2f} | {m['p99_ms'] / base['p99_ms']:.2f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("build")
    ap.add_argument("--requests", type=int, default=200000)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    b = Bench(a)
    try:
        b.run()
    finally:
        b.report()


if __name__ == "__main__":
    main()
