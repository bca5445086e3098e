#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A timed wait whose timer has fired, its thread woken but still waiting
# for a CPU, is "running" in /proc: jeattach takes it at once, and its
# interrupt lands before the call has returned. io_getevents and a unix
# stream recv with SO_RCVTIMEO then turn their timeout into EINTR; rewound,
# the call waited its whole timeout again (t_waits saw 306-340 ms late on
# 300 ms waits, about one run in ten under load). jeattach now tells such a
# thread by its scheduling counters and has the call return timed out.
# victim_woken holds each wait's thread on the run queue after its timeout
# (a SCHED_FIFO spinner on its CPU) until jeattach has seized it, then 90
# ms more, so that jeattach's interrupt lands in that window however slowly
# jeattach starts (1-4 s on the emulated arm64 machine); each borrow here
# starts as /proc shows the thread running. The spinner can hold the CPU
# only as long as real-time throttling lets it (0.95 s of each second by
# default): tests/arm64/vm.sh turns throttling off in its guest, where
# jeattach takes longer than that to start.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
load_sensitive

# until_running PID TID: wait (at most 2 s) for /proc to show the thread
# running, that is, woken from its wait and not back on a CPU yet.
until_running() {
	n=0
	while [ $n -lt 400 ]; do
		read -r state rest <"/proc/$1/task/$2/syscall" || return 1
		[ "$state" = running ] && return 0
		sleep 0.005
		n=$((n + 1))
	done
	return 1
}

# The spinner lets go 90 ms after the seize: within the 100 ms a
# thread has to stop once interrupted; it gives up after a second (scaled)
# if no tracer comes. Lateness is judged from when the waiter could run.
slack=$(slow 150); [ "$slack" -gt 250 ] && slack=250
cap=$(slow 1000)
kinds="aio sock"
for kind in $kinds; do
	start_victim w "$TARGETS/victim_woken" "$kind" "$slack" "$cap" traced
	if grep -q '^nort' "$w_out"; then
		skip "$(sed -n 's/^nort //p' "$w_out") (a real-time spinner makes the window)"
	fi
	tid=$(victim_tid w waiter)
	[ -n "$tid" ] || fail "no waiter thread: $(cat "$w_out")"
	i=0
	while [ $i -lt 10 ]; do
		until_running "$w" "$tid" || fail "the waiter never showed running: $(cat "$w_out")"
		expect_rc 0 "$JEATTACH" -p "$w" --tid "$tid" --status
		sleep 0.4 # a whole wait after the borrow, to be judged
		i=$((i + 1))
	done
	pass "$kind: the waiter borrowed 10 times as it left its wait"
	finish_victim w
	waits=$(sed -n 's/^report.* waits=\([0-9]*\).*/\1/p' "$w_out")
	[ "${waits:-0}" -ge 10 ] || fail "$kind: only ${waits:-0} waits ended during 10 borrows"
	# Most borrows must have found the waiter woken (a few may miss: the
	# kernel can give a starved thread the CPU mid-window).
	tw=$(sed -n 's/^report.* traced_windows=\([0-9]*\).*/\1/p' "$w_out")
	[ "${tw:-0}" -ge 5 ] || fail "$kind: only ${tw:-0} of 10 borrows landed in the window"
	pass "$kind: $tw of 10 borrows found the waiter woken, no wait late or cut short"
done
exit 0
