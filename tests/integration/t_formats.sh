#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jeheap's other views and writers on a profile with known contents (every
# allocation sampled): --lines/--addresses against jeprof, inlined frames,
# pprof read back by go tool pprof, dot rendered by graphviz, differential
# flame graphs, several profiles; and where symbols come from: a
# .gnu_debuglink debug file, MiniDebugInfo, and a binary replaced on disk
# after the target mapped it (--symbolize reads /proc/PID/map_files).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

EXACT="MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0"
# The victim runs from a copy, so that the copy can be replaced below.
cp "$TARGETS/victim_dyn" "$WORK/victim" || fail "copy"
start_victim_env v "$EXACT" "$WORK/victim" -b 0 -w
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/a.heap"
start_victim_env idle "$EXACT" "$WORK/victim" -b 0
expect_rc 0 "$JEATTACH" -p "$idle" --dump "$WORK/idle.heap"
finish_victim idle
row() { printf '%s\n' "$OUT" | grep -E "$1" | head -1; }
objs() { row "$1" | awk '{print $4}'; }

# ---- inlined frames and lines (need DWARF: the victim is built with -g)
if [ "$JEHEAP_HAS_LIBDW" = yes ]; then
	expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/a.heap"
	[ "$(objs ' wl_inlined \(inline\)$')" = 20 ] || fail "inline frame: $(row wl_inlined)"
	expect_rc 0 "$JEHEAP" top --inuse_objects --lines "$WORK/a.heap"
	row ' wl_small /.*victim\.c:[0-9]+' | grep -q . || fail "--lines: $OUT"
	[ "$(objs ' wl_inlined \(inline\) /.*victim\.c:[0-9]+$')" = 20 ] ||
		fail "--lines inline: $(row wl_inlined)"
	expect_rc 0 "$JEHEAP" top --inuse_objects --addresses "$WORK/a.heap"
	row ' [0-9a-f]{16} wl_small /.*victim\.c:[0-9]+' | grep -q . || fail "--addresses: $OUT"
	expect_rc 0 "$JEHEAP" json --lines "$WORK/a.heap"
	[ "$(json_get "$OUT" "j['rows']")" = lines ] || fail "json rows: $OUT"
	# The program's rows are jeprof's (it runs addr2line -i).
	if command -v jeprof >/dev/null && command -v addr2line >/dev/null; then
		jeprof --text --inuse_objects "$WORK/victim" "$WORK/a.heap" >"$WORK/jeprof0.txt" 2>/dev/null
		X=$(jeprof_exclude "$WORK/jeprof0.txt")
		for mode in functions lines addresses; do
			jeprof --"$mode" --text --inuse_objects ${X:+"$X"} "$WORK/victim" "$WORK/a.heap" 2>/dev/null |
				grep -E ' (alloc_block|wl_[a-z]+|wl_inlined \(inline\))( |$)' >"$WORK/jeprof.txt"
			"$JEHEAP" top --"$mode" --inuse_objects "$WORK/a.heap" |
				grep -E ' (alloc_block|wl_[a-z]+|wl_inlined \(inline\))( |$)' >"$WORK/jeheap.txt"
			[ -s "$WORK/jeprof.txt" ] || fail "jeprof --$mode printed no program rows"
			diff "$WORK/jeprof.txt" "$WORK/jeheap.txt" >"$WORK/diff" ||
				fail "--$mode differs from jeprof: $(cat "$WORK/diff")"
		done
		pass "--functions, --lines, --addresses: the program's rows equal jeprof's"
	fi
	pass "inlined frames and lines from DWARF"
else
	echo "note: libjeheap built without libdw: no lines, no inlined frames to test"
fi

# ---- several profiles are added
expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/a.heap"
one=$(objs ' wl_small$')
expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/a.heap" "$WORK/a.heap"
[ "$(objs ' wl_small$')" = $((2 * one)) ] || fail "two profiles: $(row ' wl_small$')"
pass "several profiles"

# ---- pprof, read back by Go's own pprof
expect_rc 0 "$JEHEAP" pprof --inuse_objects -o "$WORK/a.pb.gz" "$WORK/a.heap"
[ "$(od -An -tx1 -N2 "$WORK/a.pb.gz" | tr -d ' ')" = 1f8b ] || fail "pprof output is not gzip"
if command -v go >/dev/null; then
	export HOME="$WORK" GOCACHE="$WORK/gocache" GOFLAGS=-mod=mod GOTOOLCHAIN=local
	go tool pprof -top -nodecount=1000 "$WORK/a.pb.gz" >"$WORK/pp.txt" 2>"$WORK/pp.err" ||
		fail "go tool pprof: $(cat "$WORK/pp.err")"
	grep -q '^Type: inuse_objects$' "$WORK/pp.txt" || fail "default sample type: $(head -5 "$WORK/pp.txt")"
	expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/a.heap"
	total=$(printf '%s\n' "$OUT" | sed -n 's/^Total: \([0-9]*\) objects/\1/p')
	grep -q "of $total total" "$WORK/pp.txt" || fail "pprof total is not $total: $(head -5 "$WORK/pp.txt")"
	pp() { awk -v f="$1" '$NF == f {print $4}' "$WORK/pp.txt"; }
	[ "$(pp wl_small)" = 1000 ] || fail "pprof wl_small cum: $(grep wl_small "$WORK/pp.txt")"
	[ "$(pp wl_rec)" = 100 ] || fail "pprof wl_rec cum: $(grep wl_rec "$WORK/pp.txt")"
	grep -qE ' (malloc|calloc)$' "$WORK/pp.txt" && fail "allocator frames in pprof output"
	if [ "$JEHEAP_HAS_LIBDW" = yes ]; then
		# (pprof itself marks a function it sees inlined: "wl_inlined (inline)")
		[ "$(awk '$(NF-1) == "wl_inlined" && $NF == "(inline)" {print $4}' "$WORK/pp.txt")" = 20 ] ||
			fail "pprof inlined frame: $(grep wl_inl "$WORK/pp.txt")"
		go tool pprof -top -lines "$WORK/a.pb.gz" 2>/dev/null | grep -qE 'wl_small .*victim\.c:[0-9]+' ||
			fail "pprof has no line numbers"
	fi
	# A base is written as negative samples: a profile minus itself sums to
	# nothing (pprof's "total" adds absolute values).
	expect_rc 0 "$JEHEAP" pprof --base "$WORK/a.heap" -o "$WORK/d.pb.gz" "$WORK/a.heap"
	go tool pprof -top "$WORK/d.pb.gz" 2>/dev/null | grep -q 'accounting for 0, ' ||
		fail "pprof self-diff is not empty: $(go tool pprof -top "$WORK/d.pb.gz" 2>&1 | head -5)"
	pass "pprof read by go tool pprof"
else
	echo "note: no go (Debian's golang-go) to read pprof output back; only its gzip magic tested"
fi
# Binary output is not written to a terminal.
if command -v script >/dev/null; then
	script -qec "$JEHEAP pprof $WORK/a.heap" /dev/null >"$WORK/tty.txt" 2>&1
	grep -q 'give -o FILE or a pipe' "$WORK/tty.txt" || fail "pprof to a terminal: $(cat "$WORK/tty.txt")"
fi

# ---- dot, rendered by graphviz
expect_rc 0 "$JEHEAP" dot --inuse_objects "$WORK/a.heap"
printf '%s\n' "$OUT" | grep -qE 'label="wl_small\\n0 \(0\.0%\)\\rof 1000 ' || fail "dot node: $OUT"
printf '%s\n' "$OUT" | grep -qE '^N[0-9]+ -> N[0-9]+ \[label=" 1000"' || fail "dot edge: $OUT"
expect_rc 0 "$JEHEAP" dot -n 3 "$WORK/a.heap"
[ "$(printf '%s\n' "$OUT" | grep -c '^N[0-9]* \[')" = 3 ] || fail "dot -n 3: $OUT"
if command -v dot >/dev/null; then
	"$JEHEAP" dot "$WORK/a.heap" | dot -Tsvg >"$WORK/g.svg" 2>"$WORK/dot.err" || fail "graphviz: $(cat "$WORK/dot.err")"
	grep -q 'wl_small' "$WORK/g.svg" || fail "rendered graph has no wl_small"
fi
pass "dot"

# ---- differential flame graph: the workload grew since the idle profile
expect_rc 0 "$JEHEAP" flame --inuse_objects --base "$WORK/idle.heap" -o "$WORK/d.svg" "$WORK/a.heap"
python3 - "$WORK/d.svg" <<'PY' || fail "differential flame graph"
import re, sys, xml.etree.ElementTree as E
S = "{http://www.w3.org/2000/svg}"
frames = {}
for g in E.parse(sys.argv[1]).getroot().iter(S + "g"):
    t, r = g.find(S + "title"), g.find(S + "rect")
    if t is not None and r is not None:
        frames[t.text.split(" (")[0]] = (t.text, r.get("fill"))
t, fill = frames["wl_small"]
assert "+1000 objects since the base, +0 objects in itself" in t, t
assert fill == "rgb(255,255,255)", fill   # colour is a frame's own change: none
t, fill = frames["alloc_block"]
assert "since the base" in t, t
r, g_, b = map(int, re.findall(r"\d+", fill))
assert r == 255 and g_ < 255 and b < 255, fill          # the leaf grew: red
PY
pass "differential flame graph"

# ---- symbols from a .gnu_debuglink debug file, and from MiniDebugInfo
if command -v objcopy >/dev/null && command -v nm >/dev/null && command -v xz >/dev/null; then
	bin=$(sed -n 's|.* \(/[^ ]*/victim\)$|\1|p' "$WORK/a.heap" | head -1)
	dir=$(dirname "$bin")
	root=$WORK/root1
	mkdir -p "$root$dir/.debug"
	objcopy --only-keep-debug "$bin" "$root$dir/.debug/victim.dbg"
	objcopy --strip-all --remove-section=.note.gnu.build-id \
		--add-gnu-debuglink="$root$dir/.debug/victim.dbg" "$bin" "$root$bin"
	expect_rc 0 "$JEHEAP" top --inuse_objects --root "$root" "$WORK/a.heap"
	[ "$(objs ' wl_small$')" = 1000 ] || fail "debuglink not followed: $OUT"
	# A debug file whose CRC does not match the link is not believed.
	printf 'stale' >>"$root$dir/.debug/victim.dbg"
	expect_rc 0 "$JEHEAP" top --inuse_objects --root "$root" "$WORK/a.heap"
	printf '%s\n' "$OUT" | grep -q ' wl_small$' && fail "a stale debug file was used"
	pass ".gnu_debuglink"

	# MiniDebugInfo as gdb's manual builds it: the functions .dynsym lacks,
	# in an xz-compressed ELF in .gnu_debugdata.
	root=$WORK/root2
	mkdir -p "$root$dir"
	nm -D "$bin" --format=posix --defined-only | awk '{print $1}' | sort >"$WORK/dynsyms"
	nm "$bin" --format=posix --defined-only | awk '$2 ~ /^[Tt]$/ {print $1}' | sort >"$WORK/funcsyms"
	comm -13 "$WORK/dynsyms" "$WORK/funcsyms" >"$WORK/keep"
	objcopy --only-keep-debug "$bin" "$WORK/full.debug"
	objcopy -S --remove-section .gdb_index --remove-section .comment \
		--keep-symbols="$WORK/keep" "$WORK/full.debug" "$WORK/mini"
	xz -f "$WORK/mini"
	objcopy --strip-all --remove-section=.note.gnu.build-id --remove-section=.gnu_debuglink \
		--add-section .gnu_debugdata="$WORK/mini.xz" "$bin" "$root$bin"
	readelf -S "$root$bin" | grep -q " \.symtab " && fail "the MiniDebugInfo binary still has a .symtab"
	expect_rc 0 "$JEHEAP" top --inuse_objects --root "$root" "$WORK/a.heap"
	[ "$(objs ' wl_small$')" = 1000 ] || fail "MiniDebugInfo not read: $OUT"
	pass "MiniDebugInfo"
else
	echo "note: no objcopy/nm/xz: debuglink and MiniDebugInfo not tested"
fi

# ---- --symbolize names from the binary the target mapped, even after the
# file on disk was replaced (here by a stripped copy: no names at all).
objcopy --strip-all "$WORK/victim" "$WORK/victim.new" && mv "$WORK/victim.new" "$WORK/victim" ||
	fail "replace the binary"
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/sym.heap" --symbolize
grep -qE '^0x[0-9a-f]{16} wl_small$' "$WORK/sym.heap" ||
	fail "--symbolize read the replaced file: $(grep -c . "$WORK/sym.heap") lines"
if [ "$JEHEAP_HAS_LIBDW" = yes ]; then
	grep -qE '^0x[0-9a-f]{16} main--wl_inlined$' "$WORK/sym.heap" || fail "no inline chain in the symbol section"
	# jeprof reads the inline chain as jeheap does.
	if command -v jeprof >/dev/null; then
		jeprof --text --inuse_objects "$WORK/sym.heap" 2>/dev/null | grep -q ' 20 .* wl_inlined (inline)$' ||
			fail "jeprof does not see the inline frame"
	fi
fi
# ... and after it was deleted.
rm -f "$WORK/victim"
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/sym2.heap" --symbolize
grep -qE '^0x[0-9a-f]{16} wl_small$' "$WORK/sym2.heap" || fail "--symbolize lost a deleted binary"
pass "--symbolize through /proc/PID/map_files (binary replaced, then deleted)"
finish_victim v
