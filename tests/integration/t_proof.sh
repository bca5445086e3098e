#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jeheap names only what it can prove: the program's own frame on top
# (jemalloc's operator new in Debian's stripped library, a static
# jemalloc), every name inside its symbol's extent, binaries checked
# against what jeattach recorded at dump time (rebuilt, stamps removed,
# missing), pprof's diff as pprof computes it, ';' in a name.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
EXACT="MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0"
PROVEN="$top_srcdir/tests/tools/proven.py"
row() { printf '%s\n' "$OUT" | grep -E "$1" | head -1; }
flat() { row "$1" | awk '{print $1}'; }
cum() { row "$1" | awk '{print $4}'; }

# ---- operator new inside Debian's stripped libjemalloc.so.2: jeprof names
# the frames between it and the unwinder malloc_usable_size (the nearest
# export) and leaves them on top; jeheap drops every leading frame of the
# library that defines mallctl.
start_victim_env n "$EXACT" "$TARGETS/victim_new"
expect_rc 0 "$JEATTACH" -p "$n" --dump "$WORK/new.heap"
expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/new.heap"
[ "$(printf '%s\n' "$OUT" | sed -n 2p | awk '{print $6}')" = new_site ] ||
	fail "operator new: the first row is not new_site: $OUT"
[ "$(flat ' new_site$')" = 2000 ] && [ "$(flat ' malloc_site$')" = 1000 ] ||
	fail "operator new / malloc sites: $OUT"
printf '%s\n' "$OUT" | awk 'NR > 1 && $1 > 0' | grep -E 'malloc_usable_size|libjemalloc' &&
	fail "a frame of libjemalloc keeps a flat share: $OUT"
# The program's own functions named like jemalloc's stay: they are not in
# jemalloc.
for f in je_parse backtrace handleOOM; do
	[ "$(flat " $f\$")" = 300 ] || fail "the program's $f was pruned: $OUT"
done
if command -v jeprof >/dev/null; then
	jeprof --text --inuse_objects "$TARGETS/victim_new" "$WORK/new.heap" 2>/dev/null |
		sed -n 2p | grep -q new_site && echo "note: jeprof also puts new_site first here"
fi
# Every name given is inside its symbol: the program's, libc's, ld.so's.
expect_rc 0 "$JEHEAP" top --inuse_objects --addresses "$WORK/new.heap"
printf '%s\n' "$OUT" >"$WORK/new.addr"
python3 "$PROVEN" "$WORK/new.heap" "$WORK/new.addr" || fail "names past their symbol's extent"
# libc's lines come from its compressed debug file (libc6-dbg), inflated
# only as far as these addresses' units: the same lines as eu-addr2line,
# which opens it whole.
libc=$(sed -n 's|.* \(/[^ ]*/libc\.so\.6\)$|\1|p' "$WORK/new.heap" | head -1)
libc_id=$(readelf -n "$libc" 2>/dev/null | sed -n 's/.*Build ID: //p')
if [ "$JEHEAP_HAS_LIBDW" = yes ] && command -v eu-addr2line >/dev/null &&
	[ -f "/usr/lib/debug/.build-id/$(echo "$libc_id" | cut -c1-2)/$(echo "$libc_id" | cut -c3-).debug" ]; then
	python3 "$top_srcdir/tests/tools/addr2line_agrees.py" "$WORK/new.heap" "$WORK/new.addr" libc.so.6 ||
		fail "libc's lines differ from eu-addr2line's"
else
	echo "note: libc6-dbg or eu-addr2line (elfutils) missing, or jeheap without libdw: libc's lines not checked"
fi
finish_victim n
pass "operator new in a stripped libjemalloc: the program's frame on top, names proven"

# ---- jemalloc linked into the program: jeprof shows prof_backtrace_impl
# with the whole flat value; its internal names go, then malloc.
start_victim_env s "$EXACT" "$TARGETS/victim_static" -b 0 -w
expect_rc 0 "$JEATTACH" -p "$s" --dump "$WORK/static.heap"
expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/static.heap"
# victim.c's workload allocates through alloc_block: all of its value flat.
printf '%s\n' "$OUT" | sed -n 2p | awk '$6 == "alloc_block" && $1 == $4 && $1 >= 1110 {ok=1} END {exit !ok}' ||
	fail "static jemalloc: alloc_block is not the first row, all flat: $OUT"
printf '%s\n' "$OUT" | awk 'NR > 1 && $1 > 0' | grep -E ' (je_|prof_|imalloc|[a-z]*alloc)( \(inline\))?$' |
	grep -v ' alloc_block$' &&
	fail "static jemalloc: an allocator frame keeps a flat share: $OUT"
finish_victim s
pass "static jemalloc: the program's frame on top"

# ---- the binary on disk against the dump's stamps
cp "$TARGETS/victim_dyn" "$WORK/victim" || fail "copy"
start_victim_env v "$EXACT" "$WORK/victim" -b 0 -w
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/a.heap" --json
grep -qE "^# jeattach build-id [0-9a-f]{40} $WORK/victim\$" "$WORK/a.heap" ||
	fail "no build id stamp for the program: $(tail -5 "$WORK/a.heap")"
grep -qE '^# jeattach boot-id [0-9a-f-]{36}$' "$WORK/a.heap" || fail "no boot id stamp"
[ "$(json_get "$OUT" "j['actions'][0]['bytes']")" = "$(stat -c %s "$WORK/a.heap")" ] ||
	fail "reported bytes are not the file's size: $OUT"
expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/a.heap"
[ "$(cum ' wl_small$')" = 1000 ] && [ -z "$ERR" ] || fail "before the rebuild: $OUT $ERR"
if command -v jeprof >/dev/null; then
	jeprof --text --inuse_objects "$WORK/victim" "$WORK/a.heap" 2>/dev/null | grep -q ' wl_small$' ||
		fail "jeprof cannot read a stamped profile"
fi
sed '/^# jeattach build-id/d' "$WORK/a.heap" >"$WORK/boot-only.heap"
sed '/^# jeattach/d' "$WORK/a.heap" >"$WORK/plain.heap"
touch -d '1 hour ago' "$WORK/plain.heap"
# A stamp the target wrote itself, in its maps text, before jeattach's
# block: not believed.
awk -v p="$WORK/victim" '{print} /^MAPPED_LIBRARIES:$/ {print "# jeattach build-id 0123456789abcdef " p}' \
	"$WORK/a.heap" >"$WORK/forged.heap"
expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/forged.heap"
[ "$(cum ' wl_small$')" = 1000 ] && [ -z "$ERR" ] || fail "a forged stamp was believed: $OUT $ERR"
# Rebuilt: another program at the path (a new inode, another build id).
cp "$TARGETS/victim_new" "$WORK/victim.new" && mv "$WORK/victim.new" "$WORK/victim" || fail "replace"
for h in a boot-only; do
	expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/$h.heap"
	printf '%s\n' "$ERR" | grep -q "$WORK/victim is not the file that was profiled" ||
		fail "$h: no warning for the rebuilt binary: $ERR"
	printf '%s\n' "$OUT" | grep -qE ' (wl_small|new_site|main)$' &&
		fail "$h: names taken from the rebuilt binary: $OUT"
done
# A profile jemalloc wrote itself (no stamps), older than the binary.
expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/plain.heap"
printf '%s\n' "$ERR" | grep -q "$WORK/victim was written after the profile" ||
	fail "no warning for a binary newer than the profile: $ERR"
# Missing: one warning for it, however many addresses it had.
rm -f "$WORK/victim"
expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/a.heap"
[ "$(printf '%s\n' "$ERR" | grep -c "$WORK/victim: no such file here")" = 1 ] ||
	fail "missing binary: $ERR"
# ...saying what gives names: a symbolized dump, or where the files are.
printf '%s\n' "$ERR" | grep -qF "$WORK/victim: no such file here; its addresses are shown raw; dump with jeattach --symbolize (names resolved where the process runs), or give --root DIR where its files are (/proc/PID/root: a running container's)" ||
	fail "missing binary, no fix: $ERR"
pass "rebuilt, unstamped and missing binaries are named, and never silently used"

# ---- pprof: the base marked as pprof -diff_base marks it
start_victim_env idle "$EXACT" "$TARGETS/victim_dyn" -b 0
expect_rc 0 "$JEATTACH" -p "$idle" --dump "$WORK/idle.heap"
finish_victim idle
if command -v go >/dev/null; then
	"$JEHEAP" pprof -o "$WORK/a.pb.gz" "$WORK/a.heap" 2>/dev/null &&
		"$JEHEAP" pprof -o "$WORK/idle.pb.gz" "$WORK/idle.heap" 2>/dev/null &&
		"$JEHEAP" pprof --base "$WORK/idle.heap" -o "$WORK/d.pb.gz" "$WORK/a.heap" 2>/dev/null ||
		fail "jeheap pprof"
	total() { go tool pprof -top "$@" 2>&1 | grep -E '^Showing nodes'; }
	ours=$(total "$WORK/d.pb.gz") theirs=$(total -diff_base "$WORK/idle.pb.gz" "$WORK/a.pb.gz")
	[ -n "$ours" ] && [ "$ours" = "$theirs" ] || fail "pprof diff: '$ours' vs pprof's '$theirs'"
	id=$(readelf -n "$TARGETS/victim_dyn" | sed -n 's/.*Build ID: //p')
	go tool pprof -raw "$WORK/idle.pb.gz" 2>/dev/null | grep -q " $id " ||
		fail "no build id in the mappings"
	go tool pprof -tags "$WORK/idle.pb.gz" 2>&1 | grep -qE '^ *thread: Total' ||
		fail "no thread label: $(go tool pprof -tags "$WORK/idle.pb.gz" 2>&1)"
	pass "pprof: diff as pprof's -diff_base, build ids, thread labels"
else
	echo "note: go not installed; pprof's diff not checked"
fi

# ---- pprof's thread samples add up to the profile's total, also where
# un-sampling each thread's line on its own would not (it is not linear)
# and where the threads' lines do not add up to their stack's (a dump taken
# while the process allocated).
printf '%s\n' 'heap_v2/524288' '  t*: 1010: 100016000 [0: 0]' '  t1: 1000: 16000 [0: 0]' \
	'  t2: 10: 100000000 [0: 0]' '@ 0x1000 0x2000' '  t*: 1010: 100016000 [0: 0]' \
	'  t1: 1000: 16000 [0: 0]' '  t2: 10: 110000000 [0: 0]' '' 'MAPPED_LIBRARIES:' >"$WORK/mix.heap"
expect_rc 0 "$JEHEAP" json "$WORK/mix.heap"
want=$(json_get "$OUT" "round(j['total'])")
if command -v go >/dev/null; then
	"$JEHEAP" pprof -o "$WORK/mix.pb.gz" "$WORK/mix.heap" || fail "pprof of mix.heap"
	got=$(go tool pprof -top -unit=B "$WORK/mix.pb.gz" 2>&1 | sed -n 's/.* of \([0-9]*\)B total.*/\1/p')
	[ -n "$got" ] && [ $(( got > want ? got - want : want - got )) -le 2 ] ||
		fail "pprof total $got, jeheap's $want: $(go tool pprof -top -unit=B "$WORK/mix.pb.gz" 2>&1)"
	pass "pprof's per-thread samples add up to the total"
fi

# ---- a ';' in a name does not split the frame in folded stacks
printf '%s\n' '--- symbol' 'binary=x' '0x0000000000001000 semi;colon' \
	'0x0000000000000fff caller' '---' '--- heap' 'heap_v2/1' '  t*: 1: 100 [0: 0]' \
	'@ 0x1000 0x1000' '  t*: 1: 100 [0: 0]' '' 'MAPPED_LIBRARIES:' >"$WORK/semi.heap"
expect_rc 0 "$JEHEAP" collapsed "$WORK/semi.heap"
printf '%s\n' "$OUT" | grep -qE '^caller;semi%3Bcolon [0-9]+$' || fail "collapsed: $OUT"
pass "';' escaped in collapsed stacks"
