#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A signal that arrives while a thread is held (its calls run with every
# signal blocked, so it stays pending) must end the thread's interrupted
# call as it would have without jeattach: pause() and a read() whose
# handler lacks SA_RESTART return EINTR once the handler ran; with
# SA_RESTART the read goes on. Released rewound (arm64 always, x86_64 after
# crash-safe calls), the kernel no longer knows a call was interrupted and
# would restart it after the handler: pause() would never return for that
# signal. The victim sends each signal the moment its worker is in a
# tracing stop (victim_sigheld.c).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim v "$TARGETS/victim_sigheld"
# awaits WORKER TEXT: the worker's line, within a few seconds.
awaits() {
	i=0
	while ! grep -q "^$1: " "$v_out"; do
		i=$((i + 1))
		[ $i -gt "$(slow 100)" ] && fail "$1: no return from its call ($3): $(cat "$v_out")"
		sleep 0.05
	done
	l=$(grep "^$1: " "$v_out" | head -1)
	[ "$l" = "$1: $2" ] || fail "$1: '$l', wanted '$1: $2' ($3)"
	[ "$(grep -c "^$1: " "$v_out")" = 1 ] || fail "$1 returned more than once: $(cat "$v_out")"
}
for w in pauser reader restart; do
	tid=$(victim_tid v "$w")
	expect_rc 0 "$JEATTACH" -p "$v" --tid "$tid" --status
done
awaits pauser "EINTR handler=1" "pause() and SIGUSR1 without SA_RESTART"
awaits reader "EINTR handler=1" "read() and SIGUSR2 without SA_RESTART"
awaits restart "read 1 handler=1" "read() and SIGRTMIN with SA_RESTART"
pass "a signal that came during the hold: EINTR as without jeattach, SA_RESTART honoured"
