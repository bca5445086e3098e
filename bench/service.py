#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""What a service feels while it is profiled from outside.

bench/service.py BUILDDIR [--seconds S] [--rounds R] [--interval I]

Debian's redis-server with profiling active (MALLOC_CONF=prof:true,
prof_active:true,lg_prof_sample:19), filled with 100,000 keys of 256 B,
kept busy by redis-benchmark (10 connections, one thread, GET and SET,
looping), while bench/svc_client.c times every request of one more
connection (closed loop, GET of one 256-byte key) for S seconds under each
condition:

  none       no tool
  jeattach   `jeattach -p PID --dump F --force --json` and `--stats --json`
             alternating, one started every I seconds
  gdb        one `gdb -p PID -batch -nx -ex 'call (int)mallctl("prof.dump",
             0,0,0,0)'`, 1 s into the window
  heaptrack  `heaptrack -p PID` attached 0.5 s into the window, stopped with
             SIGINT (its documented stop) 2 s before the window ends

A round is one fresh redis-server and the four conditions (none, jeattach
and gdb in an order rotated round by round, heaptrack last: it leaves its
library loaded in the process); R rounds. The table gives the median over
the rounds of each window's figures and their ratios to "none".

Where gdb cannot write a thread's registers (gdb 13 on a CPU with AMX: the
kernel refuses its fixed-size XSAVE buffer, "Couldn't write extended state
status: Bad address"), gdb is given the process's own target description
without its AVX, AVX-512 and PKRU parts, so that it saves and restores the
registers through PTRACE_GETFPREGS/SETFPREGS; heaptrack, whose injection is
a gdb call, gets the same through a gdb wrapper first in its PATH. The
output says when this was done. A tool that cannot run is reported as not
run, with its error. A tool that leaves the service unable to answer (a
call that never returns: heaptrack_stop() run where the thread holds
heaptrack's own lock) is counted as a hung window, with where redis's main
thread waits; that window is left out of the percentiles and the round
goes on with a fresh redis-server.

Run it alone on the machine: every figure is a latency on 2 shared cores.
"""
import argparse, ctypes, json, os, re, shutil, signal, socket, statistics, subprocess, sys
import tempfile, time

import peers
from peers import HANG_S, stuck

KEY = "svc:key"
PROF = "prof:true,prof_active:true,lg_prof_sample:19"
GDB_CALL = 'call (int)mallctl("prof.dump",0,0,0,0)'
CONDITIONS = ("none", "jeattach", "gdb", "heaptrack")


def resp(*args):
    out = f"*{len(args)}\r\n"
    for a in args:
        a = str(a)
        out += f"${len(a.encode())}\r\n{a}\r\n"
    return out.encode()


def command(port, *args):
    """One redis command on its own connection; the reply's text."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(resp(*args))
        buf = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                raise RuntimeError(f"redis closed the connection on {args[0]}")
            buf += chunk
            if b"\r\n" not in buf:
                continue
            head, _, rest = buf.partition(b"\r\n")
            if head[:1] in (b"+", b"-", b":"):
                if head[:1] == b"-":
                    raise RuntimeError(head.decode())
                return head[1:].decode()
            n = int(head[1:])
            if n < 0:
                return None
            if len(rest) >= n + 2:
                return rest[:n].decode()


def info_stat(port, name):
    text = command(port, "INFO", "stats")
    return int(re.search(rf"^{name}:(\d+)", text, re.M).group(1))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def med(xs):
    return statistics.median(xs) if xs else float("nan")


class Bench:
    def __init__(self, build, a):
        self.build, self.a = build, a
        self.work = tempfile.mkdtemp(prefix="bench-service-")
        self.procs = []  # every process started, for the finally
        self.tool_env = peers.tool_env()  # gdb's and heaptrack's
        self.gdbx = peers.Gdb(self.work, self.tool_env)
        self.results = {c: [] for c in CONDITIONS}  # per window: svc_client's JSON + load
        self.hung = {c: [] for c in CONDITIONS}  # per window the service did not survive: why
        self.probed = False
        self.not_run = {}
        self.je_calls = []  # (action, hold_us_max, wall_us, held)
        self.gdb_walls, self.ht = [], []
        self.jemalloc = "?"

    def start(self, cmd, **kw):
        p = subprocess.Popen(cmd, **kw)
        self.procs.append(p)
        return p

    def cleanup(self):
        for p in reversed(self.procs):
            try:
                if getattr(p, "own_group", False):  # heaptrack: its interpreter too
                    os.killpg(p.pid, signal.SIGKILL)
                elif p.poll() is None:
                    p.kill()
            except ProcessLookupError:
                pass
            p.wait()
        # What the tools left behind when their parent exited became this
        # process's child (the subreaper, in main()): ended and reaped too.
        for pid in map(int, open(f"/proc/self/task/{os.getpid()}/children").read().split()):
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except (ProcessLookupError, ChildProcessError):
                pass
        shutil.rmtree(self.work, ignore_errors=True)

    # -- the service --------------------------------------------------------
    def redis(self, rnd):
        port = free_port()
        cwd = tempfile.mkdtemp(prefix=f"redis{rnd}-", dir=self.work)  # prof.dump's files land here
        p = self.start(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                        "--appendonly", "no", "--daemonize", "no"], cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=dict(os.environ, MALLOC_CONF=PROF))
        for _ in range(200):
            try:
                command(port, "PING")
                break
            except OSError:
                time.sleep(0.05)
        else:
            raise SystemExit("redis-server did not start")
        # A heap worth profiling: 100,000 keys of 256 B (the sampled stacks
        # of the dump come from these SETs).
        subprocess.run(["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-t", "set", "-n",
                        "200000", "-r", "100000", "-d", "256", "-q"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        command(port, "SET", KEY, "v" * 256)
        # The load: closed-loop too, 10 connections on one thread, so one of
        # the 2 cores is left to the measuring client and the tools.
        load = self.start(["redis-benchmark", "-h", "127.0.0.1", "-p", str(port), "-c", "10",
                           "--threads", "1", "-t", "get,set", "-n", "10000000", "-r", "100000",
                           "-d", "256", "-l", "-q"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1)  # its connections made
        return p, port, cwd, load

    def heaps(self, cwd):
        return {f for f in os.listdir(cwd) if re.match(r"jeprof\..*\.heap$", f)}

    # -- gdb: find the form that works here -------------------------------
    def gdb_setup(self, pid, cwd):
        before = self.heaps(cwd)  # a failed first call makes no profile
        try:
            return self.gdbx.setup(pid, GDB_CALL,
                                   lambda out: "$1 = 0" in out and self.heaps(cwd) - before)
        except subprocess.TimeoutExpired:
            raise SystemExit(f"gdb's first call did not return in {HANG_S} s; {stuck(pid)}")

    # -- the conditions: each runs while the client's window is open --------
    # Each returns None, or ("hung", why) when the tool left the service
    # unable to answer (its call never returned), or ("not run", why).
    def cond_none(self, pid, cwd, client):
        client.wait()

    def cond_jeattach(self, pid, cwd, client):
        je = os.path.join(self.build, "src/.libs/jeattach")
        env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(self.build, "lib/.libs"))
        end = time.monotonic() + self.a.seconds - 0.2  # the last call ends inside the window
        i = 0
        while time.monotonic() < end:
            t0 = time.monotonic()
            act = ["--dump", os.path.join(cwd, "je.heap"), "--force"] if i % 2 == 0 else ["--stats"]
            r = subprocess.run([je, "-p", str(pid)] + act + ["--json"], capture_output=True,
                               text=True, env=env, timeout=60)
            j = json.loads(r.stdout.splitlines()[-1]) if r.stdout.strip() else {"ok": False}
            if not j["ok"]:
                raise SystemExit(f"jeattach failed: {r.stdout} {r.stderr}")
            self.jemalloc = j["jemalloc"]["object"]
            held = [(h["tid"], h["comm"], h["state"]) for h in j.get("held", [])]
            self.je_calls.append((act[0][2:], j["hold_us_max"], j["wall_us"], held))
            i += 1
            time.sleep(max(0.0, t0 + self.a.interval - time.monotonic()))
        client.wait()

    def cond_gdb(self, pid, cwd, client):
        time.sleep(1)
        before = self.heaps(cwd)
        try:
            out, wall = self.gdbx.run(pid, GDB_CALL)
        except subprocess.TimeoutExpired:  # run() has killed gdb
            client.wait()
            return "hung", f"gdb's call did not return in {HANG_S} s; {stuck(pid)}"
        if "$1 = 0" not in out or not self.heaps(cwd) - before:
            raise SystemExit("gdb's prof.dump made no profile: " + out)
        self.gdb_walls.append(wall)
        client.wait()

    def cond_heaptrack(self, pid, cwd, client):
        time.sleep(0.5)
        ht = peers.Heaptrack(pid, os.path.join(cwd, "ht"), os.path.join(self.work, "heaptrack.log"),
                             self.tool_env, self.start)

        def end(status, why):  # heaptrack, its gdb and its interpreter go
            ht.kill()
            client.wait()
            return status, why

        bad = ht.attach()
        if bad:
            return end(*bad)
        time.sleep(max(0.0, self.a.seconds - 2.0 - (time.perf_counter() - ht.t0) - 0.5))
        bad = ht.stop()
        if bad:
            return end(*bad)
        inside = client.poll() is None
        self.ht.append((ht.attach_us, ht.stop_us, ht.size(), inside))
        client.wait()

    # -- the run -------------------------------------------------------------
    def window(self, cond, rnd, pid, port, cwd):
        """One window; True if the service is left hung."""
        client = self.start([self.client, str(port), str(self.a.seconds), KEY],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ops0 = info_stat(port, "total_commands_processed")
        t0 = time.monotonic()
        status, why = getattr(self, "cond_" + cond)(pid, cwd, client) or (None, None)
        out, err = client.communicate()
        if status == "not run":
            self.not_run[cond] = why
            return False
        if status == "hung" or client.returncode == 3:
            # svc_client gave up after 5 s without a reply: the window's
            # figures are left out, the hang is counted and said.
            self.hung[cond].append(why or f"no reply for {json.loads(out)['stalled_ms']} ms")
            print(f"round {rnd + 1} {cond}: service hung: {self.hung[cond][-1]}", file=sys.stderr)
            return True
        if client.returncode != 0:
            raise SystemExit(f"svc_client failed: {err}")
        j = json.loads(out)
        j["load_kops"] = (info_stat(port, "total_commands_processed") - ops0) / \
            (time.monotonic() - t0) / 1000
        self.results[cond].append(j)
        print(f"round {rnd + 1} {cond}: {out.strip()} load {j['load_kops']:.1f} kops/s",
              file=sys.stderr)
        return False

    def run(self):
        self.client = os.path.join(self.work, "svc_client")
        src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "svc_client.c")
        subprocess.run(["cc", "-O2", "-o", self.client, src], check=True)
        for rnd in range(self.a.rounds):
            k = rnd % 3
            order = ["none", "jeattach", "gdb"][k:] + ["none", "jeattach", "gdb"][:k] + ["heaptrack"]
            svc = None
            for cond in order:
                if svc is None:  # a fresh one each round, and after a hang
                    svc = self.redis(rnd)
                    if not self.probed:  # outside any window: the probe stops it too
                        self.probed = True
                        why = self.gdb_setup(svc[0].pid, svc[2])
                        if why:
                            self.not_run["gdb"] = self.not_run["heaptrack"] = why
                        elif not shutil.which("heaptrack"):
                            self.not_run["heaptrack"] = "heaptrack not installed"
                if cond in self.not_run:
                    continue
                redis, port, cwd, load = svc
                if self.window(cond, rnd, redis.pid, port, cwd):
                    self.stop(svc)
                    svc = None
            if svc:
                if svc[3].poll() is not None or svc[0].poll() is not None:
                    raise SystemExit("redis-server or its load stopped during the round")
                self.stop(svc)

    def stop(self, svc):
        redis, _, _, load = svc
        for p in (load, redis):
            peers.end(p, 10)

    def report(self):
        print(f"\nRun: {peers.machine()}, {time.strftime('%Y-%m-%d %H:%M')}, "
              f"load average before {self.load_before}")
        print(f"jemalloc: {self.jemalloc}; {versions()}")
        print(f"{self.a.rounds} rounds of {self.a.seconds} s windows; medians over the rounds "
              f"(lowest-highest round) of the windows the service answered throughout; "
              f"load: redis-benchmark's and the client's commands per second in the window\n")
        cols = ("p50_us", "p99_us", "p999_us", "max_us")
        print("| condition | windows | hung | requests | p50, us | p99, us | p99.9, us | max, us "
              "| load, kops/s | p50 / none | p99 / none | p99.9 / none | max / none |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        base = {c: med([r[c] for r in self.results["none"]]) for c in cols}
        for cond in CONDITIONS:
            rs = self.results[cond]
            if not rs:
                why = "hung" if self.hung[cond] else "not run"
                print(f"| {cond} | 0 | {len(self.hung[cond])} | {why} | | | | | | | | | |")
                continue
            m = {c: med([r[c] for r in rs]) for c in cols}
            # median (lowest-highest round): the spread says what a ratio is worth
            cells = " | ".join(f"{m[c]:.0f} ({min(r[c] for r in rs):.0f}-{max(r[c] for r in rs):.0f})"
                               for c in cols)
            cnt = med([r["count"] for r in rs])
            kops = med([r["load_kops"] for r in rs])
            ratios = " | ".join(f"{m[c] / base[c]:.2f}" if base[c] else "-" for c in cols)
            print(f"| {cond} | {len(rs)} | {len(self.hung[cond])} | {cnt:.0f} | {cells} | {kops:.1f} "
                  f"| {ratios} |")
        print()
        if self.je_calls:
            for act in ("dump", "stats"):
                hs = [h for a, h, _, _ in self.je_calls if a == act]
                ws = [w for a, _, w, _ in self.je_calls if a == act]
                if hs:
                    print(f"- jeattach --{act}: {len(hs)} calls, one every {self.a.interval} s; "
                          f"hold (hold_us_max) median {med(hs):.0f} us, max {max(hs)}; "
                          f"wall median {med(ws) / 1000:.1f} ms")
            held = {}
            for _, _, _, hl in self.je_calls:
                for _, comm, state in hl:
                    held[(comm, state)] = held.get((comm, state), 0) + 1
            print("- threads jeattach held: " + ", ".join(
                f"{comm} ({state}) {n}" for (comm, state), n in sorted(held.items(), key=lambda x: -x[1])))
        if self.gdb_walls:
            w = self.gdb_walls
            print(f"- gdb: {len(w)} calls, wall median {med(w) / 1000:.0f} ms "
                  f"(min {min(w) / 1000:.0f}, max {max(w) / 1000:.0f})")
        if self.gdbx.note:
            print(f"- gdb as installed failed here (\"{self.gdbx.note}\"); gdb and heaptrack's "
                  f"gdb ran with a target description without AVX, AVX-512 and PKRU")
        if self.ht:
            print(f"- heaptrack -p: attach median {med([x[0] for x in self.ht]) / 1000:.0f} ms, "
                  f"stop (SIGINT until it exited) median {med([x[1] for x in self.ht]) / 1000:.0f} ms, "
                  f"data median {med([x[2] for x in self.ht]) / 1024:.0f} KiB; stop done inside the "
                  f"window {sum(x[3] for x in self.ht)} of {len(self.ht)}")
        for cond in CONDITIONS:
            for why in self.hung[cond]:
                print(f"- {cond}: the service hung: {why}")
        for cond, why in self.not_run.items():
            print(f"- {cond}: not run: {why}")


def versions():
    out = []
    for cmd in (["gdb", "--version"], ["heaptrack", "--version"]):
        if shutil.which(cmd[0]):
            out.append(subprocess.run(cmd, capture_output=True, text=True).stdout.splitlines()[0])
    return ", ".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("build")
    ap.add_argument("--seconds", type=float, default=8)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--interval", type=float, default=0.5, help="seconds between jeattach starts")
    a = ap.parse_args()
    if a.seconds < 5:
        raise SystemExit("--seconds: at least 5 (heaptrack's attach and stop must fit a window)")
    for tool in ("redis-server", "redis-benchmark", "cc"):
        if not shutil.which(tool):
            raise SystemExit(f"{tool} not found")
    # SIGTERM and SIGHUP end the run through the finally below, as ^C does.
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, lambda n, _: sys.exit(f"stopped by {signal.Signals(n).name}"))
    # A subreaper: what the tools leave behind when their parent exits
    # becomes this process's child, for cleanup() to end (prctl 36 is
    # PR_SET_CHILD_SUBREAPER).
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    b = Bench(os.path.abspath(a.build), a)
    b.load_before = open("/proc/loadavg").read().split()[0]
    try:
        b.run()
        b.report()
    finally:
        b.cleanup()


if __name__ == "__main__":
    main()
