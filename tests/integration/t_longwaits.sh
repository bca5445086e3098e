#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Any waiting process, at once: every thread of victim_sleeps -L 10000 waits
# 10 s at a time, in each blocking call a server makes (io_uring_enter,
# epoll_pwait2, ppoll, pselect6, nanosleep, clock_nanosleep, poll, a timed
# futex, futex_waitv, a condition variable, sigtimedwait). Each thread is
# borrowed within the default --timeout, crash-safe, and each wait still
# ends when it would have (the victim's own clock: not early, not later than
# its slack, no EINTR): the start of a wait is read from the scheduler's
# record (rcall_since.c), not watched for, which took as long as the wait.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim lw "$TARGETS/victim_sleeps" -L 10000
n=0
for role in uring pwait2 ppoll pselect nsleep usleep cnrel poll futex waitv cnabs cond sigwait; do
	tid=$(victim_tid lw "$role")
	[ -n "$tid" ] && [ "$tid" != 0 ] || continue # a kind this kernel refuses
	expect_rc 0 "$JEATTACH" -p "$lw" --tid "$tid" --status --json
	[ "$(json_get "$OUT" "j['crash_safe']")" = True ] || fail "$role: not crash-safe: $OUT"
	n=$((n + 1))
done
[ $n -ge 8 ] || fail "only $n kinds of wait ran: $(cat "$lw_out")"
# Without --tid: the least costly thread, at once, for a dump too.
for i in 1 2 3; do
	expect_rc 0 "$JEATTACH" -p "$lw" --status --dump "$WORK/lw.heap" --force --json
done
# Every borrowed wait has ended since (10 s), each judged by the victim.
sleep 11
finish_victim lw max_late_us worst
pass "$n threads in 10 s waits borrowed within --timeout, crash-safe; every wait on time"
