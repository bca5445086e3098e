# SPDX-License-Identifier: BSD-2-Clause
# kill_in_hold.py JEATTACH PID TRIALS ARGS...: run jeattach -v -p PID ARGS
# TRIALS times and SIGKILL it inside its hold: when -v says "holding
# thread", after a delay drawn from 0 to 1.5 ms (a --tid hold of a
# sleeper lasts about a millisecond: kill_storm.py's instants, spread over
# the whole run and its watch, almost never land in it). After each kill
# the victim must be alive with no thread left stopped. Prints how many
# kills came before "released".
import os, random, subprocess, sys, time
jeattach, pid, trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cmd = [jeattach, "-v", "-p", str(pid)] + sys.argv[4:] + ["--timeout", "10"]
inside = 0
for i in range(trials):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    held = False
    for line in p.stderr:
        if "holding thread" in line:
            held = True
            break
    delay = random.uniform(0, 0.0015)
    if held:
        time.sleep(delay)
    p.kill()
    rest = p.stderr.read()
    p.wait()
    if held and "released" not in rest:
        inside += 1
    time.sleep(0.02)
    try:
        state = open(f"/proc/{pid}/status").read().split("State:")[1].split()[0]
        tids = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError):
        state, tids = "X", []
    if state in ("Z", "X"):
        sys.exit(f"the victim died after kill {i} (at {delay * 1e6:.0f} us into the hold)")
    for tid in tids:
        try:
            st = open(f"/proc/{pid}/task/{tid}/status").read().split("State:")[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            continue
        if st in ("T", "t"):
            sys.exit(f"thread {tid} left stopped after kill {i} (at {delay * 1e6:.0f} us into the hold)")
    time.sleep(0.05)
print(f"{inside} of {trials} kills before the release")
