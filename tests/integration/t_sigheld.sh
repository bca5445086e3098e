#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A signal that arrives while a thread is held (its calls run with every
# signal blocked, so it stays pending) must end the thread's interrupted
# call as it would have without jeattach: pause() and a read() whose
# handler lacks SA_RESTART return EINTR once the handler ran; with
# SA_RESTART the read goes on, and poll() returns EINTR even so. Released
# rewound (arm64 always, x86_64 after crash-safe calls), the kernel no longer knows a call was interrupted and
# would restart it after the handler: pause() would never return for that
# signal. The victim sends each signal the moment its worker is in a
# tracing stop and says whether the worker was still stopped after it
# (victim_sigheld.c); a hold its watcher missed, or caught only as it
# ended, is tried again.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim v "$TARGETS/victim_sigheld"
count() { grep -c "^$1" "$v_out"; }

# held WORKER EXPECT WHAT: hold the worker until its watcher signals it while
# it is held; then its call must return EXPECT (expect_rc owns $want).
held() {
	w=$1 expect=$2 what=$3
	tid=$(victim_tid v "$w")
	for try in 1 2 3 4 5 6 7 8 9 10; do
		s0=$(count "signalled $w ") r0=$(count "$w: ")
		# A dump: a hold of some milliseconds, more than a --status.
		expect_rc 0 "$JEATTACH" -p "$v" --tid "$tid" --dump "$WORK/d.heap" --force
		[ "$(count "signalled $w ")" -gt "$s0" ] || continue # the watcher missed it
		i=0
		while [ "$(count "$w: ")" -le "$r0" ]; do
			i=$((i + 1))
			[ $i -gt "$(slow 100)" ] && fail "$w: its call did not return ($what): $(cat "$v_out")"
			sleep 0.05
		done
		sig=$(grep "^signalled $w " "$v_out" | tail -1)
		ret=$(grep "^$w: " "$v_out" | tail -1)
		if [ "$sig" = "signalled $w held=1" ]; then
			case $ret in
			"$w: $expect handler="*) pass "$w: '$ret' after a signal during the hold ($what, try $try)"; return ;;
			*) fail "$w: '$ret', wanted '$w: $expect' ($what)" ;;
			esac
		fi
		# The signal came as the hold ended: nothing held about it.
	done
	fail "$w: in 10 holds, its watcher never signalled it while held: $(cat "$v_out")"
}
held pauser EINTR "pause() and SIGUSR1 without SA_RESTART"
held reader EINTR "read() and SIGUSR2 without SA_RESTART"
held restart "read 1" "read() and SIGRTMIN with SA_RESTART"
# poll(2) is never restarted after a handler (signal(7)): -ERESTARTNOHAND,
# which arm64 must work out from the call (arch_at_interrupt_stop).
held poller EINTR "poll() and SIGRTMIN+1 with SA_RESTART"
