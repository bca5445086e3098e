#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A thread that cannot stop quickly (the main thread inside vfork() while
# the child runs: state D, deaf to PTRACE_INTERRUPT) gets a short budget;
# jeattach borrows another thread, and the slow one, which stops only once
# the child exits, is let go at once then, not held until jeattach exits.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

vfork_ms() { sed -n 's/^vfork_ms=//p' "$1"; }

# --status: the main thread (tried first) is in vfork for 3 s (times
# TEST_SLOWDOWN, as every bound here).
start_victim vf "$TARGETS/victim_vfork" -s "$(slow 3000)"
t0=$(date +%s%N)
expect_rc 0 "$JEATTACH" -p "$vf" --status --json
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$ms" -lt "$(slow 2500)" ] || fail "--status took $ms ms: the thread in vfork held it up"
pass "--status in $ms ms while the main thread is in vfork"
finish_victim vf

# A vfork longer than --timeout, and jeattach alive 6 s longer (--for): the
# main thread, seized and interrupted, stops when the child exits after 3 s
# and must be let go then (at most a wait's tick later), not when jeattach
# exits. (Before: it stayed frozen until jeattach's exit, ~6.5 s.)
start_victim vf2 "$TARGETS/victim_vfork" -s "$(slow 3000)"
expect_rc 0 "$JEATTACH" -p "$vf2" --timeout "$(slow 1)" --for "$(slow 6)s" --dump "$WORK/vf.heap"
head -1 "$WORK/vf.heap" | grep -q '^heap_v2/' || fail "no profile"
v=$(vfork_ms "$vf2_out")
[ -n "$v" ] || fail "vfork had not returned when jeattach exited"
[ "$v" -lt "$(slow 4000)" ] || fail "the main thread was held up ${v} ms by a $(slow 3000) ms vfork"
pass "vfork returned after $v ms (child: $(slow 3000) ms) while jeattach stayed attached"
finish_victim vf2
