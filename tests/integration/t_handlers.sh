#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The target's own fault handlers survive jeattach's calls (a fault signal
# forced on a thread that blocks it makes the kernel reset its handler to
# SIG_DFL for the whole process), and seccomp filters that kill on creat
# (the syscall glibc's creat() makes on x86_64) or on rt_sigreturn (the end
# of every crash-safe call) never fire.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# handlers NAME: the victim's handler line, asked for now.
handlers() {
	eval "pid=\$$1; out=\$${1}_out"
	n=$(grep -c '^handlers' "$out")
	kill -USR2 "$pid"
	i=0
	while [ "$(grep -c '^handlers' "$out")" = "$n" ]; do
		i=$((i + 1)); [ $i -gt 100 ] && fail "$1 did not answer SIGUSR2"
		sleep 0.05
	done
	grep '^handlers' "$out" | tail -1
}

# The main thread sleeps on its CPU-time clock, a restart block jeattach
# cannot re-make: borrowed through the return trap (SIGSEGV) and
# single-stepped syscalls (SIGTRAP).
start_victim h "$TARGETS/victim_handlers"
expect_rc 0 "$JEATTACH" -p "$h" --tid "$h" --get version --json
[ "$(json_get "$OUT" "j['crash_safe']")" = False ] || fail "not the return trap: $OUT"
expect_rc 0 "$JEATTACH" -p "$h" --tid "$h" --dump "$WORK/h.heap"
l=$(handlers h)
[ "$l" = "handlers SEGV=ours TRAP=ours SYS=ours" ] || fail "the target's handlers were reset: $l"
finish_victim h
pass "fault handlers intact after return-trap calls and single steps"

# The syscall jemalloc opens a dump with: creat where the ABI has it,
# openat on arm64 (victim_handlers.c's DUMP_OPEN_NR).
opener=creat
[ "$(uname -m)" = aarch64 ] && opener=openat
start_victim hc "$TARGETS/victim_handlers" -f c
expect_rc 10 "$JEATTACH" -p "$hc" --dump "$WORK/hc.heap"
echo "$ERR" | grep -q "kill the process on $opener" || fail "$opener filter: $ERR"
finish_victim hc
pass "a filter that kills $opener is foreseen"

start_victim hr "$TARGETS/victim_handlers" -f r
expect_rc 0 "$JEATTACH" -p "$hr" --get version --stats --json
[ "$(json_get "$OUT" "j['crash_safe']")" = False ] || fail "rt_sigreturn would have been made: $OUT"
finish_victim hr
pass "a filter that kills rt_sigreturn: calls without it"

start_victim ht "$TARGETS/victim_handlers" -f t
expect_rc 10 "$JEATTACH" -p "$ht" --dump "$WORK/ht.heap"
l=$(handlers ht)
[ "$l" = "handlers SEGV=ours TRAP=ours SYS=ours" ] || fail "SIGSYS handler reset by a trapped $opener: $l"
finish_victim ht
pass "a trapped $opener answered EPERM, the target's SIGSYS handler intact"
