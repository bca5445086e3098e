#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# No circle of source files (doc/design.md, "The tree": calls go one way,
# down). The graph is the linker's: every object of jeattach, libjeheap,
# libcore and jeheap, what each defines and what it takes from the others
# (tests/tools/circles.py).
: "${top_builddir:?run through make check}"
command -v nm >/dev/null || { echo "SKIP: no nm (binutils) to read the objects"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3 to read the graph"; exit 77; }
objs=$(find "$top_builddir/src" "$top_builddir/lib" "$top_builddir/libcore" "$top_builddir/jeheap" \
	-name '*.o' | sort)
[ -n "$objs" ] || { echo "FAIL: no objects under $top_builddir: build first"; exit 1; }
# shellcheck disable=SC2086
python3 "$top_srcdir/tests/tools/circles.py" $objs || { echo "FAIL: a circle of source files (above)"; exit 1; }
echo "ok: no circle of source files"
# The command line sees the engine through its headers only: struct target
# and the remote-call core's state are opaque to it; neither it nor the
# actions speak ptrace or see registers (doc/design.md, "The tree").
layer() { # layer FOLDER HEADER...: no file of src/FOLDER includes HEADER
	dir=$1; shift
	for h in "$@"; do
		bad=$(grep -l "#include \"$h\"" "$top_srcdir/src/$dir"/*.[ch] 2>/dev/null)
		[ -z "$bad" ] || { echo "FAIL: src/$dir includes $h: $bad"; exit 1; }
	done
}
layer cli target_struct.h rcall_internal.h pt.h arch.h
layer act rcall_internal.h pt.h arch.h
echo "ok: the command line and the actions include no private header of the layers below"
