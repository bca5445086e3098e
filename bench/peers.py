# SPDX-License-Identifier: BSD-2-Clause
"""The peers jeattach is measured against, made to run on this machine.

Shared by bench/service.py and bench/sampler_cost.py:

  Gdb        gdb's inferior call, with the workaround gdb 13 needs on a CPU
             with AMX (a target description without AVX), and a gdb
             wrapper carrying it for heaptrack
  Heaptrack  `heaptrack -p PID`: attach, check, stop with SIGINT, hangs
  Memleak    bcc's `memleak-bpfcc -p PID` on the allocator the process
             really calls, compiled against Debian's linux-headers
  stuck()    where a hung process's main thread waits
"""
import glob, os, platform, re, shutil, signal, subprocess, time

HANG_S = 20  # a tool's call not back by then has deadlocked the service


def tool_env():
    # gdb would ask debuginfod servers for every library (heaptrack's
    # script unsets it too): no network, no such wait in a window.
    return {k: v for k, v in os.environ.items() if k != "DEBUGINFOD_URLS"}


def machine():
    """The machine and the redis-server a run measured, for its report."""
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "?")
    redis = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout
    v = re.search(r"v=(\S+).*malloc=(\S+)", redis)
    return (f"{platform.node()}: {os.cpu_count()} cores, {cpu}, Linux {platform.release()}, "
            + (f"redis-server {v.group(1)} ({v.group(2)})" if v else "redis-server ?"))


def end(p, timeout):
    """SIGTERM, then SIGKILL after timeout seconds: a hung redis cannot
    act on SIGTERM."""
    p.terminate()
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def stuck(pid, who="redis"):
    """Where who's main thread waits, from /proc (no debugger: the thread
    may still be traced): the futex's mapping names whose lock."""
    try:
        sc = open(f"/proc/{pid}/task/{pid}/syscall").read().split()
        if sc[0] != "202":
            return f"{who}'s main thread: /proc syscall line {' '.join(sc[:2])}"
        addr = int(sc[1], 16)
        for line in open(f"/proc/{pid}/maps"):
            f = line.split()
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            if lo <= addr < hi:
                where = os.path.basename(f[5]) if len(f) > 5 else "anonymous memory"
                return f"{who}'s main thread waits on a futex at {addr:#x}, in {where}"
        return f"{who}'s main thread waits on a futex at {addr:#x}"
    except OSError as e:
        return f"{who}: {e}"


class Gdb:
    """gdb -p PID -batch, in the form that can make an inferior call here."""

    def __init__(self, work, env):
        self.work, self.env = work, env  # env: gets the wrapper's PATH
        self.opts = []  # ["-iex", "set tdesc filename ..."] where needed
        self.note = None  # gdb's own error, when the workaround was needed

    def run(self, pid, cmd, opts=None):
        """gdb's output and wall time in us; TimeoutExpired after HANG_S."""
        t0 = time.perf_counter()
        r = subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx"] +
                           (self.opts if opts is None else opts) + ["-ex", cmd],
                           capture_output=True, text=True, timeout=HANG_S, env=self.env)
        return r.stdout + r.stderr, (time.perf_counter() - t0) * 1e6

    def setup(self, pid, cmd, ok):
        """None once gdb's call cmd works in pid (ok(output) says whether it
        did), as installed or without AVX; else why not."""
        if not shutil.which("gdb"):
            return "gdb not installed"
        out, _ = self.run(pid, cmd, [])
        if ok(out):
            return None
        err = re.search(r"Couldn't write extended state status: [^\n]*", out)
        if not err:
            return "gdb's call failed: " + " | ".join(out.strip().splitlines()[-3:])
        # gdb 13 sends PTRACE_SETREGSET a fixed-size XSAVE area; with AMX the
        # kernel wants its own, larger size and says EFAULT. Without the AVX
        # parts in its target description gdb uses the x87/SSE requests.
        # It then no longer restores the upper halves of the vector
        # registers: a risk to the target that gdb as shipped does not take
        # (elsewhere), accepted here to time gdb's stop, which it leaves alike.
        xml, _ = self.run(pid, "maint print xml-tdesc", [])
        xml = xml[xml.find("<?xml"):xml.find("</target>") + len("</target>")]
        xml = re.sub(r'\s*<feature name="org\.gnu\.gdb\.i386\.(avx|avx512|pkeys)">.*?</feature>',
                     "", xml, flags=re.S)
        path = os.path.join(self.work, "gdb-sse.xml")
        with open(path, "w") as f:
            f.write(xml + "\n")
        opts = ["-iex", f"set tdesc filename {path}"]
        out, _ = self.run(pid, cmd, opts)
        if not ok(out):
            return f"gdb: {err.group(0)}; without AVX in its description: " + \
                " | ".join(out.strip().splitlines()[-3:])
        self.opts, self.note = opts, err.group(0)
        # heaptrack's injection and stop are gdb calls: the same form for
        # them, through a gdb first in their PATH.
        bindir = os.path.join(self.work, "bin")
        os.makedirs(bindir, exist_ok=True)
        wrapper = os.path.join(bindir, "gdb")
        with open(wrapper, "w") as f:
            f.write(f'#!/bin/sh\nexec {shutil.which("gdb")} -iex "set tdesc filename {path}" "$@"\n')
        os.chmod(wrapper, 0o755)
        self.env["PATH"] = bindir + ":" + os.environ["PATH"]
        return None


class Heaptrack:
    """heaptrack -o OUT -p PID, stopped by SIGINT as in its terminal."""

    def __init__(self, pid, out, log, env, start=subprocess.Popen):
        self.pid, self.out, self.log = pid, out, log
        self.attach_us = self.stop_us = None
        # bash, not /bin/sh: heaptrack stops at SIGINT through its script's
        # EXIT trap (gdb calls heaptrack_stop), and dash, Debian's sh, exits on
        # SIGINT without running that trap (the hooks would stay, writing into
        # a pipe no one reads).
        self.t0 = time.perf_counter()
        with open(log, "w") as f:
            self.p = start(["bash", shutil.which("heaptrack"), "-o", out, "-p", str(pid)],
                           cwd=os.path.dirname(out), stdout=f, stderr=subprocess.STDOUT,
                           env=env, start_new_session=True)
        self.p.own_group = True  # for a cleanup: its gdb and interpreter too

    def tail(self):
        return " | ".join(open(self.log).read().strip().splitlines()[-3:])

    def attach(self):
        """None once attached; ("hung", why) or ("not run", why)."""
        while "injection finished" not in open(self.log).read() and self.p.poll() is None:
            if time.perf_counter() - self.t0 > HANG_S:
                return "hung", f"heaptrack's injection did not end in {HANG_S} s; {stuck(self.pid)}"
            time.sleep(0.01)
        self.attach_us = (time.perf_counter() - self.t0) * 1e6
        if "libheaptrack_inject" not in open(f"/proc/{self.pid}/maps").read():
            return "not run", "heaptrack did not attach: " + self.tail()
        return None

    def stop(self):
        """None once heaptrack exited; ("hung", why) if its stop did not end."""
        t1 = time.perf_counter()
        os.killpg(self.p.pid, signal.SIGINT)  # ^C, as in its terminal
        try:
            self.p.wait(timeout=HANG_S)
        except subprocess.TimeoutExpired:
            return "hung", f"heaptrack's stop did not end in {HANG_S} s; {stuck(self.pid)}"
        self.stop_us = (time.perf_counter() - t1) * 1e6
        return None

    def size(self):
        d, base = os.path.split(self.out)
        return sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.startswith(base))

    def kill(self):  # heaptrack, its gdb and its interpreter go
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.p.wait()


def allocator(pid):
    """The object whose malloc the process calls: a libjemalloc (or other
    malloc library) it maps, else its own executable (static allocator)."""
    for line in open(f"/proc/{pid}/maps"):
        f = line.split()
        if len(f) > 5 and re.match(r"lib(jemalloc|tcmalloc|mimalloc)", os.path.basename(f[5])):
            return f[5]
    return os.path.realpath(f"/proc/{pid}/exe")


def overlay(dst, *srcs):
    """dst: the trees srcs merged as symlinks, later ones winning; only the
    directories present in more than one are made, the rest are links."""
    os.makedirs(dst)
    names = {}
    for s in srcs:
        for n in os.listdir(s):
            names.setdefault(n, []).append(os.path.join(s, n))
    for n, ps in names.items():
        dirs = [p for p in ps if os.path.isdir(p) and not os.path.islink(p)]
        if len(dirs) > 1:
            overlay(os.path.join(dst, n), *dirs)
        else:
            os.symlink(ps[-1], os.path.join(dst, n))


class Memleak:
    """bcc's memleak-bpfcc -p PID -O ALLOCATOR (Debian's bpfcc-tools).

    Two things stop it as installed on a machine whose kernel has no
    headers package (/lib/modules/$(uname -r) absent) and a service that
    calls jemalloc's malloc:
    - bcc compiles memleak's BPF program with clang against kernel headers,
      found in /lib/modules/$(uname -r)/build or in $BCC_KERNEL_SOURCE. The
      program needs only uapi headers and struct pt_regs, which have not
      changed since: any Debian linux-headers package serves. bcc wants one
      tree (./include/linux/kconfig.h and the generated headers side by
      side), Debian splits it in two (-common and the flavour's generated
      files): bcc gets the two merged as a tree of symlinks in the work
      directory, through BCC_KERNEL_SOURCE. Nothing on the system changes.
    - memleak probes libc's malloc by default, which a process linked with
      libjemalloc never calls: -O names the object it does call. Debian's
      memleak (bcc 0.26) then fails on "could not determine address of
      symbol mmap" (jemalloc exports no mmap or munmap); later bcc made
      those two probes optional ("failed on jemalloc"). A copy of Debian's
      script with that change, and nothing else, is what runs.
    """

    EXE = "/usr/sbin/memleak-bpfcc"

    @classmethod
    def prepare(cls, work):
        """(env, argv prefix) to run memleak with, or a string: why it cannot."""
        if not os.path.exists(cls.EXE):
            return "memleak-bpfcc not installed (bpfcc-tools)"
        flavours = [d for d in sorted(glob.glob("/usr/src/linux-headers-*"))
                    if os.path.exists(os.path.join(d, "include/generated/autoconf.h"))]
        if not flavours:
            return "no linux-headers package (scripts/install-deps.sh --bench installs one)"
        flavour = flavours[-1]
        # The flavour's Makefile is one line: include .../linux-headers-V-common/Makefile
        m = re.search(r"include\s+(\S+)/Makefile", open(os.path.join(flavour, "Makefile")).read())
        if not m:
            return f"{flavour}/Makefile does not name its -common tree"
        tree = os.path.join(work, "kernel-headers")
        overlay(tree, m.group(1), flavour)
        src = open(cls.EXE).read()
        fixes = {'        attach_probes("mmap")\n': '        attach_probes("mmap", can_fail=True)\n',
                 '        bpf.attach_uprobe(name=obj, sym="munmap", fn_name="munmap_enter",\n'
                 '                                  pid=pid)\n':
                 '        try:\n'
                 '                bpf.attach_uprobe(name=obj, sym="munmap", fn_name="munmap_enter",\n'
                 '                                  pid=pid)\n'
                 '        except Exception:\n'
                 '                pass\n'}
        for old, new in fixes.items():
            if src.count(old) != 1:
                return f"{cls.EXE} is not the script this bench knows how to change (bcc 0.26)"
            src = src.replace(old, new)
        script = os.path.join(work, "memleak-jemalloc")
        with open(script, "w") as f:
            f.write(src)
        python = src.splitlines()[0][2:].strip()  # its own interpreter (bcc's module is there)
        # -u: its report reaches the log as it is printed, for report().
        return dict(os.environ, BCC_KERNEL_SOURCE=tree), [python, "-u", script]

    def __init__(self, prepared, pid, log, interval=5, start=subprocess.Popen):
        env, argv = prepared
        self.pid, self.log = pid, log
        self.obj = allocator(pid)
        self.exe = os.path.basename(os.path.realpath(f"/proc/{pid}/exe"))
        self.t0 = time.perf_counter()
        with open(log, "w") as f:
            self.p = start(argv + ["-p", str(pid), "-O", self.obj, str(interval)], env=env,
                           stdout=f, stderr=subprocess.STDOUT)
        self.attach_us = None

    def tail(self):
        return " | ".join(open(self.log).read().strip().splitlines()[-3:])

    def probes(self):
        """How many perf events (one per uprobe) memleak holds."""
        n = 0
        for fd in os.listdir(f"/proc/{self.p.pid}/fd"):
            try:
                n += os.readlink(f"/proc/{self.p.pid}/fd/{fd}") == "anon_inode:[perf_event]"
            except OSError:
                pass
        return n

    def attach(self, timeout=120):
        """None once its probes are in; else why not. It prints "Attaching"
        after compiling, then attaches each probe: done when the count of
        its perf events has stopped growing."""
        last, since = -1, time.monotonic()
        while time.perf_counter() - self.t0 < timeout:
            if self.p.poll() is not None:
                return "memleak-bpfcc exited: " + self.tail()
            if "Attaching to pid" in open(self.log).read():
                n = self.probes()
                if n != last:
                    last, since = n, time.monotonic()
                elif n >= 3 and time.monotonic() - since > 0.5:  # malloc, its return, free at least
                    self.attach_us = (time.perf_counter() - self.t0) * 1e6
                    self.nprobes = n
                    return None
            time.sleep(0.05)
        return f"memleak-bpfcc not attached after {timeout} s: " + self.tail()

    def wait_report(self, timeout):
        """Until memleak has printed a report (one per interval)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and "allocations from stack" not in open(self.log).read():
            time.sleep(0.1)

    def stop(self):
        """SIGINT: its own Ctrl-C (bcc detaches the probes on exit)."""
        self.p.send_signal(signal.SIGINT)
        try:
            self.p.wait(timeout=HANG_S)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()

    def found(self):
        """Proof that it saw the service's allocations: (allocations, bytes,
        a frame in the service's binary) of its largest stack, or None."""
        best = None
        for block in re.findall(r"(\d+) bytes in (\d+) allocations from stack\n((?:\t\t[^\n]*\n?)*)",
                                open(self.log).read()):
            size, n, frames = int(block[0]), int(block[1]), block[2]
            frame = next((l.strip() for l in frames.splitlines() if f"[{self.exe}]" in l), None)
            if n > 0 and frame and (best is None or size > best[1]):
                best = (n, size, frame)
        return best
