#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Borrow each thread blocked in a syscall (read, epoll_wait(-1),
# nanosleep(1 h), pthread_cond_wait, accept) again and again: none may see
# an EINTR or an early return. Then hammer a busy victim whose threads check
# their heap blocks and floating-point results while we borrow them.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim v "$TARGETS/victim_dyn" -b 0
for role in reader poller sleeper waiter acceptor; do
	tid=$(victim_tid v $role)
	[ -n "$tid" ] || fail "no $role thread"
	for i in 1 2 3; do
		expect_rc 0 "$JEATTACH" -p "$v" --tid "$tid" --status --activate --deactivate
	done
	# The thread is still blocked where it was (state S), not woken.
	grep -q '^State:.*S' /proc/"$v"/task/"$tid"/status || fail "$role thread not asleep"
done
finish_victim v

start_victim busy "$TARGETS/victim_dyn" -b 4
for i in $(seq 1 30); do
	expect_rc 0 "$JEATTACH" -p "$busy" --status --activate --deactivate --timeout 10
done
for role in reader poller; do
	expect_rc 0 "$JEATTACH" -p "$busy" --tid "$(victim_tid busy $role)" --status
done
finish_victim busy

# The same against the statically linked copy (safe points found by symbol).
start_victim sbusy "$TARGETS/victim_static" -b 4
for i in $(seq 1 20); do
	expect_rc 0 "$JEATTACH" -p "$sbusy" --status --activate --deactivate --timeout 10
done
finish_victim sbusy
