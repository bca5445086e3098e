#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# make demo: a jemalloc workload, profiled from outside by jeattach, its
# profile analysed by jeheap. Everything shown is computed live.
set -eu
b=${1:?usage: demo.sh BUILDDIR}
work=$(mktemp -d /tmp/jeattach-demo.XXXXXX)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
say() { printf '\n\033[1m$ %s\033[0m\n' "$*"; }

MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:12 \
	"$b/tests/targets/victim_dyn" -b 2 >"$work/victim.out" &
pid=$!
while ! grep -q ready "$work/victim.out" 2>/dev/null; do sleep 0.05; done
echo "A workload (pid $pid) runs with MALLOC_CONF=prof:true,prof_active:false:"
echo "profiling is possible but off, costing nothing."

say "jeattach -p $pid --status"
"$b/src/jeattach" -p "$pid" --status
say "jeattach -p $pid --activate -v"
"$b/src/jeattach" -p "$pid" --activate -v
echo "(sampling for 3 seconds; the process is not held meanwhile)"
sleep 3
say "jeattach -p $pid --dump $work/demo.heap --deactivate --json"
"$b/src/jeattach" -p "$pid" --dump "$work/demo.heap" --deactivate --json
say "jeheap top -n 8 demo.heap"
"$b/jeheap/jeheap" top -n 8 "$work/demo.heap"
kill -USR1 "$pid"
wait "$pid" || true
say "the workload checked itself (EINTRs, early wake-ups, heap and FP corruption):"
grep report "$work/victim.out"
