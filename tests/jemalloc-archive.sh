#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jemalloc-archive.sh [VERSION]: the libjemalloc.so.2 a distribution ships,
# fetched from Debian's archive, for tests that run victims against the
# builds people run (LD_PRELOAD). Prints the library's path.
#
#   5.2.1  Debian 11 (bullseye) libjemalloc2 5.2.1-3: the default
#
# apt-get download goes through a temporary sources list and state
# directories (-o Dir::Etc::SourceList=... and friends): the system's
# sources lists, package lists, cache and dpkg status are neither read nor
# written (apt still reads its apt.conf.d options), nothing is changed
# there, and nothing is installed (dpkg-deb -x unpacks into the cache).
# The cache is $JEATTACH_ARCHIVE_CACHE, else $XDG_CACHE_HOME/jeattach/jemalloc-archive,
# else tests/.jemalloc-archive under the build tree (not committed).
#
# Exit 0 with the path; 77 with the reason on stderr (and stdout) when the
# archive cannot be reached or apt-get/dpkg-deb are missing: the callers
# are tests, which skip then; 1 on anything else.
set -u
version=${1:-5.2.1}
case $version in
5.2.1) suite=bullseye pkgver=5.2.1-3 ;;
*) echo "jemalloc-archive.sh: no archive build known for jemalloc $version" >&2; exit 1 ;;
esac
skip() { echo "SKIP: $*"; echo "jemalloc-archive.sh: $*" >&2; exit 77; }

if [ -n "${JEATTACH_ARCHIVE_CACHE:-}" ]; then
	cache=$JEATTACH_ARCHIVE_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	cache=$XDG_CACHE_HOME/jeattach/jemalloc-archive
else
	cache=${top_builddir:-$(dirname "$0")/..}/tests/.jemalloc-archive
fi
dir=$cache/$suite-libjemalloc2-$pkgver
lib=$dir/root/usr/lib/x86_64-linux-gnu/libjemalloc.so.2
if [ -f "$lib" ]; then
	echo "$lib"
	exit 0
fi
[ "$(uname -m)" = x86_64 ] || skip "the archive build fetched here is amd64; this machine is $(uname -m)"
command -v apt-get >/dev/null 2>&1 || skip "apt-get is not installed (not a Debian-like system)"
command -v dpkg-deb >/dev/null 2>&1 || skip "dpkg-deb is not installed (not a Debian-like system)"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || skip "$keyring is missing (install debian-archive-keyring)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/jemalloc-archive.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/get"
# JEATTACH_DEBIAN_MIRROR: another mirror (tests point it nowhere to check
# the skip).
mirror=${JEATTACH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
echo "deb [signed-by=$keyring] $mirror $suite main" >"$tmp/sources.list"
set -- -q -o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null \
	-o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" \
	-o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Architecture=amd64 \
	-o Acquire::Retries=1 -o Acquire::http::Timeout=20
# Bounded: a network that drops packets would otherwise hold a test up.
if ! timeout 120 apt-get "$@" update >"$tmp/update.log" 2>&1 ||
	grep -qE '^(W|E): Failed to fetch|^Err:' "$tmp/update.log"; then
	skip "Debian's archive ($mirror, $suite) cannot be reached: $(grep -A1 -E '^(E|W|Err)' "$tmp/update.log" | head -2 | tr -s ' \n' '  ')"
fi
if ! (cd "$tmp/get" && timeout 120 apt-get "$@" download "libjemalloc2=$pkgver") >"$tmp/get.log" 2>&1; then
	skip "apt-get download libjemalloc2=$pkgver from $suite failed: $(tail -1 "$tmp/get.log")"
fi
deb=$(ls "$tmp"/get/libjemalloc2_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || skip "apt-get download left no .deb: $(tail -1 "$tmp/get.log")"
mkdir -p "$dir" || exit 1
rm -rf "$dir/root.new"
dpkg-deb -x "$deb" "$dir/root.new" || exit 1
[ -f "$dir/root.new/usr/lib/x86_64-linux-gnu/libjemalloc.so.2" ] || {
	echo "jemalloc-archive.sh: $deb holds no usr/lib/x86_64-linux-gnu/libjemalloc.so.2" >&2
	exit 1
}
cp "$deb" "$dir/" && rm -rf "$dir/root" && mv "$dir/root.new" "$dir/root" || exit 1
echo "$lib"
