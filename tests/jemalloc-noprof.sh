#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jemalloc-noprof.sh OUTDIR [VERSION PREFIX]: a static jemalloc with every
# symbol prefixed and profiling not built in (--disable-prof), for
# t_sample: --sample on a jemalloc that has no prof.* at all.
#
#   5.3.0 _rjem_ (the default) as Rust's tikv-jemalloc-sys links it by
#         default (its "profiling" feature off), from Debian 12's source
#         package 5.3.0-1 (tests/debian-archive.sh)
#   5.2.1 je_    a C program's static je_ build of Debian 11's version,
#         from a jemalloc git directory named by $JEATTACH_JEMALLOC_GIT
#         (Debian's archive no longer serves bullseye's source)
#
# OUTDIR gets lib/libjemalloc.a and include/jemalloc/jemalloc.h (the
# prefixed names). Built once (OUTDIR kept). Exit 0 built (or already
# there), 77 with the reason when it cannot be.
set -u
out=${1:?usage: jemalloc-noprof.sh OUTDIR [VERSION PREFIX]}
version=${2:-5.3.0}
prefix=${3:-_rjem_}
[ -f "$out/lib/libjemalloc.a" ] && exit 0
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jemalloc-noprof.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
full=$(sh "$here/jemalloc-source.sh" "$version" "$tmp/jemalloc")
rc=$?
[ $rc = 0 ] || { echo "$full"; exit $rc; }
cd "$tmp/jemalloc" || exit 1
# tikv-jemalloc-sys's build.rs: --with-jemalloc-prefix=_rjem_,
# --with-private-namespace=_rjem_, --disable-cxx; profiling only with its
# "profiling" feature (off by default). The je_ build the same way.
./configure -q --with-version="$full" --with-jemalloc-prefix="$prefix" \
	--with-private-namespace="$prefix" --disable-cxx --disable-prof --prefix="$out" \
	>"$tmp/log" 2>&1 || skip "configure failed: $(tail -3 "$tmp/log")"
grep -q '^#define JEMALLOC_PROF ' include/jemalloc/internal/jemalloc_internal_defs.h &&
	skip "configure enabled profiling"
make -j"$(nproc)" build_lib_static >"$tmp/log" 2>&1 || skip "make failed: $(tail -3 "$tmp/log")"
mkdir -p "$out.new/lib" "$out.new/include/jemalloc" &&
	cp lib/libjemalloc.a "$out.new/lib/" &&
	cp include/jemalloc/jemalloc.h "$out.new/include/jemalloc/" &&
	rm -rf "$out" && mv "$out.new" "$out"
