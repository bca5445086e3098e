#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Bad input of every kind: a one-line cause and fix, the documented exit
# code, and a target left exactly as found (the victims check themselves).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

one_line() { [ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "not one line: $ERR"; }

# No such process.
expect_rc 3 "$JEATTACH" -p 2147483646 --status
one_line
echo "$ERR" | grep -q '^jeattach: 2147483646: no such process' || fail "$ERR"

# A kernel thread (kthreadd is pid 2 on Linux).
if grep -q '^Name:.*kthreadd' /proc/2/status 2>/dev/null; then
	expect_rc 10 "$JEATTACH" -p 2 --status
	echo "$ERR" | grep -q 'kernel thread' || fail "$ERR"
fi

# No jemalloc: a glibc malloc program.
start_victim plain "$TARGETS/victim_plain" -b 1
expect_rc 5 "$JEATTACH" -p "$plain" --status
one_line
echo "$ERR" | grep -q 'no jemalloc found' || fail "$ERR"
expect_rc 5 "$JEATTACH" -p "$plain" --status --prefix zz_
echo "$ERR" | grep -q 'zz_mallctl' || fail "$ERR"
finish_victim plain

# A thread id given as a process id.
start_victim dyn "$TARGETS/victim_dyn" -b 1
tid=$(victim_tid dyn reader)
expect_rc 2 "$JEATTACH" -p "$tid" --status
echo "$ERR" | grep -q 'thread id, not a process id' || fail "$ERR"
# --tid of another process: a usage error (2; exit 3 before the issue
# "never hurt the target" said so: nothing is gone, the thread was wrong).
expect_rc 2 "$JEATTACH" -p "$dyn" --tid 1 --status
echo "$ERR" | grep -q 'not a thread of process' || fail "$ERR"
# An unknown control is refused before attaching.
expect_rc 2 "$JEATTACH" -p "$dyn" --get no.such.thing
# A control this jemalloc lacks (an arena that does not exist): mallctl's
# ENOENT, explained; the actions before it ran, the ones after did not.
expect_rc 7 "$JEATTACH" -p "$dyn" --json --get prof.active --get stats.arenas.9999.pactive \
	--activate
echo "$ERR" | grep -q 'has no control named stats.arenas.9999.pactive' || fail "$ERR"
[ "$(json_get "$OUT" "[a['ok'] for a in j['actions']]")" = "[True, False]" ] || fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$dyn" --get prof.active --json
[ "$(json_get "$OUT" "j['actions'][0]['value']")" = False ] || fail "activated after an error: $OUT"
# Output directory not writable: refused before touching the target.
expect_rc 8 "$JEATTACH" -p "$dyn" --dump /nonexistent-dir/x.heap
echo "$ERR" | grep -q 'cannot write a profile in /nonexistent-dir' || fail "$ERR"
finish_victim dyn

# Profiling not enabled at start-up: --status works, --activate explains.
start_victim_env noprof "MALLOC_CONF=stats_print:false" "$TARGETS/victim_dyn" -b 1
expect_rc 0 "$JEATTACH" -p "$noprof" --status --json
[ "$(json_get "$OUT" "j['actions'][0]['opt_prof']")" = False ] || fail "opt_prof: $OUT"
for a in --activate --deactivate --dump="$WORK/np.heap"; do
	expect_rc 6 "$JEATTACH" -p "$noprof" "$a"
	one_line
	echo "$ERR" | grep -q 'restart the process with MALLOC_CONF=prof:true,prof_active:false' ||
		fail "$a: $ERR"
done
[ ! -e "$WORK/np.heap" ] || fail "a profile file appeared although the dump failed"
finish_victim noprof

# Already traced by someone else: say by whom.
if command -v strace >/dev/null; then
	start_victim traced "$TARGETS/victim_dyn" -b 0
	strace -q -p "$traced" -o /dev/null &
	spid=$!
	i=0
	while [ "$(sed -n 's/^TracerPid:\t//p' /proc/"$traced"/status)" = 0 ] && [ $i -lt 100 ]; do
		sleep 0.05; i=$((i + 1))
	done
	expect_rc 4 "$JEATTACH" -p "$traced" --status
	echo "$ERR" | grep -q "already traced by pid $spid (strace)" || fail "$ERR"
	# --top and --prometheus name it too (before: "permission denied: "
	# and nothing after it).
	expect_rc 4 "$JEATTACH" -p "$traced" --top --count 1
	echo "$ERR" | grep -q "^jeattach: $traced: cannot attach: permission denied: it is already traced by pid $spid (strace); .*detach" ||
		fail "--top: $ERR"
	one_line
	expect_rc 4 "$JEATTACH" -p "$traced" --prometheus "$WORK/traced.prom" --count 1
	echo "$ERR" | grep -q "already traced by pid $spid (strace)" || fail "--prometheus: $ERR"
	pass "another tracer (strace) named by --status, --top and --prometheus"
	kill "$spid"; wait "$spid" 2>/dev/null
	# strace's own attach wakes the main thread's sigwait with EINTR, which
	# glibc retries, leaving errno == EINTR: strace's doing, not jeattach's.
	finish_victim traced errno_errors
else
	echo "note: strace not installed, the already-traced case is not tested"
fi

# Not allowed: another user without CAP_SYS_PTRACE.
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	start_victim mine "$TARGETS/victim_dyn" -b 0
	expect_rc 4 setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		"$JEATTACH" -p "$mine" --status
	one_line
	echo "$ERR" | grep -q 'runs as uid 0 and you are uid 65534 without CAP_SYS_PTRACE' ||
		fail "$ERR"
	finish_victim mine
fi

# A timeout too short to stop anything: exit 9, the target untouched.
start_victim slow "$TARGETS/victim_dyn" -b 2
expect_rc 9 "$JEATTACH" -p "$slow" --status --timeout 0.000001
echo "$ERR" | grep -q 'larger --timeout' || fail "$ERR"
finish_victim slow

# A target that exits while jeattach works on it: every run ends with 0 or
# 3 (gone), never a hang or a crash.
MALLOC_CONF=prof:true,prof_active:false "$TARGETS/victim_dyn" -b 2 -x 400 >/dev/null 2>&1 &
xpid=$!
track "$xpid"
n=0
while kill -0 "$xpid" 2>/dev/null; do
	"$JEATTACH" -p "$xpid" --status --activate --dump "$WORK/x.heap" --force --timeout 5 \
		>/dev/null 2>"$WORK/x.err"
	rc=$?
	case $rc in 0|3|6) ;; *) fail "exit $rc while the target exited: $(cat "$WORK/x.err")" ;; esac
	n=$((n + 1))
done
wait "$xpid" 2>/dev/null
pass "target exiting mid-way: $n runs, none failed badly"

# A 32-bit process: victim32 on x86_64 (gcc -m32); on arm64, Debian's
# static armhf busybox (AArch32 at EL0, where the CPU and kernel have it).
if [ -x "$TARGETS/victim32" ]; then
	"$TARGETS/victim32" >"$WORK/v32.out" &
	v32=$!
elif [ "$(uname -m)" = aarch64 ] &&
	bb=$("$top_srcdir/tests/debian-archive.sh" bookworm armhf busybox-static 2>/dev/null) &&
	"$bb/bin/busybox" true 2>/dev/null; then
	# busybox's own shell, waiting for its sleep: a 32-bit process asleep.
	"$bb/bin/busybox" sh -c "echo ready; while :; do $bb/bin/busybox sleep 1000; done" >"$WORK/v32.out" &
	v32=$!
else
	v32=""
fi
if [ -n "$v32" ]; then
	track "$v32"
	while ! grep -q ready "$WORK/v32.out" 2>/dev/null || ! grep -q '^State:.*S' /proc/"$v32"/status; do
		sleep 0.05
	done
	expect_rc 10 "$JEATTACH" -p "$v32" --status
	echo "$ERR" | grep -q '32-bit process' || fail "$ERR"
	grep -q '^State:.*S' /proc/"$v32"/status || fail "the 32-bit victim was disturbed"
	pass "a 32-bit process ($(readlink /proc/"$v32"/exe)): refused with exit 10, undisturbed"
elif [ "$(uname -m)" = aarch64 ]; then
	echo "note: no 32-bit ARM program could be run (busybox-static:armhf not fetched, or no AArch32 at EL0); the 32-bit case is not tested"
else
	echo "note: no -m32 compiler (gcc-multilib); the 32-bit case is not tested"
fi

# A zombie.
sh -c 'exit 0' &
zpid=$!
# The child is a zombie until we wait for it.
sleep 0.2
if grep -q '^State:.*Z' /proc/$zpid/status 2>/dev/null; then
	expect_rc 3 "$JEATTACH" -p "$zpid" --status
	echo "$ERR" | grep -q 'zombie' || fail "$ERR"
fi
wait $zpid 2>/dev/null
pass "error paths"
