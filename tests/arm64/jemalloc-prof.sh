#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jemalloc-prof.sh OUTDIR [VERSION]: a jemalloc Debian ships, built for arm64
# as Debian builds it, plus --enable-prof, into OUTDIR (libjemalloc.so.2,
# libjemalloc.a, libjemalloc_pic.a). tests/arm64/vm.sh installs them in the
# guest.
#
#   5.3.0  Debian 12's source package, 5.3.0-1, from Debian's archive (the
#          default): installed over Debian's own in the guest
#   5.2.1  Debian 11's 5.2.1-3, for t_jemalloc52: upstream's 5.2.1 tag
#          unpatched (5.2.1-1 dropped Debian's last patches: its changelog),
#          taken from a jemalloc git directory named by $JEATTACH_JEMALLOC_GIT,
#          because Debian's archive no longer serves bullseye's source (404
#          for jemalloc_5.2.1-3.dsc and its orig tarball, 2026-11-24). Built
#          with 5.2.1-3's version string and page sizes (64 KiB pages, as
#          its arm64 binary reports: arenas.page 65536).
#
# Why: Debian builds jemalloc with profiling on i386 and amd64 only
# (debian/rules: "Broken multiple times on random architectures ...
# Profiling is nice-to-have"), and so do its bullseye and trixie arm64
# builds: on Debian's arm64 jemalloc, prof.* does not exist (config.prof
# false), and no dump, --for, --recent or flame graph can be tested there.
# Everything else (status, stats, --top, --frag) also runs against
# Debian's own build: JEATTACH_ARM64_PROF=0 tests/arm64/vm.sh check.
#
# Cross-built on the x86_64 host with clang --target and lld (no Debian
# cross gcc: it conflicts with gcc-multilib), against the arm64 libc and
# libstdc++ development packages (Multi-Arch: same; cross-check.sh deps).
# Exit 0 built (or already there), 77 with the reason when it cannot be.
set -u
out=${1:?usage: jemalloc-prof.sh OUTDIR [VERSION]}
version=${2:-5.3.0}
[ -f "$out/libjemalloc.so.2" ] && exit 0
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "jemalloc-prof.sh: $*" >&2; exit 77; }
for tool in clang ld.lld; do
	command -v "$tool" >/dev/null || skip "no $tool (apt-get install clang lld)"
done
[ -f /usr/lib/gcc/aarch64-linux-gnu/12/libstdc++.so ] ||
	skip "no arm64 libstdc++ development files (apt-get install libstdc++-12-dev:arm64)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/jemalloc-prof.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
full=$(sh "$here/../jemalloc-source.sh" "$version" "$tmp/jemalloc")
rc=$?
[ $rc = 0 ] || { echo "$full"; exit $rc; }
cd "$tmp/jemalloc" || exit 1
# debian/rules' options for a non-x86 architecture, and --enable-prof.
./configure -q --host=aarch64-linux-gnu CC="clang --target=aarch64-linux-gnu" \
	CXX="clang++ --target=aarch64-linux-gnu" LDFLAGS=-fuse-ld=lld \
	--with-version="$full" --with-lg-page=16 --with-lg-hugepage=21 --enable-prof \
	--prefix=/usr --libdir=/usr/lib/aarch64-linux-gnu >"$tmp/log" 2>&1 ||
	skip "configure failed: $(tail -3 "$tmp/log")"
grep -q '^#define JEMALLOC_PROF ' include/jemalloc/internal/jemalloc_internal_defs.h ||
	skip "configure did not enable profiling"
grep -q '^LIBS.*-lstdc++' Makefile || skip "configure found no arm64 libstdc++ to link"
make -j"$(nproc)" build_lib_shared build_lib_static >"$tmp/log" 2>&1 ||
	skip "make failed: $(tail -3 "$tmp/log")"
mkdir -p "$out.new" && cp lib/libjemalloc.so.2 lib/libjemalloc.a lib/libjemalloc_pic.a "$out.new/" &&
	rm -rf "$out" && mv "$out.new" "$out"
