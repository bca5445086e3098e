#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Cross-build jeattach for aarch64 on this x86_64 host and run the unit
# tests (tests/check_*: everything that needs no ptrace) under
# qemu-aarch64-static. The integration tests need a real arm64 kernel:
# see doc/arm64.md for the emulated machine.
#
#   tests/arm64/cross-check.sh deps   # as root: the tools and arm64 libraries
#   tests/arm64/cross-check.sh        # build in $JEATTACH_ARM64_BUILD, run
#
# JEATTACH_ARM64_CONFIGURE: more configure options (--enable-static-jeattach
# for t_static: Debian's arm64 static libraries link it as they do on x86_64).
#
# Debian's gcc-aarch64-linux-gnu conflicts with gcc-multilib (the 32-bit
# victim needs it) and libjemalloc-dev is not Multi-Arch: same (its arm64
# copy would replace the host's): so clang --target compiles, lld links,
# the arm64 libraries that are Multi-Arch: same are installed beside the
# host's, and jemalloc's arm64 development files are only unpacked, into
# the cache.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
# Its own cache (tests/arm64/vm.sh clean removes the machine's whole one).
cache=${JEATTACH_ARM64_CROSS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jeattach-arm64-cross}
build=${JEATTACH_ARM64_BUILD:-$cache/cross-build}
# Multi-Arch: same only: they install beside the amd64 copies.
libs="libc6-dev:arm64 libelf-dev:arm64 libdw-dev:arm64 libunwind-dev:arm64 zlib1g-dev:arm64
      liblzma-dev:arm64 check:arm64 libjemalloc2:arm64 libstdc++-12-dev:arm64"

if [ "${1:-}" = deps ]; then
	[ "$(id -u)" = 0 ] || { echo "cross-check: deps needs root (apt-get)" >&2; exit 1; }
	dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
	apt-get update -qq
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		clang lld qemu-user-static $libs
	for p in gcc-multilib libjemalloc-dev:amd64; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed' ||
			echo "cross-check: warning: $p is not installed (the x86_64 suite needs it)" >&2
	done
	exit 0
fi

for tool in clang ld.lld qemu-aarch64-static; do
	command -v "$tool" >/dev/null ||
		{ echo "cross-check: no $tool: run '$0 deps' as root first" >&2; exit 1; }
done
[ -f /usr/lib/aarch64-linux-gnu/pkgconfig/libunwind-ptrace.pc ] ||
	{ echo "cross-check: no arm64 libraries: run '$0 deps' as root first" >&2; exit 1; }

# jemalloc's arm64 development files, unpacked into the cache once.
je=$cache/jemalloc-dev
if [ ! -f "$je/usr/lib/aarch64-linux-gnu/pkgconfig/jemalloc.pc" ]; then
	mkdir -p "$cache/debs" "$je"
	(cd "$cache/debs" && apt-get download libjemalloc-dev:arm64 >/dev/null 2>&1) ||
		{ echo "cross-check: cannot download libjemalloc-dev:arm64 from Debian's archive" >&2; exit 1; }
	dpkg-deb -x "$cache"/debs/libjemalloc-dev_*_arm64.deb "$je"
	sed -i "s|^prefix=/usr|prefix=$je/usr|" "$je/usr/lib/aarch64-linux-gnu/pkgconfig/jemalloc.pc"
	ln -sf /usr/lib/aarch64-linux-gnu/libjemalloc.so.2 "$je/usr/lib/aarch64-linux-gnu/libjemalloc.so.2"
fi

# Static jemalloc with profiling where one was built (tests/arm64/vm.sh
# xcheck passes jemalloc-prof.sh's output): the static victim links it, and
# Debian's arm64 libjemalloc.a has no profiling.
if [ -n "${JEATTACH_ARM64_JEMALLOC_PROF:-}" ]; then
	cp "$JEATTACH_ARM64_JEMALLOC_PROF"/libjemalloc.a "$JEATTACH_ARM64_JEMALLOC_PROF"/libjemalloc_pic.a \
		"$je/usr/lib/aarch64-linux-gnu/" ||
		{ echo "cross-check: no static jemalloc in $JEATTACH_ARM64_JEMALLOC_PROF" >&2; exit 1; }
fi

# A clean copy of the sources (the tree may be configured in place for x86_64).
rm -rf "$build"
mkdir -p "$build"
(cd "$top" && git ls-files -z | xargs -0 tar cf -) | (cd "$build" && tar xf -)
cd "$build"
./autogen.sh >/dev/null 2>&1
# --build-id: lld makes none unless asked (Debian's gcc passes it to ld),
# and jeattach stamps each object's (t_proof checks the program's).
# -gdwarf-4: clang 14 writes DWARF 5 with forms (strx1, 0x25) that
# Debian 12's valgrind 3.19 cannot read, and t_recent_jeheap runs jeheap
# under it in the guest.
./configure -q --host=aarch64-linux-gnu CC="clang --target=aarch64-linux-gnu" \
	CFLAGS="-g -O2 -gdwarf-4" \
	LDFLAGS="-fuse-ld=lld -Wl,--build-id=sha1" \
	PKG_CONFIG_LIBDIR="$je/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig" \
	${JEATTACH_ARM64_CONFIGURE:-}
make -j"$(nproc)" >/dev/null
# The unit tests: UNIT_TESTS and any check program added to TESTS after.
units=$( (sed -n '/^UNIT_TESTS = /,/[^\\]$/p' Makefile.am; grep '^TESTS += ' Makefile.am) |
	grep -o 'tests/check_[a-z_0-9]*' | sort -u || true)
[ -n "$units" ] || { echo "cross-check: no unit tests found in Makefile.am" >&2; exit 1; }
# Every check program: the unit tests, and the victims tests/arm64/vm.sh
# xcheck runs the integration tests with in the emulated machine.
make -j"$(nproc)" TESTS= check >/dev/null
lp=$build/lib/.libs:$build/libcore/.libs:$build/src/.libs
pass=0 fail=0
for t in $units; do
	bin=$t
	[ -x "$(dirname "$t")/.libs/$(basename "$t")" ] && bin=$(dirname "$t")/.libs/$(basename "$t")
	if timeout 600 qemu-aarch64-static -L / -E "LD_LIBRARY_PATH=$lp" "$bin" >"$t.arm64.log" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $t (aarch64, qemu-user):"
		tail -5 "$t.arm64.log"
	fi
	grep -E '^[0-9]+%: Checks' "$t.arm64.log" | sed "s|^|$(basename "$t") (aarch64): |"
done
# (libtool's real program; a static jeattach is its own)
j=src/.libs/jeattach
[ -f "$j" ] || j=src/jeattach
echo "$j: $(file -b "$j" | grep -o 'ARM aarch64\|[a-z]*ally linked' | paste -sd' ')"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
