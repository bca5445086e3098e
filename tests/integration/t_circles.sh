#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# No circle of source files (doc/design.md, "The tree": calls go one way,
# down). The graph is the linker's: every object of jeattach, libjeheap,
# libcore and jeheap, what each defines and what it takes from the others
# (tests/tools/circles.py).
: "${top_builddir:?run through make check}"
command -v nm >/dev/null || { echo "SKIP: no nm (binutils) to read the objects"; exit 77; }
objs=$(find "$top_builddir/src" "$top_builddir/lib" "$top_builddir/libcore" "$top_builddir/jeheap" \
	-name '*.o' | sort)
[ -n "$objs" ] || { echo "FAIL: no objects under $top_builddir: build first"; exit 1; }
# shellcheck disable=SC2086
python3 "$top_srcdir/tests/tools/circles.py" $objs || { echo "FAIL: a circle of source files (above)"; exit 1; }
echo "ok: no circle of source files"
