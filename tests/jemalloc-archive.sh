#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jemalloc-archive.sh [VERSION]: the libjemalloc.so.2 a distribution ships,
# fetched from Debian's archive (tests/debian-archive.sh), for tests that
# run victims against the builds people run (LD_PRELOAD). Prints the
# library's path.
#
#   5.2.1  Debian 11 (bullseye) libjemalloc2 5.2.1-3: the default
#   5.3.0  Debian 13 (trixie) libjemalloc2 5.3.0-3: on arm64 it is built with
#          branch protection (PAC and BTI in its GNU property note), which
#          Debian 12's build is not; it needs glibc 2.34, so it loads on 12
#
# The build is for this machine's architecture (amd64 or arm64), or for
# $JEATTACH_ARCHIVE_ARCH when set: tests/arm64/vm.sh fetches the arm64
# builds on the host, for a guest that has no network.
#
# Exit 0 with the path; 77 with the reason when it cannot be fetched (the
# callers are tests, which skip then); 1 on anything else.
set -u
version=${1:-5.2.1}
case $version in
5.2.1) suite=bullseye pkgver=5.2.1-3 ;;
5.3.0) suite=trixie pkgver=5.3.0-3 ;;
*) echo "jemalloc-archive.sh: no archive build known for jemalloc $version" >&2; exit 1 ;;
esac
arch=${JEATTACH_ARCHIVE_ARCH:-}
if [ -z "$arch" ]; then
	case $(uname -m) in
	x86_64) arch=amd64 ;;
	aarch64) arch=arm64 ;;
	*) echo "SKIP: no archive build is fetched for $(uname -m) (amd64 and arm64 only)"; exit 77 ;;
	esac
fi
case $arch in
amd64) triplet=x86_64-linux-gnu ;;
arm64) triplet=aarch64-linux-gnu ;;
*) echo "jemalloc-archive.sh: JEATTACH_ARCHIVE_ARCH=$arch: amd64 or arm64" >&2; exit 1 ;;
esac
root=$(sh "$(dirname "$0")/debian-archive.sh" "$suite" "$arch" libjemalloc2 "$pkgver")
rc=$?
[ $rc = 0 ] || { echo "$root"; exit $rc; }
lib=$root/usr/lib/$triplet/libjemalloc.so.2
[ -f "$lib" ] || { echo "jemalloc-archive.sh: libjemalloc2 $pkgver ($arch) holds no usr/lib/$triplet/libjemalloc.so.2" >&2; exit 1; }
echo "$lib"
