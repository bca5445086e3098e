#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jeheap --lines on a binary without debug info says where lines would come
# from (issue 33, item 7): one note per such object, naming it and the
# build-id debug file libjeheap looked for; for a file a Debian package
# installed (dpkg's database under --root), that package's -dbgsym; and
# with the debug file put at that very path, the lines come and the note
# goes. The victim is victim_flame with its debug info taken out as a
# distribution does it (objcopy --only-keep-debug into a debug file,
# --strip-all on the binary: no DWARF, no .symtab, the build id kept), so
# that the debug file that belongs to it exists to prove the path.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
command -v objcopy >/dev/null && command -v readelf >/dev/null ||
	skip "objcopy and readelf (binutils) are needed to strip the victim"

mkdir -p "$WORK/bin"
vf=$WORK/bin/victim_stripped
objcopy --only-keep-debug "$TARGETS/victim_flame" "$WORK/vf.debug" || fail "objcopy --only-keep-debug"
objcopy --strip-all "$TARGETS/victim_flame" "$vf" || fail "objcopy --strip-all"
readelf -S "$vf" | grep -q '[.]debug_info\|[.]symtab' && fail "$vf still has DWARF or a .symtab"
id=$(readelf -n "$vf" | sed -n 's/.*Build ID: *//p')
[ ${#id} -ge 40 ] || fail "$vf has no build id: $(readelf -n "$vf")"
debug=/usr/lib/debug/.build-id/$(echo "$id" | cut -c1-2)/$(echo "$id" | cut -c3-).debug

EXACT="MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0"
start_victim_env v "$EXACT" "$vf"
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/a.heap"
finish_victim v
# The path as the profile names it (the kernel's, links resolved).
mapped=$(sed -n "s|^.* \(/.*/victim_stripped\)\$|\1|p" "$WORK/a.heap" | head -1)
[ -n "$mapped" ] || fail "the profile maps no victim_stripped"

if [ "${JEHEAP_HAS_LIBDW:-}" != yes ]; then
	expect_rc 0 "$JEHEAP" top --lines "$WORK/a.heap"
	echo "$ERR" | grep -q 'built without libdw' || fail "no note of a libjeheap without libdw: $ERR"
	skip "libjeheap was built without libdw: no lines from any debug file (its note checked)"
fi

# Functions alone need no lines: no note.
expect_rc 0 "$JEHEAP" top "$WORK/a.heap"
echo "$ERR" | grep -q 'no line information' && fail "a note without --lines: $ERR"
pass "no note without --lines"

expect_rc 0 "$JEHEAP" top --lines "$WORK/a.heap"
echo "$OUT" | grep -q 'victim_stripped+0x[0-9a-f]* ??:?' || fail "no ??:? row of the victim: $OUT"
note=$(echo "$ERR" | grep "^jeheap: note: $mapped has no line information")
[ "$(echo "$note" | grep -c .)" = 1 ] || fail "not one note naming $mapped: $ERR"
echo "$note" | grep -qF "it is in no Debian package; lines would come from a debug file at $debug " ||
	fail "the note does not name $debug: $note"
pass "the note names the object and the build-id path ($debug)"

# The same file as a Debian package's: dpkg's database under --root.
root=$WORK/root
mkdir -p "$root$(dirname "$mapped")" "$root/var/lib/dpkg/info" || exit 1
cp "$vf" "$root$mapped" || exit 1
printf '/.\n%s\n%s\n' "$(dirname "$mapped")" "$mapped" >"$root/var/lib/dpkg/info/victim-pkg:amd64.list"
expect_rc 0 "$JEHEAP" top --lines --root "$root" "$WORK/a.heap"
echo "$ERR" | grep -qF "jeheap: note: $mapped has no line information (no DWARF in it or in a debug file): install victim-pkg-dbgsym (from the debian-debug archive; or the -dbg package its source ships, if any), which puts its debug file at $root$debug" ||
	fail "no note naming victim-pkg-dbgsym and $root$debug: $ERR"
pass "a packaged file's note names PKG-dbgsym"

# The debug file where the note says: lines, and no note.
mkdir -p "$(dirname "$root$debug")" && cp "$WORK/vf.debug" "$root$debug" || exit 1
expect_rc 0 "$JEHEAP" top --lines --root "$root" "$WORK/a.heap"
echo "$OUT" | grep -q 'fl_wide [^ ]*victim_flame[.]c:[0-9]' || fail "no line of fl_wide from $root$debug: $OUT"
echo "$ERR" | grep -q "$mapped has no line information" && fail "a note though lines came: $ERR"
pass "with the debug file at that path, lines (fl_wide at victim_flame.c) and no note"
