#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A process whose main thread ended with pthread_exit() (victim_leader) is
# alive: /proc shows its leader as a zombie with empty maps, so everything
# is read through one of its live threads. Status, dump, stats, activation.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim_env ld "MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:10" "$TARGETS/victim_leader"
i=0
while ! grep -q '^State:.*Z' "/proc/$ld/status"; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "the leader did not exit: $(grep State "/proc/$ld/status")"
	sleep 0.05
done
expect_rc 0 "$JEATTACH" -p "$ld" --status --json
[ "$(json_get "$OUT" "j['pid']")" = "$ld" ] || fail "not reported as $ld: $OUT"
expect_rc 0 "$JEATTACH" -p "$ld" --activate --dump "$WORK/ld.heap" --stats --deactivate
grep -q '^heap_v2/' "$WORK/ld.heap" || fail "no profile: $(head -2 "$WORK/ld.heap")"
# jemalloc copies /proc/<pid>/task/<pid>/maps, the ended leader's: empty.
# The profile must hold the process's maps all the same (before: an empty
# MAPPED_LIBRARIES section, exit 0, addresses that named nothing).
sed -n '/^MAPPED_LIBRARIES:/,$p' "$WORK/ld.heap" | grep -q libjemalloc ||
	fail "the profile's maps are empty: $(sed -n '/^MAPPED_LIBRARIES:/,+2p' "$WORK/ld.heap")"
echo "$OUT" | grep -q 'Allocated' || echo "$OUT" | grep -qi 'allocated' || fail "no statistics: $OUT"
finish_victim ld
pass "a process with an exited main thread: status, dump, stats, (de)activation"
