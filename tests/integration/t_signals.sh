#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Signals that arrive while a thread is borrowed are delivered afterwards,
# none lost: a stream of queued real-time signals runs against a victim
# while jeattach borrows its signal-handling thread again and again; the
# victim must count every one sent.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim v "$TARGETS/victim_dyn" -b 1
cat >"$WORK/send.py" <<'PY'
import os, signal, sys, time
pid, n = int(sys.argv[1]), int(sys.argv[2])
for i in range(n):
    os.kill(pid, signal.SIGRTMIN + 1)
    time.sleep(0.0005)
print(n)
PY
N=3000
python3 "$WORK/send.py" "$v" $N >"$WORK/sent" &
spid=$!
runs=0
while kill -0 "$spid" 2>/dev/null; do
	expect_rc 0 "$JEATTACH" -p "$v" --tid "$v" --status --activate --deactivate
	runs=$((runs + 1))
done
wait "$spid" || fail "the sender failed"
[ "$(cat "$WORK/sent")" = $N ] || fail "sender: $(cat "$WORK/sent")"
sleep 0.3
finish_victim v
grep -q "rt=$N\$" "$v_out" || fail "signals lost: sent $N, $(grep report "$v_out")"
pass "$N queued signals during $runs borrows of the receiving thread: none lost"
