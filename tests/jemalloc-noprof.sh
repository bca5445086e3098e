#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jemalloc-noprof.sh OUTDIR: jemalloc as Rust's tikv-jemalloc-sys builds it
# by default: static, every symbol prefixed _rjem_, profiling not built in
# (--disable-prof: its "profiling" feature off), from Debian 12's source
# package 5.3.0-1 (tests/debian-archive.sh). OUTDIR gets libjemalloc.a and
# include/jemalloc/jemalloc.h (the _rjem_ names). For t_sample: --sample
# on a jemalloc that has no prof.* at all. Built once (OUTDIR kept).
# Exit 0 built (or already there), 77 with the reason when it cannot be.
set -u
out=${1:?usage: jemalloc-noprof.sh OUTDIR}
[ -f "$out/lib/libjemalloc.a" ] && exit 0
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"
src=$(sh "$here/debian-archive.sh" bookworm source jemalloc 5.3.0-1) || skip "$src"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jemalloc-noprof.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
dpkg-source -q -x "$src/jemalloc_5.3.0-1.dsc" "$tmp/jemalloc" >"$tmp/log" 2>&1 ||
	skip "dpkg-source -x failed: $(tail -1 "$tmp/log")"
cd "$tmp/jemalloc" || exit 1
# tikv-jemalloc-sys's build.rs: --with-jemalloc-prefix=_rjem_,
# --with-private-namespace=_rjem_, --disable-cxx; profiling only with its
# "profiling" feature (off by default).
./configure -q --with-version="$(cat VERSION)" --with-jemalloc-prefix=_rjem_ \
	--with-private-namespace=_rjem_ --disable-cxx --disable-prof --prefix="$out" \
	>"$tmp/log" 2>&1 || skip "configure failed: $(tail -3 "$tmp/log")"
grep -q '^#define JEMALLOC_PROF ' include/jemalloc/internal/jemalloc_internal_defs.h &&
	skip "configure enabled profiling"
make -j"$(nproc)" build_lib_static >"$tmp/log" 2>&1 || skip "make failed: $(tail -3 "$tmp/log")"
mkdir -p "$out.new/lib" "$out.new/include/jemalloc" &&
	cp lib/libjemalloc.a "$out.new/lib/" &&
	cp include/jemalloc/jemalloc.h "$out.new/include/jemalloc/" &&
	rm -rf "$out" && mv "$out.new" "$out"
