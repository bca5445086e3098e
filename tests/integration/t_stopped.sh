#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A process stopped by SIGSTOP (state T) is still stopped after jeattach,
# every thread; once continued it is as healthy as one that was only
# stopped and continued without jeattach (the stop/continue alone makes
# epoll_wait return EINTR: signal(7), so both victims are compared).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

stopped_threads() {
	n=0
	for t in /proc/"$1"/task/*; do
		grep -q '^State:.*T' "$t/status" && n=$((n + 1))
	done
	echo $n
}

# Idle threads only: a busy one stopped inside malloc makes jeattach refuse
# (below), which is right but not what this part checks.
start_victim ctl "$TARGETS/victim_dyn" -b 0
start_victim v "$TARGETS/victim_dyn" -b 0
kill -STOP "$ctl" "$v"
sleep 0.2
nthreads=$(ls /proc/"$v"/task | wc -l)
expect_rc 0 "$JEATTACH" -p "$v" --status --activate --dump "$WORK/s.heap"
sleep 0.2
[ "$(stopped_threads "$v")" = "$nthreads" ] || fail "not all threads stopped after jeattach"
grep -q '^State:.*T' /proc/"$v"/status || fail "the process is no longer stopped"
kill -CONT "$ctl" "$v"
sleep 0.2
eintr() { eval "out=\$${1}_out"; sed -n 's/.*eintr=\([0-9]*\).*/\1/p' "$out"; }
kill -USR1 "$ctl" "$v"
sleep 1
rc_ctl=$(eintr ctl)
rc_v=$(eintr v)
[ -n "$rc_v" ] || fail "victim did not report: $(cat "$v_out")"
[ "$rc_v" = "$rc_ctl" ] || fail "jeattach added EINTRs: $rc_v (control: $rc_ctl)"
errno_errors() { eval "out=\$${1}_out"; sed -n 's/.*errno_errors=\([0-9]*\).*/\1/p' "$out"; }
[ "$(errno_errors v)" -le "$(errno_errors ctl)" ] ||
	fail "jeattach changed the main thread's errno: $(cat "$v_out") (control: $(cat "$ctl_out"))"
grep -q 'early=0 heap_errors=0 fp_errors=0' "$v_out" || fail "$(cat "$v_out")"
pass "stopped process stays stopped; EINTR $rc_v = control $rc_ctl"

# Stopped while a thread is inside jemalloc holding its dump lock (victim's
# -f: a thread blocked in prof.dump, opening a FIFO nobody reads): the call
# would wait for that lock until the process is continued. Refused, nothing
# done, still stopped; continued, the victim finishes its own dump.
mkfifo "$WORK/fifo"
start_victim lk "$TARGETS/victim_dyn" -b 0 -f "$WORK/fifo"
infifo=$(victim_tid lk infifo)
kill -STOP "$lk"
sleep 0.2
expect_rc 10 bounded 30 "$JEATTACH" -p "$lk" --dump "$WORK/lk.heap"
echo "$ERR" | grep -q "stopped and thread $infifo has allocator or linker code" || fail "$ERR"
[ ! -e "$WORK/lk.heap" ] || fail "a dump was written"
grep -q '^State:.*T' /proc/"$lk"/status || fail "the process is no longer stopped"
kill -CONT "$lk"
cat "$WORK/fifo" >"$WORK/fifo.out" &
sleep 0.5
grep -q '^heap_v2/' "$WORK/fifo.out" || fail "the victim's own dump did not complete"
expect_rc 0 "$JEATTACH" -p "$lk" --status
# The stop and continue alone end epoll_wait and the main thread's
# sigtimedwait with EINTR (signal(7); glibc's sigwait retries, leaving errno
# EINTR): jeattach may undo them where it saw the call (x86_64), or leave
# them as the kernel made them (arm64 forgets the call at a group stop).
finish_victim lk eintr errno_errors
pass "a stopped process with a thread inside jemalloc: refused (exit 10), left stopped"
