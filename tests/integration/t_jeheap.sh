#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jeheap on a profile with known contents (every allocation sampled):
# collapsed stacks, --base, --focus, --ignore, and the errors.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

EXACT="MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0"
start_victim_env v "$EXACT" "$TARGETS/victim_dyn" -b 0 -w
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/a.heap" --dump "$WORK/b.heap"
finish_victim v

expect_rc 0 "$JEHEAP" collapsed "$WORK/a.heap"
line() { printf '%s\n' "$OUT" | grep -E "$1" | head -1; }
echo "$(line ';wl_small;alloc_block ')" | grep -qE ';main;wl_small;alloc_block 64000$' ||
	fail "wl_small: $(line wl_small)"
# (100000 bytes fall in jemalloc's 114688-byte size class: it records usable sizes.)
echo "$(line ';wl_big;alloc_block ')" | grep -qE ';main;wl_big;alloc_block 1146880$' ||
	fail "wl_big: $(line wl_big)"
# (100000 bytes are a 114688-byte size class: jemalloc records usable sizes.)
# Recursion is kept in a flame graph: 5 nested wl_rec frames.
echo "$(line 'wl_rec;alloc_block ')" | grep -qE ';main;wl_rec;wl_rec;wl_rec;wl_rec;wl_rec;alloc_block 25600$' ||
	fail "wl_rec: $(line wl_rec)"
printf '%s\n' "$OUT" | grep -q 'malloc' && fail "allocator frames not pruned: $(line malloc)"
printf '%s\n' "$OUT" | sort -c || fail "not sorted"
pass "collapsed"

# A diff of a profile against itself is empty; against another, both columns.
expect_rc 0 "$JEHEAP" top --base "$WORK/a.heap" "$WORK/a.heap"
[ "$OUT" = "Total: 0.0 MB" ] || fail "self-diff: $OUT"
expect_rc 0 "$JEHEAP" collapsed --base "$WORK/a.heap" "$WORK/b.heap"
echo "$(line ';wl_small;alloc_block ')" | grep -qE ' 64000 64000$' || fail "difffolded: $(line wl_small)"
pass "--base"

expect_rc 0 "$JEHEAP" top --inuse_objects --focus '^wl_big$' "$WORK/a.heap"
[ "$(printf '%s\n' "$OUT" | head -1)" = "Total: 10 objects" ] || fail "focus: $OUT"
expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/a.heap"
all=$(printf '%s\n' "$OUT" | sed -n 's/^Total: \([0-9]*\) objects/\1/p')
expect_rc 0 "$JEHEAP" top --inuse_objects --ignore '^wl_(big|small)$' "$WORK/a.heap"
[ "$(printf '%s\n' "$OUT" | head -1)" = "Total: $((all - 1010)) objects" ] || fail "ignore: $OUT"
pass "--focus, --ignore"

# json: the same numbers as top, un-rounded.
expect_rc 0 "$JEHEAP" json --inuse_objects "$WORK/a.heap"
[ "$(json_get "$OUT" "j['unit']")" = objects ] || fail "$OUT"
[ "$(json_get "$OUT" "int(round(j['total']))")" = "$all" ] || fail "json total: $OUT"
[ "$(json_get "$OUT" "[round(f['cum']) for f in j['functions'] if f['name'] == 'wl_small'][0]")" = 1000 ] ||
	fail "json wl_small: $OUT"
pass "json"

# flame: a well-formed SVG whose frames carry names and values.
expect_rc 0 "$JEHEAP" flame --inuse_objects -o "$WORK/f.svg" "$WORK/a.heap"
python3 - "$WORK/f.svg" <<'PY' || fail "flame graph"
import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
ns = {"s": "http://www.w3.org/2000/svg"}
titles = [t.text for t in root.iter("{http://www.w3.org/2000/svg}title")]
assert root.tag.endswith("svg"), root.tag
assert any(t.startswith("wl_small (1000 objects") for t in titles), titles[:20]
assert any(t.startswith("all (") for t in titles), titles[:5]
assert root.find("s:script", ns) is not None, "no zoom script"
PY
pass "flame"

# --thread: the workload ran in jemalloc's thread 0 (the main thread):
# 1000 + 10 + 100 objects and, with DWARF, the 20 of "wl_inlined (inline)".
expect_rc 0 "$JEHEAP" top --inuse_objects --thread 0 --focus '^wl_' "$WORK/a.heap"
want=1110
[ "$JEHEAP_HAS_LIBDW" = yes ] && want=1130
[ "$(printf '%s\n' "$OUT" | head -1)" = "Total: $want objects" ] || fail "thread 0: $OUT"
expect_rc 0 "$JEHEAP" top --inuse_objects --thread 12345 "$WORK/a.heap"
[ "$OUT" = "Total: 0 objects" ] || fail "no such thread: $OUT"
expect_rc 2 "$JEHEAP" top --thread x "$WORK/a.heap"
pass "--thread"

# A stripped binary under --root, its symbols in a build-id debug file
# (/usr/lib/debug/.build-id/xx/yyyy.debug, as debug packages install them).
if command -v objcopy >/dev/null && command -v readelf >/dev/null; then
	bin=$(sed -n 's|.* \(/[^ ]*victim_dyn\)$|\1|p' "$WORK/a.heap" | head -1)
	[ -n "$bin" ] || fail "no victim_dyn in the profile's maps"
	root=$WORK/root
	mkdir -p "$root$(dirname "$bin")"
	objcopy --strip-all "$bin" "$root$bin"
	expect_rc 0 "$JEHEAP" top --inuse_objects --root "$root" "$WORK/a.heap"
	printf '%s\n' "$OUT" | grep -q ' wl_small$' && fail "a stripped binary gave names"
	id=$(readelf -n "$bin" | sed -n 's/.*Build ID: *//p')
	[ -n "$id" ] || fail "no build id"
	d=$root/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)
	mkdir -p "$d"
	objcopy --only-keep-debug "$bin" "$d/$(echo "$id" | cut -c3-).debug"
	expect_rc 0 "$JEHEAP" top --inuse_objects --root "$root" "$WORK/a.heap"
	printf '%s\n' "$OUT" | grep -q '^ *0 .* 1000 .* wl_small$' || fail "debug file not used: $OUT"
	pass "build-id debug files"

	# The same binary without .debug_aranges, as clang and rustc build
	# them (libdw's dwarf_addrdie then finds no unit): the inlined frame
	# and the lines still come, from the units' own ranges.
	if [ "$JEHEAP_HAS_LIBDW" = yes ]; then
		root=$WORK/noaranges
		mkdir -p "$root$(dirname "$bin")"
		objcopy --remove-section=.debug_aranges "$bin" "$root$bin"
		readelf -S "$root$bin" | grep -q '\.debug_aranges' && fail "objcopy left .debug_aranges"
		expect_rc 0 "$JEHEAP" top --inuse_objects --thread 0 --focus '^wl_' --root "$root" "$WORK/a.heap"
		[ "$(printf '%s\n' "$OUT" | head -1)" = "Total: 1130 objects" ] || fail "no aranges: $OUT"
		printf '%s\n' "$OUT" | grep -q ' 20 .* wl_inlined (inline)$' || fail "no inlined frame: $OUT"
		expect_rc 0 "$JEHEAP" top --inuse_objects --lines --root "$root" "$WORK/a.heap"
		printf '%s\n' "$OUT" | grep -q 'victim\.c:[0-9]' || fail "no lines without aranges: $OUT"
		pass "a binary without .debug_aranges (clang, rustc): inlined frames and lines"
	fi
else
	echo "note: no objcopy/readelf (binutils); debug-file case not tested"
fi

expect_rc 2 "$JEHEAP" top --focus '(' "$WORK/a.heap"
printf 'heap_v2/1\n@ 0x1\n  t*: 1: x [0: 0]\n' >"$WORK/bad.heap"
expect_rc 3 "$JEHEAP" top "$WORK/bad.heap"
echo "$ERR" | grep -q "bad.heap:3:10: expected a count" || fail "$ERR"
expect_rc 3 "$JEHEAP" collapsed "$WORK/none.heap"
expect_rc 4 "$JEHEAP" top -o /nonexistent/out.txt "$WORK/a.heap"
pass "errors"

# A crafted profile whose one stack is 100,000 frames deep: the flame graph
# is drawn without recursing once per frame (that overflowed the C stack).
python3 - "$WORK/deep.heap" <<'PY'
import sys
n = 100000
with open(sys.argv[1], "w") as f:
    f.write("heap_v2/524288\n  t*: 1: 4096 [0: 0]\n  t0: 1: 4096 [0: 0]\n")
    f.write("@ " + " ".join(hex(0x100000 + 16 * i) for i in range(n)) + "\n")
    f.write("  t*: 1: 4096 [0: 0]\n  t0: 1: 4096 [0: 0]\n\nMAPPED_LIBRARIES:\n")
PY
"$JEHEAP" flame -o "$WORK/deep.svg" "$WORK/deep.heap" || fail "jeheap flame on a 100,000-frame stack: exit $?"
[ "$(grep -c '<g class="f"' "$WORK/deep.svg")" -gt 50000 ] || fail "the deep stack was not drawn"
pass "a 100,000-frame stack drawn"

# A profile whose maps name 80,000 distinct files (the target's maps are its
# choice): reading and symbolizing are not quadratic in them (27 s before;
# the bound is generous, it tells quadratic from linear).
python3 - "$WORK/wide.heap" <<'PY'
import sys
n = 80000
with open(sys.argv[1], "w") as f:
    f.write("heap_v2/524288\n  t*: 1000: 4096000 [0: 0]\n")
    for i in range(0, n, 80):
        f.write(f"@ {hex(0x10000000 + i * 0x10000 + 0x10)}\n  t*: 1: 4096 [0: 0]\n")
    f.write("\nMAPPED_LIBRARIES:\n")
    for i in range(n):
        s = 0x10000000 + i * 0x10000
        f.write(f"{s:x}-{s + 0x10000:x} r-xp 00000000 fe:00 {i + 1} /nonexistent/lib{i}.so\n")
PY
t0=$(date +%s%N)
"$JEHEAP" top "$WORK/wide.heap" >/dev/null || fail "jeheap top on 80,000 mappings: exit $?"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$ms" -lt 10000 ] || fail "jeheap top took $ms ms on a profile naming 80,000 files"
pass "80,000 mapped files: jeheap top in $ms ms"
"$JEHEAP" pprof "$WORK/wide.heap" -o "$WORK/wide.pb.gz" || fail "jeheap pprof on 80,000 mappings: exit $?"
[ -s "$WORK/wide.pb.gz" ] || fail "jeheap pprof wrote nothing"
