#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --sample on processes never set up for profiling (an empty MALLOC_CONF:
# opt.prof off; Debian's jemalloc 5.3.0): a profile that jeheap reads and
# that names the leaking site; what stays in the target is the two named
# pages and nothing else; the hooks are taken out (jemalloc has four
# slots: five runs in a row would fail at the fifth otherwise); a process
# that forks children throughout is unharmed, and so are they; a process
# with prof:true is sampled the same way, its own profiling untouched.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

NOPROF="MALLOC_CONF="
# sampler_state PID: "on removing" of each sampler's page 0 in the victim,
# a line each
# (found by its magic, "JESAMPL2"), read through /proc/PID/mem.
sampler_state() {
	python3 - "$1" <<'PY'
import struct, sys
pid = sys.argv[1]
with open(f"/proc/{pid}/maps") as m, open(f"/proc/{pid}/mem", "rb", 0) as mem:
    for line in m:
        lo = int(line.split("-")[0], 16)
        if not line.split()[1].startswith("rw") or line.split()[-1].startswith("["):
            continue
        try:
            mem.seek(lo)
            head = mem.read(16)
        except OSError:
            continue
        if head[:8] == b"JESAMPL2":
            on, removing = struct.unpack("<II", head[8:16])
            print(on, removing)
PY
}
start_victim_env v "$NOPROF" "$TARGETS/victim_leak" "$WORK/truth.log"
expect_rc 0 "$JEATTACH" -p "$v" --status --json
printf '%s' "$OUT" | grep -q '"opt.prof": *false\|"opt_prof": *false\|"prof": *false' ||
	fail "the victim has profiling on: $OUT"
# A mean of 64 KiB between samples: the leak's 1.9 MB in the window give
# about 30 samples (at the default 512 KiB, 4: none at all 2% of the time).
expect_rc 0 "$JEATTACH" -p "$v" --sample --sample-rate 65536 --for 3s --dump "$WORK/s.heap" --json
printf '%s\n' "$OUT" | tail -1 >"$WORK/run.json"
python3 - "$WORK/run.json" <<'PY' || fail "sample run: $OUT"
import json, sys
j = json.load(open(sys.argv[1]))
steps = {s["action"]: s for s in j["actions"]}
end = steps["sample_end"]
assert end["samples"] > 0 and 0 < end["live"] <= end["samples"], end
assert end["dropped_ring_full"] == 0 and end["refused"] == 0, end
assert end["left_in_target_bytes"] <= 3 * 4096, end
PY
head -1 "$WORK/s.heap" | grep -qx 'heap_v2/65536' || fail "not a heap_v2 profile: $(head -2 "$WORK/s.heap")"
grep -q '^MAPPED_LIBRARIES:' "$WORK/s.heap" || fail "no MAPPED_LIBRARIES"
grep -q '^# jeattach build-id ' "$WORK/s.heap" || fail "no build-id stamps"
[ "$(tail -1 "$WORK/s.heap")" = "# jeattach source sampler" ] || fail "not marked as the sampler's"
expect_rc 0 "$JEHEAP" top "$WORK/s.heap"
printf '%s\n' "$OUT" | grep -q 'tr_leak_site' || fail "the leaking site is not in the profile: $OUT"
pass "a profile of a process without prof:true names its leaking site"

# jemalloc's own reader takes it as a prof.dump's (jeprof, Debian's
# libjemalloc-dev), heap_v2's sampling law applied.
if command -v jeprof >/dev/null; then
	expect_rc 0 jeprof --text "$TARGETS/victim_leak" "$WORK/s.heap"
	printf '%s\n' "$OUT" | grep -q 'tr_leak_site' || fail "jeprof: $OUT"
	pass "jeprof reads the sampler's profile"
fi

# What stays: the page the gate lives in and the code, at the address
# reported; the rest of the sampler's mapping is gone.
python3 - "$WORK/run.json" "/proc/$v/maps" "/proc/$v/mem" <<'PY' || fail "what stays in the target: $(cat "/proc/$v/maps")"
import json, sys
acts = {a["action"]: a for a in json.load(open(sys.argv[1]))["actions"]}
base, left = acts["sample_end"]["left_at"], acts["sample_end"]["left_in_target_bytes"]
assert acts["sample_begin"]["mapping"] == base
maps = []
for line in open(sys.argv[2]):
    lo, hi = (int(x, 16) for x in line.split()[0].split("-"))
    maps.append((lo, hi, line.split()[1]))
# [base, base + left): page 0 (rw) and the code (r-x), wholly mapped.
covered = sum(min(hi, base + left) - max(lo, base) for lo, hi, _ in maps
              if lo < base + left and hi > base)
assert covered == left, (covered, left)
perms = [p for lo, hi, p in maps if lo < base + left and hi > base]
assert perms == ["rw-p", "r-xp"], perms
# The rest of what was made, unmapped: its first page (struct sampler_ctl,
# magic "JESAMCT1") begins no mapping any more. The range itself may hold
# the process's own mappings by now.
starts = ctls = 0
with open(sys.argv[3], "rb", 0) as mem:
    for lo, hi, p in maps:
        if not p.startswith("rw"):
            continue
        try:
            mem.seek(lo)
            head = mem.read(8)
            starts += head == b"JESAMPL2"
            ctls += head == b"JESAMCT1"
        except OSError:
            pass
assert starts == 1 and ctls == 0, f"{starts} sampler page 0s, {ctls} sampler rests"
PY
pass "what stays in the target is the gate page and the code, as reported"

# A window that kept nothing: jeheap says why in the sampler's terms.
expect_rc 0 "$JEATTACH" -p "$v" --sample --sample-rate 1099511627776 --for 200ms --dump "$WORK/e.heap"
expect_rc 0 "$JEHEAP" top "$WORK/e.heap"
printf '%s\n' "$ERR" | grep -q 'no object the sampler sampled .* smaller --sample-rate' ||
	fail "the empty profile's note: $ERR"
pass "an empty sampler profile: the note names --sample-rate"

# A process that allocates faster than the ring is read (a sample every
# KiB from two busy threads): the samples dropped are counted and the
# profile is said to read low, with what to do.
start_victim_env fr "$NOPROF" "$TARGETS/victim_dyn" -b 2
expect_rc 0 "$JEATTACH" -p "$fr" --sample --sample-rate 1024 --for 1s --dump "$WORK/fr.heap" --json
printf '%s\n' "$OUT" | tail -1 | python3 -c '
import json, sys
e = [a for a in json.load(sys.stdin)["actions"] if a["action"] == "sample_end"][0]
assert e["dropped_ring_full"] > 0, e
w = " ".join(e.get("warnings", []))
assert "samples were dropped" in w and "--sample-rate" in w, e
' || fail "a full ring, not said: $OUT"
finish_victim fr
pass "a ring that filled between reads: the drop is counted and said"

# Taken out each time: jemalloc installs at most four hooks (HOOK_MAX).
for i in 1 2 3 4 5; do
	expect_rc 0 "$JEATTACH" -p "$v" --sample --for 200ms --dump "$WORK/r$i.heap" --json
	printf '%s\n' "$OUT" | tail -1 | grep -q '"reused_kept_pages":true' ||
		fail "run $i did not reuse the kept pages: $OUT"
done
[ "$(sampler_state "$v" | wc -l)" = 1 ] || fail "more than one sampler's pages: $(sampler_state "$v")"
pass "five windows in a row: each run's hooks were removed, each reused the two kept pages"
finish_victim v

# jemalloc 5.2.0-5.3.x leave every thread's tsd in its "recompute" state
# when hooks are installed or removed (tsd_force_recompute), and a thread
# that exits in that state is never cleaned up (tsd_cleanup has no case
# for it): it stays in jemalloc's list of threads while its memory is
# reused, and a later thread's exit crashes. Each thread is settled after
# each hold. Here the threads jeattach borrowed (idle ones, which got a
# tsd from its mallctls) exit at the report without allocating: before
# the settling, 5 of 12 such runs ended in SIGSEGV in tsd_state_set; 8 in
# a row pass by chance less than 2% of the time.
for n in 1 2 3 4 5 6 7 8; do # (lib.sh's helpers use $i)
	start_victim_env "x$n" "$NOPROF" "$TARGETS/victim_dyn" -b 2
	eval "xp=\$x$n"
	expect_rc 0 "$JEATTACH" -p "$xp" --sample --for 200ms --dump "$WORK/x$n.heap" --json
	printf '%s\n' "$OUT" | tail -1 | python3 -c '
import json, sys
acts = {a["action"]: a for a in json.load(sys.stdin)["actions"]}
for k in ("sample_begin", "sample_end"):
    # every thread tried; one slow to stop on a loaded machine is missed
    assert acts[k]["threads_settled"] + acts[k]["threads_missed"] >= 8, acts[k]
    assert acts[k]["threads_settled"] >= 6, acts[k]
' || fail "threads not settled: $OUT"
	sleep 0.3
	finish_victim "x$n"
done
pass "threads that exit right after the window: jemalloc's thread list intact"

# 1,000 threads: each is held once after the install and once after the
# removal (the settle pass), and all of them exit at the report right
# after, without allocating: jemalloc's thread list stays intact at that
# scale, and the pass's figures are reported.
start_victim_env th "$NOPROF" "$TARGETS/victim_dyn" -b 2 -i 1000
expect_rc 0 "$JEATTACH" -p "$th" --sample --for 1s --dump "$WORK/th.heap" --json
printf '%s\n' "$OUT" | tail -1 | python3 -c '
import json, sys
j = json.load(sys.stdin)
acts = {a["action"]: a for a in j["actions"]}
for k in ("sample_begin", "sample_end"):
    a = acts[k]
    assert a["threads_settled"] + a["threads_missed"] >= 1002, a
    assert a["threads_settled"] >= 990, a
    print(k, "settled", a["threads_settled"], "missed", a["threads_missed"],
          "pass_us", a["pass_us"], "hold median/max us", a["pass_hold_us_median"], a["pass_hold_us_max"])
print("wall_us", j["wall_us"])
' >"$WORK/th.out" || fail "1,000 threads: $OUT"
finish_victim th
pass "1,000 threads settled twice, all exiting after: $(tr '\n' ';' <"$WORK/th.out")"

# During the window: threads created and joined without pause (new
# threads take dead ones' places in the sampler's table), and a thread
# whose allocations are all made in a signal handler (SIGRTMIN+2 every
# 200 us, about 40 MB/s: a mean of 64 KiB keeps the ring from
# overflowing, which with a busy thread beside it at 4 KiB dropped 98% of
# the samples and left the handler's out by chance): the handler's site
# is first, unwound through the signal frame to the nanosleep it
# interrupted, and the victim's own checks are clean.
start_victim_env ch "$NOPROF" "$TARGETS/victim_dyn" -b 0 -c -S
expect_rc 0 "$JEATTACH" -p "$ch" --sample --sample-rate 65536 --for 2s --dump "$WORK/ch.heap" --json
printf '%s\n' "$OUT" | tail -1 | python3 -c '
import json, sys
e = [a for a in json.load(sys.stdin)["actions"] if a["action"] == "sample_end"][0]
assert e["live"] > 0 and e["dropped_ring_full"] == 0, e
' || fail "signal handler: $OUT"
expect_rc 0 "$JEHEAP" top "$WORK/ch.heap"
printf '%s\n' "$OUT" | sed -n 2p | grep -q 'on_sigalloc' || fail "the signal handler's allocations are not first: $OUT"
printf '%s\n' "$OUT" | grep -q 'nanosleep' || fail "not unwound through the signal frame: $OUT"
finish_victim ch
grep -q "sigallocs=[1-9]" "$WORK/ch.out" || fail "no signal handler ran: $(cat "$WORK/ch.out")"
pass "thread churn and allocations in a signal handler during the window: profiled, victim unharmed"

# The process replaces its program during the window (execve from a
# thread, once the sampler is in): nothing of the sampler's is written
# into the new program, the run says what became of the process, and the
# new program runs on.
start_victim_env ex "$NOPROF" "$TARGETS/victim_dyn" -b 1 -E
"$JEATTACH" -p "$ex" --sample --for 3s --dump "$WORK/ex.heap" --json >"$WORK/ex.out" 2>"$WORK/ex.err" &
jx=$!
await_line "$WORK/ex.out" '"event":"wait"' "$jx" "the sampler's window"
python3 -c "import os, signal, sys; os.kill(int(sys.argv[1]), signal.SIGRTMIN + 3)" "$ex"
wait "$jx"
rc=$?
[ "$rc" != 0 ] || fail "an exec during the window reported success: $(cat "$WORK/ex.err")"
grep -q 'exec' "$WORK/ex.err" || fail "the exec is not said: exit $rc: $(cat "$WORK/ex.err")"
[ "$(readlink "/proc/$ex/exe")" = /usr/bin/sleep ] || [ "$(readlink "/proc/$ex/exe")" = /bin/sleep ] ||
	fail "not the new program: $(readlink "/proc/$ex/exe")"
state=$(cut -d' ' -f3 "/proc/$ex/stat")
[ "$state" = S ] || fail "the new program is in state $state"
kill "$ex"
pass "an exec during the window: said (exit $rc), the new program untouched"

# --every: one sampler for the series, a snapshot of the live samples at
# each interval read with no thread stopped (the install and the removal
# are the only holds). jeheap trend finds the leak, its slope within 10%
# of the victim's own log of what it leaked (a 4 KiB block is sampled 63%
# of the time at a mean of 4096 bytes, and scaled back by heap_v2's law).
start_victim_env t "$NOPROF" "$TARGETS/victim_leak" "$WORK/truth_t.log"
expect_rc 0 "$JEATTACH" -p "$t" --sample --sample-rate 4096 --every 600ms --count 8 \
	--dump "$WORK/d%n.heap" --json
printf '%s\n' "$OUT" | tail -1 | python3 -c '
import json, sys
j = json.load(sys.stdin)
kinds = [a["action"] for a in j["actions"]]
assert kinds.count("sample_snapshot") == 7 and kinds[-1] == "sample_end", kinds
' || fail "--every: $OUT"
finish_victim t
expect_rc 0 "$JEHEAP" trend --json "$WORK"/d*.heap
printf '%s\n' "$OUT" >"$WORK/trend.json"
python3 - "$WORK/trend.json" "$WORK/truth_t.log" >"$WORK/trend.out" <<'PY' || fail "trend: $OUT"
import json, sys
j = json.load(open(sys.argv[1]))
times = [d["time"] for d in j["dumps"]]
assert len(times) == 8, times
first = j["stacks"][0]
assert first["frames"][0] == "tr_leak_site", [s["frames"][:2] for s in j["stacks"][:3]]
assert first["verdict"] == "likely_leak", first
pts = [tuple(map(float, l.split())) for l in open(sys.argv[2]) if len(l.split()) == 2]
pts = [p for p in pts if times[0] <= p[0] <= times[-1]]
n = len(pts); mx = sum(p[0] for p in pts) / n; my = sum(p[1] for p in pts) / n
truth = sum((p[0] - mx) * (p[1] - my) for p in pts) / sum((p[0] - mx) ** 2 for p in pts)
err = abs(first["slope_per_second"] - truth) / truth
print("%.0f B/s, truth %.0f B/s: %.1f%% off" % (first["slope_per_second"], truth, 100 * err))
assert err < 0.10, (first["slope_per_second"], truth)
PY
pass "--sample --every: jeheap trend finds the leak: $(cat "$WORK/trend.out")"

# Reach: Debian 11's libjemalloc2 5.2.1 (tests/jemalloc-archive.sh), the
# build Debian 11, Ubuntu 20.04-22.04 and Redis 6-7 run, preloaded into a
# victim started without prof:true. On arm64 Debian builds it without
# profiling at all (tests/arm64/vm.sh runs this test there).
LIB52=$("$top_srcdir/tests/jemalloc-archive.sh" 5.2.1 2>/dev/null)
rc=$?
if [ $rc = 0 ]; then
	start_victim_env o "LD_PRELOAD=$LIB52 $NOPROF" "$TARGETS/victim_leak" "$WORK/truth52.log"
	expect_rc 0 "$JEATTACH" -p "$o" --status --json
	printf '%s\n' "$OUT" | grep -q '"version":"5\.2\.1' || fail "not 5.2.1: $OUT"
	expect_rc 0 "$JEATTACH" -p "$o" --sample --sample-rate 16384 --for 2s --dump "$WORK/o.heap"
	expect_rc 0 "$JEHEAP" top "$WORK/o.heap"
	printf '%s\n' "$OUT" | grep -q 'tr_leak_site' || fail "5.2.1: the leaking site is not in the profile: $OUT"
	finish_victim o
	pass "jemalloc 5.2.1 (Debian 11's build): the leaking site"
elif [ $rc = 77 ]; then
	echo "skipped: jemalloc 5.2.1 not available: $LIB52"
else
	fail "tests/jemalloc-archive.sh failed (exit $rc): $LIB52"
fi

# noprof_reach NAME VERSION PREFIX WHAT: a static PREFIX jemalloc VERSION
# built without --enable-prof (tests/jemalloc-noprof.sh), victim_rjem.c
# linked against it: --status sees it as such, --sample's profile has the
# leaking site first; skipped with the script's reason when it cannot be
# built.
noprof_reach() {
	nr_name=$1 nr_version=$2 nr_prefix=$3 nr_what=$4
	nr_lib=$top_builddir/tests/.jemalloc-noprof-$nr_version-$nr_prefix
	nr_out=$(sh "$top_srcdir/tests/jemalloc-noprof.sh" "$nr_lib" "$nr_version" "$nr_prefix")
	nr_rc=$?
	if [ $nr_rc = 77 ]; then
		echo "skipped: $nr_what: $nr_out"
		return
	fi
	[ $nr_rc = 0 ] || fail "tests/jemalloc-noprof.sh failed (exit $nr_rc): $nr_out"
	cc -O1 -g -DJE_PREFIX="$nr_prefix" -o "$WORK/victim_$nr_name" \
		"$top_srcdir/tests/targets/victim_rjem.c" -I"$nr_lib/include" "$nr_lib/lib/libjemalloc.a" \
		-lpthread -lm -ldl || fail "cannot build victim_rjem against $nr_what"
	start_victim_env "$nr_name" "$NOPROF" "$WORK/victim_$nr_name"
	eval "nr_pid=\$$nr_name"
	expect_rc 0 "$JEATTACH" -p "$nr_pid" --status --json
	printf '%s\n' "$OUT" | grep -q "\"symbol_prefix\":\"$nr_prefix\"" || fail "not $nr_prefix: $OUT"
	printf '%s\n' "$OUT" | grep -q "\"version\":\"$nr_version" || fail "not $nr_version: $OUT"
	printf '%s\n' "$OUT" | grep -q '"profiling":"not_built"' || fail "profiling built in: $OUT"
	printf '%s\n' "$OUT" | grep -q '"sample_possible":true' || fail "no sample_possible: $OUT"
	expect_rc 0 "$JEATTACH" -p "$nr_pid" --sample --sample-rate 16384 --for 2s --dump "$WORK/$nr_name.heap"
	expect_rc 0 "$JEHEAP" top "$WORK/$nr_name.heap"
	printf '%s\n' "$OUT" | sed -n 2p | grep -q 'rjem_leak_site' ||
		fail "$nr_what: the leaking site is not first: $OUT"
	finish_victim "$nr_name"
	pass "$nr_what: the leaking site"
}

# Reach: jemalloc as Rust's tikv-jemalloc-sys links it by default: static,
# _rjem_-prefixed, profiling not built in (from Debian 12's source
# package), and a C program's static je_ 5.2.1 built the same way (from a
# jemalloc git directory: JEATTACH_JEMALLOC_GIT).
noprof_reach rj 5.3.0 _rjem_ "a static _rjem_ jemalloc built without --enable-prof"
noprof_reach j5 5.2.1 je_ "a static je_ jemalloc 5.2.1 built without --enable-prof"

# Children of fork during the window inherit the hooks and the sampler's
# memory: they remove their copy themselves and come to no harm.
start_victim_env f "$NOPROF" "$TARGETS/victim_fork"
expect_rc 0 "$JEATTACH" -p "$f" --sample --for 2s --dump "$WORK/f.heap"
finish_victim f
pass "a process forking children during the window, and its children, unharmed"

# With prof:true, the sampler does not touch jemalloc's own profiling.
start_victim v2 "$TARGETS/victim_leak" "$WORK/truth2.log"
expect_rc 0 "$JEATTACH" -p "$v2" --sample --for 1s --dump "$WORK/p.heap"
expect_rc 0 "$JEATTACH" -p "$v2" --get prof.active
printf '%s\n' "$OUT" | grep -q 'false' || fail "prof.active changed: $OUT"
finish_victim v2
pass "a process with prof:true: its prof.active left alone"

# A seccomp filter that kills on a system call the hooks make: refused
# before anything is made in the target.
start_victim sv "$TARGETS/victim_dyn" -b 0 -s v
expect_rc 10 "$JEATTACH" -p "$sv" --sample --for 1s --dump "$WORK/sv.heap"
printf '%s\n' "$ERR" | grep -q "seccomp filter does not allow process_vm_readv" ||
	fail "no cause: $ERR"
[ -e "$WORK/sv.heap" ] && fail "a profile was written"
[ -z "$(sampler_state "$sv")" ] || fail "the sampler's memory is in the target"
finish_victim sv
pass "a seccomp filter that would kill on process_vm_readv: refused, nothing made"

# Filters are per thread: one thread with a filter that kills on
# process_vm_readv, the thread jeattach holds without: refused.
start_victim_env st "$NOPROF" "$TARGETS/victim_secthr"
expect_rc 10 "$JEATTACH" -p "$st" --sample --for 1s --dump "$WORK/st.heap"
printf '%s\n' "$ERR" | grep -q "threads do not all have the same seccomp filters" || fail "no cause: $ERR"
[ -z "$(sampler_state "$st")" ] || fail "the sampler's memory is in the target"
finish_victim st
pass "a filter in one thread only: refused, nothing made"

# In a pid namespace of its own, the hooks copy stacks with the pid the
# process knows itself by, not the host's.
if command -v unshare >/dev/null && unshare -p -f --mount-proc true 2>/dev/null; then
	: >"$WORK/ns.out"
	unshare -p -f --mount-proc env MALLOC_CONF= "$TARGETS/victim_leak" "$WORK/truth_ns.log" \
		>"$WORK/ns.out" 2>&1 &
	track $!
	i=0
	# Anchored: unshare's own command line holds the same words (and
	# "newest" is by start time, a tie when both start in one tick).
	until ns=$(pgrep -n -f "^$TARGETS/victim_leak $WORK/truth_ns.log") && [ -n "$ns" ] &&
		grep -q ready "$WORK/ns.out"; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "the namespaced victim did not start: $(cat "$WORK/ns.out")"
		sleep 0.05
	done
	track "$ns"
	expect_rc 0 "$JEATTACH" -p "$ns" --sample --for 2s --sample-rate 16384 --dump "$WORK/ns.heap" --json
	printf '%s\n' "$OUT" | tail -1 | python3 -c '
import json, sys
e = [a for a in json.load(sys.stdin)["actions"] if a["action"] == "sample_end"][0]
assert e["samples"] > 0 and e["no_stack"] == 0 and e["live"] > 0, e
' || fail "pid namespace: $OUT"
	expect_rc 0 "$JEHEAP" top "$WORK/ns.heap"
	printf '%s\n' "$OUT" | grep -q tr_leak_site || fail "pid namespace: $OUT"
	# The init of its namespace: only SIGKILL ends it from outside
	# (pid_namespaces(7): signals it has no handler for are ignored).
	kill -9 "$ns"
	pass "a process in its own pid namespace: stacks copied, the leaking site"
else
	echo "skipped: unshare -p cannot make a pid namespace here"
fi

# jeattach killed during the window: the hooks find the deadline passed
# (the window, --timeout and 10 s) at their next sample and switch
# themselves off; they stay installed (a removal from inside would leave
# the other threads unsettled, sampler_hooks.c) until the next --sample
# run, which removes them, unmaps their memory and settles every thread.
start_victim_env k "$NOPROF" "$TARGETS/victim_leak" "$WORK/truth3.log"
"$JEATTACH" -p "$k" --sample --for 2s --timeout 1 --dump "$WORK/k.heap" >/dev/null 2>&1 &
j=$!
# await_state PID STATE TENTHS WHAT: sampler_state reads STATE within
# TENTHS tenths of a second, else the test fails with WHAT.
await_state() {
	i=0
	until [ "$(sampler_state "$1")" = "$2" ]; do
		i=$((i + 1))
		[ $i -gt "$3" ] && fail "$4: $(sampler_state "$1")"
		sleep 0.1
	done
}
await_state "$k" "1 0" 100 "the sampler was never on"
kill -9 "$j"
wait "$j" 2>/dev/null
await_state "$k" "0 0" 300 "the hooks did not switch themselves off"
pass "jeattach killed in the window: the hooks switched themselves off at its deadline"
expect_rc 0 "$JEATTACH" -p "$k" --sample --for 200ms --dump "$WORK/k2.heap" --json
printf '%s\n' "$OUT" | tail -1 | grep -q '"left_removed_at":[0-9]' || fail "not cleaned: $OUT"
[ -z "$(sampler_state "$k" | grep -vx '0 2')" ] || fail "a sampler not removed: $(sampler_state "$k")"
finish_victim k
pass "the next run removed the earlier run's hooks and unmapped their memory"

# A kill storm: jeattach killed at random moments of 8 runs on a process
# with idle threads (whose tsds jemalloc's recompute leaves unsettled),
# then, once the killed runs' deadlines passed, one run that cleans up;
# then every thread exits (the victim's report): no crash.
start_victim_env ks "$NOPROF" "$TARGETS/victim_dyn" -b 2 -i 4
for n in 1 2 3 4 5 6 7 8; do
	"$JEATTACH" -p "$ks" --sample --for 300ms --timeout 1 --dump "$WORK/ks$n.heap" --force \
		>/dev/null 2>&1 &
	j=$!
	sleep "0.$(od -An -N1 -tu1 /dev/urandom | awk '{ printf "%d", $1 % 6 }')"
	kill -9 "$j" 2>/dev/null
	wait "$j" 2>/dev/null
done
sleep 12 # the last killed run's deadline: its window, --timeout, 10 s
n=0
until "$JEATTACH" -p "$ks" --sample --for 200ms --dump "$WORK/ks.heap" --force >"$WORK/ks.out" 2>&1; do
	n=$((n + 1)) # a sampler still on: its deadline not come yet
	[ $n -gt 10 ] && fail "the clean-up run: $(cat "$WORK/ks.out")"
	sleep 1
done
finish_victim ks
pass "a kill storm, then one more run: the process and its exiting threads unharmed"

# Refused before anything is touched: no --for, no --dump.
expect_rc 2 "$JEATTACH" -p 1 --sample --dump "$WORK/x.heap"
printf '%s\n' "$ERR" | grep -q -- '--sample takes a window' || fail "no cause: $ERR"
expect_rc 2 "$JEATTACH" -p 1 --sample-rate 4096 --status
pass "--sample without a window, --sample-rate without --sample: refused with the fix"

# Reach: Debian's redis-server started with no MALLOC_CONF (its jemalloc
# without prof:true), SETs coming during the window: the profile has
# samples from redis's own code (its frames in redis-server's mapping).
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
	sock=$WORK/redis.sock
	env MALLOC_CONF= redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 --save '' \
		--appendonly no --daemonize no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
	rpid=$!
	track "$rpid"
	n=0
	until redis-cli -s "$sock" ping 2>/dev/null | grep -q PONG; do
		n=$((n + 1))
		[ $n -gt 100 ] && fail "redis did not start: $(cat "$WORK/redis.log")"
		sleep 0.05
	done
	python3 -c '
import sys
v = "x" * 3000
with open(sys.argv[1], "w") as f:
    for k in range(20000):
        f.write("*3\r\n$3\r\nSET\r\n$%d\r\nk%d\r\n$%d\r\n%s\r\n" % (len("k%d" % k), k, len(v), v))
' "$WORK/set.resp"
	"$JEATTACH" -p "$rpid" --sample --sample-rate 65536 --for 2s --dump "$WORK/redis.heap" \
		--json >"$WORK/redis.json" 2>"$WORK/redis.err" &
	j=$!
	sleep 0.7
	redis-cli -s "$sock" --pipe <"$WORK/set.resp" >/dev/null || fail "redis-cli --pipe failed"
	wait "$j" || fail "--sample on redis-server: $(cat "$WORK/redis.err")"
	tail -1 "$WORK/redis.json" | python3 -c '
import json, sys
e = [a for a in json.load(sys.stdin)["actions"] if a["action"] == "sample_end"][0]
assert e["samples"] > 0 and e["live"] > 0, e
' || fail "redis: no live samples: $(cat "$WORK/redis.json")"
	# Most stacks have a frame in redis's own text (Debian's redis-server
	# is a link to redis-check-rdb: the program's own file, as mapped).
	exe=$(readlink -f "/proc/$rpid/exe")
	python3 - "$WORK/redis.heap" "$exe" <<'PY' || fail "redis: no stack in redis-server's own code"
import sys
text = open(sys.argv[1]).read()
maps = text.split("MAPPED_LIBRARIES:")[1].splitlines()
exe = [tuple(int(x, 16) for x in l.split()[0].split("-")) for l in maps
       if "r-xp" in l and l.rstrip().endswith(sys.argv[2])]
assert exe, "the program's text not in MAPPED_LIBRARIES"
stacks = [l for l in text.splitlines() if l.startswith("@ ")]
hits = sum(any(lo <= int(a, 16) < hi for a in s.split()[1:] for lo, hi in exe) for s in stacks)
assert stacks and hits * 2 >= len(stacks), (hits, len(stacks))
PY
	redis-cli -s "$sock" shutdown nosave >/dev/null 2>&1
	wait "$rpid" 2>/dev/null
	pass "Debian's redis-server without MALLOC_CONF: live samples from its own code"
else
	echo "skipped: redis-server/redis-cli not installed (Debian packages redis-server, redis-tools)"
fi
