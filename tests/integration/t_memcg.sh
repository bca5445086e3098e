#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A dump never charges the target's memory cgroup with the profile (issue
# 29). The profile used to be written into a memfd in the target: shmem,
# charged to the target's cgroup and not reclaimable without swap; a target
# 24 MiB below its limit dumped with a profile of ~60 MB was OOM-killed, and
# jeattach said "the process exited". Now only what is in flight in the
# pipe is charged; a cgroup with less room than a dump may need (4 MiB) is
# refused with the cause. cgroup v2 (memory.max) where its memory
# controller is enabled, else v1 (memory.limit_in_bytes).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
[ "$(id -u)" = 0 ] || skip "not root: cannot make a memory cgroup"

CG=
for m in $(awk '$9 == "cgroup2" { print $5 }' /proc/self/mountinfo); do
	grep -qw memory "$m/cgroup.controllers" 2>/dev/null || continue
	grep -qw memory "$m/cgroup.subtree_control" || echo +memory >"$m/cgroup.subtree_control" 2>/dev/null || continue
	CG="$m/jeattach-test-$$" LIMIT=memory.max USAGE=memory.current
	break
done
if [ -z "$CG" ]; then
	m=$(awk '$9 == "cgroup" && $NF ~ /(^|,)memory(,|$)/ { print $5; exit }' /proc/self/mountinfo)
	[ -n "$m" ] || skip "no memory controller mounted (cgroup v2 or v1)"
	CG="$m/jeattach-test-$$" LIMIT=memory.limit_in_bytes USAGE=memory.usage_in_bytes
fi
mkdir "$CG" 2>/dev/null || skip "cannot make a cgroup under $(dirname "$CG")"
[ -f "$CG/memory.swap.max" ] && echo 0 >"$CG/memory.swap.max"

# The cgroup goes when the test does, after its processes (ours only).
memcg_cleanup() {
	for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	i=0
	while ! rmdir "$CG" 2>/dev/null && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
}
trap 'rc=$?; memcg_cleanup; (exit $rc); cleanup' EXIT

n=$(stacks 131072)
START_SECONDS=60 start_victim_env mc "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0" \
	"$TARGETS/victim_limits" -n "$n" -g "$CG/cgroup.procs"
grep -qx "$mc" "$CG/cgroup.procs" || fail "the victim is not in $CG"
use=$(cat "$CG/$USAGE")
room=$((24 << 20))
echo $((use + room)) >"$CG/$LIMIT" || fail "cannot set $LIMIT"
expect_rc 0 "$JEATTACH" -p "$mc" --dump "$WORK/mc.heap" --json
sleep 0.3
kill -0 "$mc" 2>/dev/null || fail "the victim died: $(cat "$mc_out")"
size=$(stat -c %s "$WORK/mc.heap")
[ "$size" -gt "$room" ] || fail "the profile ($size bytes) fits in the room ($room): not a test"
[ "$(grep -c '^@' "$WORK/mc.heap")" -ge "$n" ] || fail "the profile is not whole"
grep -q '^MAPPED_LIBRARIES:' "$WORK/mc.heap" || fail "no MAPPED_LIBRARIES"
pass "$((size >> 20)) MiB profile out of a cgroup with $((room >> 20)) MiB of room ($(basename "$(dirname "$CG")")/$LIMIT): the target lives"

# Less room than a dump may need: refused, with the cause and where.
use=$(cat "$CG/$USAGE")
echo $((use + (1 << 20))) >"$CG/$LIMIT" || fail "cannot set $LIMIT"
expect_rc 10 "$JEATTACH" -p "$mc" --dump "$WORK/mc2.heap"
echo "$ERR" | grep -q "memory cgroup can take only .*$LIMIT" || fail "1 MiB of room: $ERR"
[ -e "$WORK/mc2.heap" ] && fail "a profile was written"
kill -0 "$mc" 2>/dev/null || fail "the victim died: $(cat "$mc_out")"
# The sampler's pages are charged as its hooks touch them, inside the
# target's own allocations: refused too, before anything is made.
expect_rc 10 "$JEATTACH" -p "$mc" --sample --for 1s --dump "$WORK/mc3.heap"
echo "$ERR" | grep -q "memory cgroup can take only .*the sampler needs" || fail "--sample, 1 MiB of room: $ERR"
[ -e "$WORK/mc3.heap" ] && fail "a profile was written"
echo $((use + (64 << 20))) >"$CG/$LIMIT"
finish_victim mc
pass "1 MiB of room: --dump and --sample refused: $(echo "$ERR" | grep -o 'take only [0-9]* more bytes ([^)]*)')"
