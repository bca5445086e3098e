#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The documentation tells the truth: man pages render without warnings,
# every option --help lists is in the man page, and libjeheap(3)'s example
# is the program make check builds, which runs on a real profile.
. "$top_srcdir/tests/integration/lib.sh"

if command -v groff >/dev/null; then
	for m in "$top_srcdir"/doc/*.[0-9]; do
		w=$(groff -ww -man -Tutf8 "$m" 2>&1 >/dev/null)
		[ -z "$w" ] || fail "$m: $w"
	done
	pass "man pages render without warnings"
else
	echo "note: groff not installed; rendering not checked"
fi

for tool in jeattach jeheap; do
	eval "bin=\$$(echo "$tool" | tr a-z A-Z)"
	for opt in $("$bin" --help | grep -oE -- '--[a-z][a-z_-]*' | sort -u); do
		grep -qF -- "$(echo "$opt" | sed 's/-/\\-/g')" "$top_srcdir/doc/$tool.1" ||
			fail "$tool --help lists $opt, $tool(1) does not"
	done
done
pass "--help and the man pages list the same options"

# The example in libjeheap(3), unescaped, is doc/libjeheap-example.c.
sed -n '/^\.SH EXAMPLE/,/^\.SH SEE ALSO/p' "$top_srcdir/doc/libjeheap.3" |
	sed -n '/^\.nf$/,/^\.fi$/p' | sed '1d;$d' | sed 's/^\\&//; s/\\e/\\/g' >"$WORK/example.c"
cmp -s "$WORK/example.c" "$top_srcdir/doc/libjeheap-example.c" ||
	fail "libjeheap(3)'s example differs from doc/libjeheap-example.c: $(diff "$WORK/example.c" "$top_srcdir/doc/libjeheap-example.c" | head -5)"
expect_rc 0 "$top_builddir/tests/libjeheap_example" "$top_srcdir/tests/fuzz/corpus/heap/v2.heap"
echo "$OUT" | grep -q '^[0-9]* bytes in use (un-sampled)$' || fail "example: $OUT"
expect_rc 1 "$top_builddir/tests/libjeheap_example" "$top_srcdir/README"
echo "$ERR" | grep -q 'README:1:1: not a jemalloc heap profile' || fail "example: $ERR"
pass "libjeheap(3) example"
