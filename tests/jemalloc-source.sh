#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jemalloc-source.sh VERSION DIR: jemalloc's source, ready for configure,
# unpacked into DIR (which must not exist); prints the version string to
# build it with (--with-version). For the scripts that build jemalloc as
# tests need it (tests/jemalloc-noprof.sh, tests/arm64/jemalloc-prof.sh).
#
#   5.3.0  Debian 12's source package 5.3.0-1, from Debian's archive
#          (tests/debian-archive.sh)
#   5.2.1  upstream's 5.2.1 tag (Debian 11's 5.2.1-3 is it unpatched),
#          from a jemalloc git directory named by $JEATTACH_JEMALLOC_GIT:
#          Debian's archive no longer serves bullseye's source (404 for
#          jemalloc_5.2.1-3.dsc and its orig tarball, 2026-11-24)
#
# Exit 0; 77 with "SKIP: why" when it cannot be had; 1 on a bad VERSION.
set -u
version=${1:?usage: jemalloc-source.sh VERSION DIR}
dir=${2:?usage: jemalloc-source.sh VERSION DIR}
here=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
log=$(mktemp "${TMPDIR:-/tmp}/jemalloc-source.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
case $version in
5.3.0)
	command -v dpkg-source >/dev/null || skip "no dpkg-source (apt-get install dpkg-dev)"
	src=$(sh "$here/debian-archive.sh" bookworm source jemalloc 5.3.0-1) || skip "$src"
	dpkg-source -q -x "$src/jemalloc_5.3.0-1.dsc" "$dir" >"$log" 2>&1 ||
		skip "dpkg-source -x failed: $(tail -1 "$log")"
	cat "$dir/VERSION"
	;;
5.2.1)
	git=${JEATTACH_JEMALLOC_GIT:-}
	[ -n "$git" ] || skip "5.2.1's source is not in Debian's archive any more: set JEATTACH_JEMALLOC_GIT to a jemalloc git directory (a clone of github.com/jemalloc/jemalloc) to build it"
	command -v autoconf >/dev/null || skip "no autoconf"
	commit=$(git --git-dir="$git" rev-parse --verify -q "5.2.1^{commit}") ||
		skip "$git has no 5.2.1 tag"
	mkdir "$dir" && git --git-dir="$git" archive "$commit" | tar -x -C "$dir" ||
		skip "git archive 5.2.1 from $git failed"
	(cd "$dir" && autoconf) >"$log" 2>&1 || skip "autoconf failed: $(tail -1 "$log")"
	# As git describe names it in a clone, and as 5.2.1-3 reports it.
	echo "5.2.1-0-g$commit"
	;;
*) echo "jemalloc-source.sh: VERSION is 5.3.0 or 5.2.1, not $version" >&2; exit 1 ;;
esac
