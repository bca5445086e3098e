#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# debian-archive.sh SUITE ARCH PACKAGE [VERSION]: one package from Debian's
# archive, unpacked (never installed) into a cache; prints the directory it
# was unpacked into (its root: usr/, bin/, ...). With ARCH "source", the
# source package's files (.dsc, .orig.tar.*, .debian.tar.*) instead, as
# apt-get source --download-only fetches them (not unpacked). Tests use it for software
# as distributions ship it: jemalloc builds (tests/jemalloc-archive.sh), a
# 32-bit ARM program for the arm64 machine.
#
# apt-get download goes through a temporary sources list and state
# directories (-o Dir::Etc::SourceList=... and friends): the system's
# sources lists, package lists, cache and dpkg status are neither read nor
# written (apt still reads its apt.conf.d options), nothing is changed
# there, and nothing is installed (dpkg-deb -x unpacks into the cache).
# The cache is $JEATTACH_ARCHIVE_CACHE, else $XDG_CACHE_HOME/jeattach/jemalloc-archive,
# else tests/.jemalloc-archive under the build tree (not committed). Without
# VERSION the archive's current one is taken, once: the cache keeps it.
#
# Exit 0 with the path; 77 with the reason on stderr (and stdout) when the
# archive cannot be reached or apt-get/dpkg-deb are missing: the callers
# are tests, which skip then; 1 on anything else.
set -u
[ $# -ge 3 ] || { echo "usage: debian-archive.sh SUITE ARCH PACKAGE [VERSION]" >&2; exit 1; }
suite=$1 arch=$2 pkg=$3 pkgver=${4:-}
skip() { echo "SKIP: $*"; echo "debian-archive.sh: $*" >&2; exit 77; }

if [ -n "${JEATTACH_ARCHIVE_CACHE:-}" ]; then
	cache=$JEATTACH_ARCHIVE_CACHE
elif [ -n "${XDG_CACHE_HOME:-}" ]; then
	cache=$XDG_CACHE_HOME/jeattach/jemalloc-archive
else
	cache=${top_builddir:-$(dirname "$0")/..}/tests/.jemalloc-archive
fi
dir=$cache/$suite-$pkg-${pkgver:-current}-$arch
if [ -d "$dir/root" ]; then
	echo "$dir/root"
	exit 0
fi
# One fetch at a time per cache: make check runs tests in parallel, and two
# that want the same package (t_jemalloc52, t_unversioned) unpacked it into
# the same root.new at once (one of them failed, exit 1, under the
# sanitizer build's timing). The second waits, then finds it there.
mkdir -p "$cache" || exit 1
exec 9>"$cache/.lock"
command -v flock >/dev/null 2>&1 && { flock -w 600 9 || skip "another fetch into $cache held its lock for 10 minutes"; }
if [ -d "$dir/root" ]; then
	echo "$dir/root"
	exit 0
fi
command -v apt-get >/dev/null 2>&1 || skip "apt-get is not installed (not a Debian-like system)"
command -v dpkg-deb >/dev/null 2>&1 || skip "dpkg-deb is not installed (not a Debian-like system)"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || skip "$keyring is missing (install debian-archive-keyring)"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/debian-archive.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial" "$tmp/get"
# JEATTACH_DEBIAN_MIRROR: another mirror (tests point it nowhere to check
# the skip).
mirror=${JEATTACH_DEBIAN_MIRROR:-http://deb.debian.org/debian}
if [ "$arch" = source ]; then
	echo "deb-src [signed-by=$keyring] $mirror $suite main" >"$tmp/sources.list"
else
	echo "deb [signed-by=$keyring] $mirror $suite main" >"$tmp/sources.list"
fi
set -- -q -o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null \
	-o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" \
	-o Dir::State::status=/dev/null -o Debug::NoLocking=1 \
	-o Acquire::Retries=1 -o Acquire::http::Timeout=20
[ "$arch" = source ] || set -- "$@" -o "APT::Architecture=$arch"
# Bounded: a network that drops packets would otherwise hold a test up.
if ! timeout 120 apt-get "$@" update >"$tmp/update.log" 2>&1 ||
	grep -qE '^(W|E): Failed to fetch|^Err:' "$tmp/update.log"; then
	skip "Debian's archive ($mirror, $suite) cannot be reached: $(grep -A1 -E '^(E|W|Err)' "$tmp/update.log" | head -2 | tr -s ' \n' '  ')"
fi
if [ "$arch" = source ]; then
	want=$pkg${pkgver:+=$pkgver}
	if ! (cd "$tmp/get" && timeout 300 apt-get "$@" source --download-only "$want") >"$tmp/get.log" 2>&1; then
		skip "apt-get source $want from $suite failed: $(tail -1 "$tmp/get.log")"
	fi
	ls "$tmp"/get/*.dsc >/dev/null 2>&1 || skip "apt-get source left no .dsc: $(tail -1 "$tmp/get.log")"
	mkdir -p "$dir" && rm -rf "$dir/root" && mkdir "$dir/root.new" && cp "$tmp"/get/* "$dir/root.new/" &&
		mv "$dir/root.new" "$dir/root" || exit 1
	echo "$dir/root"
	exit 0
fi
want=$pkg:$arch${pkgver:+=$pkgver}
if ! (cd "$tmp/get" && timeout 120 apt-get "$@" download "$want") >"$tmp/get.log" 2>&1; then
	skip "apt-get download $want from $suite failed: $(tail -1 "$tmp/get.log")"
fi
# Architecture: all packages (linux-libc-dev in trixie) are named _all.deb.
deb=$(ls "$tmp"/get/"$pkg"_*_"$arch".deb "$tmp"/get/"$pkg"_*_all.deb 2>/dev/null | head -1)
[ -n "$deb" ] || skip "apt-get download left no .deb: $(tail -1 "$tmp/get.log")"
mkdir -p "$dir" || exit 1
rm -rf "$dir/root.new"
dpkg-deb -x "$deb" "$dir/root.new" || exit 1
cp "$deb" "$dir/" && rm -rf "$dir/root" && mv "$dir/root.new" "$dir/root" || exit 1
echo "$dir/root"
