#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A dump never risks the target because of the target's own limits
# (issue 29). The profile used to be written into a memfd in the target:
# - RLIMIT_FSIZE below the profile's size: SIGXFSZ, blocked during the call
#   and delivered when the thread's mask came back, killed the process;
# - RLIMIT_NOFILE with 2 free descriptors: exit 0 and a profile without
#   MAPPED_LIBRARIES; with 0 or 1, messages blaming seccomp or /proc;
# - children spawned during a dump inherited jemalloc's descriptor on the
#   memfd (creat() makes it without O_CLOEXEC) and kept it after exec.
# The memory cgroup: t_memcg.sh.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
EXACT="MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0"
# LIMITS_ONLY=fsize|nofile|children|killed: that case alone (to see each
# fail against an older build); LIMITS_KILLS: how many kills the storm at
# the end makes (10).
want() { [ -z "${LIMITS_ONLY:-}" ] || [ "$LIMITS_ONLY" = "$1" ]; }

# alive NAME: the victim still runs a moment later (a pending SIGXFSZ or
# SIGPIPE is delivered as soon as the thread's mask comes back).
alive() {
	eval "p=\$$1; o=\$${1}_out"
	sleep 0.3
	kill -0 "$p" 2>/dev/null || fail "victim $1 died: $(cat "$o")"
}

# whole FILE N: a complete heap profile with at least N stacks and maps.
whole() {
	head -1 "$1" | grep -q '^heap_v2/' || fail "$1 is not a heap profile"
	[ "$(grep -c '^@' "$1")" -ge "$2" ] || fail "$1 holds $(grep -c '^@' "$1") stacks, wanted $2"
	grep -q '^MAPPED_LIBRARIES:' "$1" || fail "$1 has no MAPPED_LIBRARIES"
}

# exits_clean NAME: a victim_bigprof told to end (SIGUSR1: it frees
# everything and calls exit(), where prof_final dumps once more) exits 0 in
# bounded time: a dump lock left taken would hang it there.
exits_clean() {
	eval "p=\$$1; o=\$${1}_out"
	kill -USR1 "$p"
	i=0
	while kill -0 "$p" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt "$(slow 600)" ] && fail "the target hangs in exit()"
		sleep 0.05
	done
	wait "$p"; rc=$?
	[ "$rc" = 0 ] || fail "the target exited $rc: $(cat "$o")"
}

# RLIMIT_FSIZE of 256 KiB, a profile of about 3 MB.
want fsize && {
start_victim_env fs "$EXACT" "$TARGETS/victim_limits" -n 8192 -f 262144
expect_rc 0 "$JEATTACH" -p "$fs" --dump "$WORK/fs.heap" --json
alive fs
whole "$WORK/fs.heap" 8192
size=$(stat -c %s "$WORK/fs.heap")
[ "$size" -gt 262144 ] || fail "the profile ($size bytes) is not larger than RLIMIT_FSIZE"
finish_victim fs
pass "RLIMIT_FSIZE 256 KiB, a $size-byte profile: whole, the target alive"
}

# free_fds PID: descriptor numbers free below its soft RLIMIT_NOFILE.
free_fds() {
	lim=$(sed -n 's/^Max open files *\([0-9]*\).*/\1/p' "/proc/$1/limits")
	echo $((lim - $(ls "/proc/$1/fd" | awk -v l="$lim" '$1 < l' | wc -l)))
}

# RLIMIT_NOFILE with K free descriptors: below 3, refused before anything
# is done, with the cause and the fix; at 3, a whole profile.
want nofile && for k in 0 1 2 3; do
	start_victim_env "nf$k" "$EXACT" "$TARGETS/victim_limits" -n 64 -F "$k"
	eval "pid=\$nf$k"
	[ "$(free_fds "$pid")" = "$k" ] || fail "the victim has $(free_fds "$pid") free descriptors, wanted $k"
	if [ "$k" -lt 3 ]; then
		expect_rc 10 "$JEATTACH" -p "$pid" --dump "$WORK/nf$k.heap"
		echo "$ERR" | grep -q "has $k free descriptor(s) under its RLIMIT_NOFILE" ||
			fail "$k free: $ERR"
		echo "$ERR" | grep -q "prlimit --pid $pid --nofile=" || fail "$k free: no fix given: $ERR"
		echo "$ERR" | grep -qi 'seccomp' && fail "$k free: seccomp blamed: $ERR"
		[ -e "$WORK/nf$k.heap" ] && fail "$k free: a profile was written"
		[ "$(free_fds "$pid")" = "$k" ] || fail "$k free: descriptors changed"
		expect_rc 0 "$JEATTACH" -p "$pid" --status
	else
		expect_rc 0 "$JEATTACH" -p "$pid" --dump "$WORK/nf$k.heap" --json
		whole "$WORK/nf$k.heap" 64
		[ "$(json_get "$OUT" "j['actions'][0]['maps']")" = jemalloc ] ||
			fail "3 free: the maps were not jemalloc's: $OUT"
	fi
	alive "nf$k"
	finish_victim "nf$k"
done
want nofile && pass "0, 1, 2 free descriptors refused with the cause and the fix; 3 enough"

# Children spawned (posix_spawn: no fork handler waits for the dump) while
# a dump runs for a second or more: none keeps a descriptor of the dump.
want children && {
n=$(stacks 65536)
START_SECONDS=60 start_victim_env sp "$EXACT" "$TARGETS/victim_limits" -n "$n" -s
before=$(grep -c '^child' "$sp_out")
# Its own descriptors (make's jobserver pipe, say) are the children's too.
own=$(ls -l "/proc/$sp/fd" | sed -n 's/.* -> //p' | sort -u)
expect_rc 0 "$JEATTACH" -p "$sp" --dump "$WORK/sp.heap" --json
after=$(grep -c '^child' "$sp_out")
whole "$WORK/sp.heap" "$n"
dump_ms=$(($(json_get "$OUT" "j['actions'][0]['dump_us']") / 1000))
[ $((after - before)) -ge 5 ] || fail "only $((after - before)) children spawned during a $dump_ms ms dump"
# keeping NAME OWN: how many of victim NAME's children (its "child PID"
# lines) hold a descriptor their parent did not have before (OWN: its
# links), each named; seen: how many were looked at.
keeping() {
	eval "k_out=\$${1}_out"
	kept=0 seen=0
	for c in $(sed -n 's/^child //p' "$k_out"); do
		[ -d "/proc/$c/fd" ] || continue
		seen=$((seen + 1))
		extra=$(ls -l "/proc/$c/fd" 2>/dev/null | sed -n 's/.* -> //p' | sort -u |
			while read -r l; do echo "$2" | grep -qxF "$l" || echo "$l"; done)
		if [ -n "$extra" ]; then
			kept=$((kept + 1))
			echo "child $c: $(echo "$extra" | tr '\n' ' ')"
		fi
	done
}
# children_end NAME OWN: victim NAME checks itself, its children are
# looked at (keeping) and ended; fails if one keeps a descriptor.
children_end() {
	keeping "$1" "$2"
	finish_victim "$1"
	for c in $(sed -n 's/^child //p' "$k_out"); do kill "$c" 2>/dev/null; done
	[ "$kept" = 0 ] || fail "$kept of $seen children of $1 keep a descriptor of the dump"
}
children_end sp "$own"
pass "$((after - before)) children spawned during a $dump_ms ms dump, none keeps its descriptor ($seen looked at)"

# Children forked (no exec: a prefork server's workers) around dumps.
# jemalloc's prefork handler waits for the dump's lock (prof_dump_mtx), so
# a fork asked for during the dump goes on the moment jemalloc lets it go,
# while the pipe's ends are still open in the target: such a child inherits
# them (close-on-exec covers only an exec) and would keep them for its
# life. jeattach finds the children holding its pipe after the release and
# closes those descriptors in them (act_dump_children.c).
n=$(stacks 16384)
START_SECONDS=60 start_victim_env sf "$EXACT" "$TARGETS/victim_limits" -n "$n" -S
own=$(ls -l "/proc/$sf/fd" | sed -n 's/.* -> //p' | sort -u)
closed=0
for i in 1 2 3 4 5; do
	expect_rc 0 "$JEATTACH" -p "$sf" --dump "$WORK/sf.heap" --force --json
	whole "$WORK/sf.heap" "$n"
	closed=$((closed + $(json_get "$OUT" "j['actions'][0].get('children_closed', 0)")))
done
children_end sf "$own"
pass "5 dumps while the process forks every 20 ms: no child keeps a descriptor of the dump ($seen looked at; $closed had inherited the pipe and had it closed)"
}
want killed || exit 0

# jeattach killed (SIGKILL: nothing of it runs) while jemalloc writes into
# the pipe. The target keeps the pipe's read end during the call, so the
# writer never meets a pipe without a reader (EPIPE and a SIGPIPE, blocked
# during the call and delivered when the mask comes back: the default
# action kills); the pipe fills, its non-blocking write end answers EAGAIN,
# jemalloc gives the dump up and unlocks, and the thread restores itself.
# Left behind: the read end, one descriptor. (victim_bigprof, 2^18 stacks:
# a dump of about 5 s, killed 1 s or more into it; its main
# thread waits in sigwait, so the call is crash-safe.)
n=$(stacks 262144)
START_SECONDS=60 start_victim_env kb "$EXACT" "$TARGETS/victim_bigprof" -n "$n"
fds_before=$(ls "/proc/$kb/fd" | wc -l)
"$JEATTACH" -p "$kb" --dump "$WORK/kb.heap" -v >"$WORK/kb.jo" 2>"$WORK/kb.je" &
jp=$!
i=0
until grep -qE 'dump running for [0-9]+ s, ([1-9][0-9]*\.[0-9]|0\.[1-9]) MB written' "$WORK/kb.je"; do
	i=$((i + 1)); [ $i -gt "$(slow 1200)" ] && fail "no progress line: $(cat "$WORK/kb.je")"
	kill -0 "$jp" 2>/dev/null || fail "the dump ended before it could be killed: $(cat "$WORK/kb.je")"
	sleep 0.05
done
kill -KILL "$jp"
wait "$jp" 2>/dev/null
# Inside the call: the pipe's ends are still in the target.
[ $(($(ls "/proc/$kb/fd" | wc -l) - fds_before)) -ge 1 ] ||
	fail "the kill landed after the dump (a larger -n is needed here): $(cat "$WORK/kb.je")"
sleep 1
kill -0 "$kb" 2>/dev/null || fail "the target died after jeattach was killed mid-dump: $(cat "$kb_out")"
grep -q 'State:.*[RS]' "/proc/$kb/status" || fail "the target is $(grep State: "/proc/$kb/status")"
# jemalloc closes the write end when its dump ends (after the error it
# still walks every sample, writing nothing): wait for that.
i=0
while fds_after=$(ls "/proc/$kb/fd" | wc -l) && [ $((fds_after - fds_before)) -gt 1 ]; do
	i=$((i + 1)); [ $i -gt "$(slow 600)" ] && fail "descriptors grew by $((fds_after - fds_before)): $(ls -l "/proc/$kb/fd")"
	sleep 0.05
done
expect_rc 0 "$JEATTACH" -p "$kb" --dump "$WORK/kb2.heap" --timeout "$(slow 10)"
whole "$WORK/kb2.heap" "$n"
exits_clean kb
# jemalloc returns a mallctl dump's errors and prints nothing (prof_sys.c:
# handle_error_locally is !propagate_err).
grep -vE '^(ready|report|iters)' "$kb_out" && fail "the target printed the above"
pass "jeattach killed mid-dump: the target lived ($((fds_after - fds_before)) descriptor left, nothing printed), dumped again and exited 0"

# The same at random instants (kill_storm.py: uniform over three times a
# whole run), against dumps of ~0.2 s: kills land before the pipe, between
# pipe2 and jemalloc's creat (both ends left), while it writes, and after.
# The victim must live, its dump lock must come free (a later dump works)
# and at most two descriptors stay per kill.
KILLS=${LIMITS_KILLS:-10}
START_SECONDS=60 start_victim_env ks "$EXACT" "$TARGETS/victim_bigprof" -n "$(stacks 16384)"
fds_before=$(ls "/proc/$ks/fd" | wc -l)
expect_rc 0 "$JEATTACH" -p "$ks" --dump "$WORK/ks.heap" --json --force
wall_us=$(json_get "$OUT" "j['wall_us']")
python3 "$top_srcdir/tests/integration/kill_storm.py" "$JEATTACH" "$ks" "$KILLS" "$wall_us" --dump "$WORK/ks.heap" --force ||
	fail "see above"
expect_rc 0 "$JEATTACH" -p "$ks" --dump "$WORK/ks2.heap" --timeout "$(slow 10)"
whole "$WORK/ks2.heap" "$(stacks 16384)"
left=$(($(ls "/proc/$ks/fd" | wc -l) - fds_before))
[ "$left" -le $((2 * KILLS)) ] || fail "$left descriptors left by $KILLS kills"
grep -vE '^(ready|report|iters)' "$ks_out" && fail "the target printed the above"
exits_clean ks
pass "$KILLS kills at random instants of a $((wall_us / 1000)) ms dump: the target lived, dumped again, exited 0; $left pipe end(s) left"
