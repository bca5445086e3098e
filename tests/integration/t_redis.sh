#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A real server: Debian's redis-server links Debian's jemalloc. Profile it
# through jeattach while redis-benchmark keeps it busy on loopback; every
# request must keep succeeding.
. "$top_srcdir/tests/integration/lib.sh"
command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null ||
	skip "redis-server/redis-benchmark not installed (Debian packages redis-server, redis-tools)"
require_ptrace

port=$((20000 + $$ % 20000))
env MALLOC_CONF=prof:true,prof_active:false redis-server --port "$port" --bind 127.0.0.1 \
	--save '' --appendonly no --daemonize no --dir "$WORK" >"$WORK/redis.log" 2>&1 &
rpid=$!
track "$rpid"
i=0
until redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "redis did not start: $(cat "$WORK/redis.log")"
	sleep 0.05
done

redis-benchmark -p "$port" -n 200000 -c 8 -P 4 -t set,get,lpush,lpop -q --csv \
	>"$WORK/bench.csv" 2>"$WORK/bench.err" &
bpid=$!
track "$bpid"
sleep 0.3
expect_rc 0 "$JEATTACH" -p "$rpid" --status --json
[ "$(json_get "$OUT" "j['actions'][0]['config_prof']")" = True ] || fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$rpid" --activate
for n in 1 2 3; do
	sleep 0.2
	expect_rc 0 "$JEATTACH" -p "$rpid" --dump "$WORK/redis.$n.heap" --json
done
expect_rc 0 "$JEATTACH" -p "$rpid" --deactivate
wait "$bpid" || fail "redis-benchmark failed: $(cat "$WORK/bench.err")"
grep -qi error "$WORK/bench.csv" "$WORK/bench.err" && fail "benchmark saw errors"
[ "$(grep -c '^"' "$WORK/bench.csv")" -ge 4 ] || fail "benchmark output: $(cat "$WORK/bench.csv")"
redis-cli -p "$port" ping | grep -q PONG || fail "redis no longer answers"
"$JEHEAP" top -n 5 "$WORK/redis.3.heap" >"$WORK/top.txt" || fail "jeheap cannot read redis' profile"
grep -q '^Total:' "$WORK/top.txt" || fail "$(cat "$WORK/top.txt")"
# Debian's redis-server is stripped: only .dynsym names it. No name may be
# given to an address past its symbol's end (trackingGetTotalPrefixes on
# the whole trunk, before symbol sizes were read).
"$JEHEAP" top --addresses "$WORK/redis.3.heap" >"$WORK/redis.addr" 2>/dev/null || fail "--addresses"
python3 "$top_srcdir/tests/tools/proven.py" --allow-none "$WORK/redis.3.heap" "$WORK/redis.addr" ||
	fail "redis: names past their symbol's extent"
# Statistics against redis' own view of the same jemalloc, on the now idle
# server: INFO's allocator_allocated is stats.allocated after an epoch.
sleep 0.5
expect_rc 0 "$JEATTACH" -p "$rpid" --stats --json
ours=$(json_get "$OUT" "j['actions'][0]['allocated']")
theirs=$(redis-cli -p "$port" info memory | tr -d '\r' | sed -n 's/^allocator_allocated://p')
[ -n "$theirs" ] || fail "redis reports no allocator_allocated"
python3 -c "import sys; a,b=int(sys.argv[1]),int(sys.argv[2]); sys.exit(0 if abs(a-b) <= 0.05*b else 1)" \
	"$ours" "$theirs" || fail "--stats allocated $ours, redis allocator_allocated $theirs"
# --stats=full against MEMORY MALLOC-STATS: both are jemalloc's own report;
# the numbers move, the version and the run-time options do not.
expect_rc 0 "$JEATTACH" -p "$rpid" --stats=full
printf '%s\n' "$OUT" | sed -n '/^___ Begin/,$p' | grep -E '^(Version|  opt\.)' >"$WORK/ours.txt"
redis-cli -p "$port" memory malloc-stats | grep -E '^(Version|  opt\.)' >"$WORK/theirs.txt"
[ -s "$WORK/ours.txt" ] && cmp -s "$WORK/ours.txt" "$WORK/theirs.txt" ||
	fail "--stats=full differs from MEMORY MALLOC-STATS: $(diff "$WORK/ours.txt" "$WORK/theirs.txt" | head -5)"
pass "statistics agree with redis ($ours vs $theirs bytes)"
redis-cli -p "$port" shutdown nosave >/dev/null 2>&1
pass "redis profiled under load: $(tr '\n' ' ' <"$WORK/bench.csv" | cut -c1-200)"
