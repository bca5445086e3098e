#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Soak: many consecutive operations (status, activate, dump, stats,
# deactivate) against one idle victim; jemalloc's stats.allocated, its
# arenas, its descriptors and its resident memory beyond what jemalloc
# itself holds must not grow, and it must see no EINTR. (jemalloc's own
# resident pages may: each dump's temporary memory, freed, stays dirty in
# an idle process whose decay never gets a tick, one page at least per
# size class; with Debian's arm64 build's 64 KiB pages, about 1 MB over
# 250 operations.) SOAK_OPS sets how many (default 250 in make check; the issue's
# full run is SOAK_OPS=10000, figures in doc/robustness.md).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
OPS=${SOAK_OPS:-250}

start_victim v "$TARGETS/victim_dyn" -b 0 -w
rss() { awk '/^VmRSS:/ { print $2 }' /proc/"$v"/status; }
# Each mapping's resident kB ("start-end path kB"), to name what grew.
smaps_rss() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { m = $1 " " ($6 == "" ? "[anon]" : $6) }
	     /^Rss:/ { print m, $2 }' /proc/"$v"/smaps
}
grown() {
	awk 'NR == FNR { was[$1] = $3; next }
	     $3 > was[$1] + 0 { printf "%s %s +%d kB; ", $1, $2, $3 - was[$1] }' "$1" "$2"
}
# jemalloc's stats.allocated, stats.resident (in kB) and arenas.narenas.
jstats() {
	"$JEATTACH" -p "$v" --stats --json | python3 -c '
import json, sys
a = json.load(sys.stdin)["actions"][0]
print(a["allocated"], a["resident"] // 1024, a["narenas"])'
}
op() {
	case $(($1 % 5)) in
	0) "$JEATTACH" -p "$v" --status -q ;;
	1) "$JEATTACH" -p "$v" --activate -q ;;
	2) "$JEATTACH" -p "$v" --dump "$WORK/s.heap" --force -q ;;
	3) "$JEATTACH" -p "$v" --stats -q ;;
	4) "$JEATTACH" -p "$v" --deactivate -q ;;
	esac
}
# Warm up: jemalloc creates its per-thread profiling and ctl state once.
i=0
while [ $i -lt 10 ]; do op $i || fail "warm-up op $i"; i=$((i + 1)); done
smaps_rss >"$WORK/smaps0"
rss0=$(rss)
set -- $(jstats)
[ $# = 3 ] || fail "no stats: $*"
alloc0=$1 res0=$2 arenas0=$3 fds0=$(ls /proc/"$v"/fd | wc -l) maps0=$(scratch_maps "$v")
t0=$(date +%s)
i=0
while [ $i -lt "$OPS" ]; do
	op $i || fail "op $i failed"
	i=$((i + 1))
done
t1=$(date +%s)
smaps_rss >"$WORK/smaps1"
rss1=$(rss)
set -- $(jstats)
[ $# = 3 ] || fail "no stats: $*"
alloc1=$1 res1=$2 arenas1=$3 fds1=$(ls /proc/"$v"/fd | wc -l) maps1=$(scratch_maps "$v")
[ "$maps1" = "$maps0" ] || fail "scratch mappings left: [$maps1]"
[ "$fds1" = "$fds0" ] || fail "descriptors $fds0 -> $fds1"
[ $((alloc1 - alloc0)) -le 65536 ] || fail "stats.allocated grew $alloc0 -> $alloc1"
[ "$arenas1" = "$arenas0" ] || fail "arenas $arenas0 -> $arenas1"
jem=$((res1 - res0)); [ $jem -gt 0 ] || jem=0
[ $((rss1 - rss0 - jem)) -le 1024 ] ||
	fail "resident memory grew ${rss0} kB -> ${rss1} kB, jemalloc's own by $jem kB: $(grown "$WORK/smaps0" "$WORK/smaps1")"
finish_victim v
pass "$OPS operations in $((t1 - t0)) s: RSS ${rss0} -> ${rss1} kB (jemalloc's resident +$jem kB), allocated $alloc0 -> $alloc1, fds $fds0 -> $fds1"
