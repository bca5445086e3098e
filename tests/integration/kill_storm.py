# SPDX-License-Identifier: BSD-2-Clause
# kill_storm.py JEATTACH PID TRIALS WALL_US ARGS...: run jeattach -p PID
# ARGS (e.g. --status --dump FILE --force) TRIALS times and SIGKILL it at an instant drawn uniformly from 0 to
# three times a whole run's wall time (attach, calls, dump, release); after
# each kill the victim must be alive with no thread left stopped. Python
# times the kills: a shell's sleep is too coarse for a run of a few
# milliseconds. Shared by t_kill.sh and t_pac.sh.
import os, random, subprocess, sys, time
jeattach, pid, trials, wall_us = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
cmd = [jeattach, "-p", str(pid)] + sys.argv[5:] + ["--timeout", "10"]
# The wall time of a whole run as seen from here: jeattach's own wall_us
# leaves out its start (a libtool wrapper, the dynamic linker), and kills
# drawn from that alone would mostly land before any thread is held.
t0 = time.monotonic()
subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall_us = max(wall_us, int((time.monotonic() - t0) * 1e6))
for i in range(trials):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    delay = random.uniform(0, 3 * wall_us / 1e6)
    time.sleep(delay)
    p.kill()
    p.wait()
    state = open(f"/proc/{pid}/status").read().split("State:")[1].split()[0]
    if state in ("Z", "X"):
        sys.exit(f"the victim died after kill {i} (at {delay * 1e6:.0f} us)")
    time.sleep(0.02)
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            st = open(f"/proc/{pid}/task/{tid}/status").read().split("State:")[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):  # the thread exited meanwhile
            continue
        if st in ("T", "t"):
            sys.exit(f"thread {tid} left stopped after kill {i} (at {delay * 1e6:.0f} us)")
