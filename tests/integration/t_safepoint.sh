#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Safe points: a thread blocked inside jemalloc (holding its dump lock) and
# a thread inside a signal handler are never borrowed; any other thread is;
# threads created and destroyed nonstop do not disturb an attach.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

mkfifo "$WORK/fifo"
start_victim v "$TARGETS/victim_dyn" -b 1 -f "$WORK/fifo" -H -c
infifo=$(victim_tid v infifo)
inhandler=$(victim_tid v inhandler)
expect_rc 9 "$JEATTACH" -p "$v" --tid "$infifo" --status --timeout 0.5
echo "$ERR" | grep -q "thread $infifo has allocator or linker code at frame" || fail "$ERR"
expect_rc 9 "$JEATTACH" -p "$v" --tid "$inhandler" --status --timeout 0.5
echo "$ERR" | grep -q "thread $inhandler is running a signal handler" || fail "$ERR"
for i in $(seq 1 40); do
	expect_rc 0 "$JEATTACH" -p "$v" --status --activate --deactivate --json
	tid_used=$(json_get "$OUT" "j['holds']")
	[ "$tid_used" = 1 ] || fail "$OUT"
done
# Let the blocked dump finish: it completes into the FIFO.
cat "$WORK/fifo" >"$WORK/fifo.out" &
sleep 0.5
grep -q '^heap_v2/' "$WORK/fifo.out" || fail "the victim's own dump did not complete"
finish_victim v
