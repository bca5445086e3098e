#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# t_deb.sh: the Debian package, end to end. Builds the .debs with
# dpkg-buildpackage -b from this tree's files (git ls-files: tracked and
# new, unignored files, as they are in the working tree), checks them with
# lintian, makes a fresh Debian 12 root (debootstrap --variant=minbase
# bookworm), installs them there with apt-get, which resolves their
# dependencies from the archive, and runs what an operator would:
# jeattach --version, jeheap --version, dpkg -L (the completions, the
# systemd units, none enabled), pkg-config and a compile of
# doc/libjeheap-example.c against libjeheap-dev, run on a profile.
#
# Not part of make check (dpkg-buildpackage rebuilds everything): .ci/run
# runs it as a stage of its own. Needs root (debootstrap, chroot, mount).
# Exit 0 passed, 1 failed, 77 skipped with "SKIP: reason" (not root, a
# tool missing, Debian's archive out of reach).
#
# The archive is the first Debian one of the host's apt sources
# (/etc/apt/sources.list, /etc/apt/sources.list.d/*.list and *.sources),
# else deb.debian.org; JEATTACH_DEBIAN_MIRROR overrides it. The packages
# debootstrap and apt fetch are kept under $JEATTACH_TEST_CACHE (default
# /var/cache/jeattach-test), emptied when it grows past 1 GiB; the root
# itself is made afresh each run and removed, /proc unmounted first, on
# every exit.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd) || exit 1
suite=bookworm
skip() { echo "SKIP: $*"; exit 77; }
fail() {
	echo "FAIL: $*"
	[ -n "${deadline:-}" ] && [ "$(date +%s)" -ge "$deadline" ] &&
		echo "FAIL: out of time (T_DEB_SECONDS=${T_DEB_SECONDS:-1800})"
	exit 1
}
ok() { echo "ok: $*"; }

[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot and mount); run it as root, as .ci/run is"
for c in dpkg-buildpackage dpkg-parsechangelog dh lintian debootstrap chroot wget git; do
	command -v "$c" >/dev/null 2>&1 ||
		skip "$c is missing: scripts/install-deps.sh installs it (debhelper, dpkg-dev, lintian, debootstrap, wget, git)"
done
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 ||
	skip "$top is not a git checkout: the package is built from the files git lists"

# Bounded: every step's timeout is cut to what is left of T_DEB_SECONDS
# (default 30 minutes; the first run downloads about 130 MB, a later one
# takes 2-3 minutes here).
deadline=$(($(date +%s) + ${T_DEB_SECONDS:-1800}))
left() { # left SECONDS: SECONDS, or less if the deadline is nearer
	l_n=$((deadline - $(date +%s)))
	[ "$l_n" -gt 0 ] || l_n=1
	[ "$l_n" -lt "$1" ] && echo "$l_n" || echo "$1"
}

work=$(mktemp -d /tmp/jeattach-deb.XXXXXX) || exit 1
root=$work/root
cleanup() {
	rc=$?
	# Never remove a tree with /proc mounted in it: rm would descend.
	if mountpoint -q "$root/proc" 2>/dev/null && ! umount "$root/proc"; then
		umount -l "$root/proc" 2>/dev/null
	fi
	if mountpoint -q "$root/proc" 2>/dev/null; then
		echo "t_deb.sh: $root/proc is still mounted: $work left in place" >&2
	else
		rm -rf "$work"
	fi
	exit "$rc"
}
# step CMD...: CMD in the background, waited for: a signal's trap runs at
# once (sh runs traps only after a foreground command ends) and ends CMD
# too (timeout passes the TERM on to what it runs).
step_pid=
step() {
	"$@" &
	step_pid=$!
	wait "$step_pid"
	s_rc=$?
	step_pid=
	return "$s_rc"
}
on_signal() {
	[ -n "$step_pid" ] && kill "$step_pid" 2>/dev/null && wait "$step_pid"
	exit "$1"
}
trap cleanup EXIT
trap 'on_signal 129' HUP
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
# in_root CMD...: CMD in the fresh root, with a plain environment, for
# at most 2 minutes.
# (root_env has no spaces inside its words: it is split on purpose.)
root_env="/usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8"
# shellcheck disable=SC2086
in_root() { timeout "$(left 120)" chroot "$root" $root_env "$@"; }

# ---- the version: debian/changelog must follow configure.ac's AC_INIT
version=$(sed -n 's/^AC_INIT(\[jeattach\], \[\([^]]*\)\].*/\1/p' "$top/configure.ac")
[ -n "$version" ] || fail "no version in configure.ac's AC_INIT"
debver=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version) || fail "debian/changelog does not parse"
[ "$debver" = "$version" ] ||
	fail "debian/changelog says $debver, configure.ac's AC_INIT $version: add a changelog entry (dch -v $version)"
ok "debian/changelog's version is AC_INIT's ($version)"

# ---- the archive
mirror=${JEATTACH_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
	# deb822 .sources (URIs: a b) and one-line lists (deb [opts] URI suite ...).
	mirror=$( { cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		sed -n 's/^URIs:[[:space:]]*//p' | tr ' ' '\n'
		cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -n 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\).*/\2/p'
	} | grep -E '^https?://.*/debian/?$' | head -1)
	mirror=${mirror:-http://deb.debian.org/debian}
fi
timeout 60 wget -q -T 20 -t 1 -O /dev/null "$mirror/dists/$suite/Release" ||
	skip "Debian's archive ($mirror, $suite) cannot be reached (wget of dists/$suite/Release failed)"

# ---- build
src=$work/jeattach-$version
mkdir -p "$src" || exit 1
(cd "$top" && git ls-files -z --cached --others --exclude-standard) |
	(cd "$top" && xargs -0 cp -P --parents -t "$src" 2>/dev/null)
[ -f "$src/debian/rules" ] || fail "the copy of the tree has no debian/rules"
start=$(date +%s)
if ! step sh -c 'cd "$1" && exec timeout "$2" dpkg-buildpackage -b -us -uc' sh "$src" "$(left 1800)" \
	>"$work/build.log" 2>&1; then
	tail -40 "$work/build.log"
	fail "dpkg-buildpackage -b failed (the last lines above)"
fi
ok "dpkg-buildpackage -b built $(cd "$work" && ls -- *.deb | tr '\n' ' ')in $(($(date +%s) - start)) s"
arch=$(dpkg --print-architecture)
changes=$work/jeattach_${version}_$arch.changes
[ -f "$changes" ] || fail "no $changes"
for p in jeattach libjeheap4 libjeheap-dev; do
	[ -f "$work/${p}_${version}_$arch.deb" ] || fail "no $p .deb was built"
done

# ---- lintian: errors fail, the rest is shown
if ! step timeout "$(left 600)" lintian --fail-on error "$changes" >"$work/lintian.log" 2>&1; then
	cat "$work/lintian.log"
	fail "lintian reports errors on the packages"
fi
grep -v 'running with root privileges' "$work/lintian.log" | sed 's/^/lintian: /'
ok "lintian: no errors"

# ---- a fresh root
cache=${JEATTACH_TEST_CACHE:-/var/cache/jeattach-test}
mkdir -p "$cache" || fail "cannot make the cache $cache"
# One run at a time per cache: debootstrap and the copies in and out of it
# are not made for two writers.
exec 8>"$cache/.lock"
flock -w "$(left 1200)" 8 || fail "another t_deb.sh held $cache/.lock too long"
if [ "$(du -sm "$cache" | cut -f1)" -gt 1024 ]; then
	echo "t_deb.sh: $cache is over 1 GiB: emptied"
	rm -rf "$cache/debootstrap" "$cache/apt"
fi
mkdir -p "$cache/debootstrap" "$cache/apt" || exit 1
start=$(date +%s)
if ! step timeout "$(left 900)" debootstrap --variant=minbase --cache-dir="$cache/debootstrap" \
	"$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
	tail -20 "$work/debootstrap.log"
	grep -qE "Failed getting release file|Couldn't download" "$work/debootstrap.log" &&
		skip "debootstrap could not download from $mirror (above)"
	fail "debootstrap --variant=minbase $suite failed (the last lines above)"
fi
ok "debootstrap --variant=minbase $suite: $(($(date +%s) - start)) s, $(du -sm "$root" | cut -f1) MiB"
mount -t proc proc "$root/proc" || fail "cannot mount /proc in $root"
# Nothing may start a service in the root: invoke-rc.d asks policy-rc.d
# (/usr/share/doc/init-system-helpers/README.policy-rc.d), 101 = forbidden.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d" && chmod 755 "$root/usr/sbin/policy-rc.d"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null
mkdir -p "$root/tmp/debs" || exit 1
for p in jeattach libjeheap4 libjeheap-dev; do
	cp "$work/${p}_${version}_$arch.deb" "$root/tmp/debs/" || exit 1
done
cp "$cache"/apt/*.deb "$root/var/cache/apt/archives/" 2>/dev/null
apt="apt-get -q -y -o APT::Keep-Downloaded-Packages=true -o Acquire::Retries=1"
step timeout "$(left 300)" chroot "$root" $root_env $apt update >"$work/apt.log" 2>&1 ||
	{ tail -20 "$work/apt.log"; fail "apt-get update in the root failed"; }
# The three packages alone first: their dependencies as apt resolves them.
if ! step timeout "$(left 900)" chroot "$root" $root_env $apt install "/tmp/debs/jeattach_${version}_$arch.deb" \
	"/tmp/debs/libjeheap4_${version}_$arch.deb" "/tmp/debs/libjeheap-dev_${version}_$arch.deb" \
	>>"$work/apt.log" 2>&1; then
	tail -30 "$work/apt.log"
	fail "apt-get install of the three .debs failed in a fresh $suite"
fi
ok "apt-get install ./jeattach ./libjeheap4 ./libjeheap-dev in a fresh $suite"

# ---- what an operator runs
out=$(in_root jeattach --version 2>&1) || fail "jeattach --version in the root: $out"
case $out in "jeattach $version "*) ;; *) fail "jeattach --version says '$out', not version $version" ;; esac
ok "jeattach --version: $out"
out=$(in_root jeheap --version 2>&1) || fail "jeheap --version in the root: $out"
case $out in "jeheap $version "*"libjeheap $version"*) ;; *) fail "jeheap --version says '$out'" ;; esac
ok "jeheap --version: $out"
out=$(in_root jeheap-jeprof --help 2>&1) || fail "jeheap-jeprof --help in the root: $out"
ok "jeheap-jeprof runs"
in_root dpkg-query -W -f='${Version}' jeattach | grep -qx "$version" || fail "dpkg says jeattach is not $version"

files=$(in_root dpkg -L jeattach) || fail "dpkg -L jeattach"
for f in /usr/bin/jeattach /usr/bin/jeheap /usr/bin/jeheap-jeprof \
	/usr/share/man/man1/jeattach.1.gz /usr/share/man/man1/jeheap.1.gz \
	/usr/share/man/man1/jeheap-jeprof.1.gz /usr/share/man/man5/jeattach-format.5.gz \
	/usr/share/bash-completion/completions/jeattach /usr/share/bash-completion/completions/jeheap \
	/usr/share/zsh/vendor-completions/_jeattach /usr/share/zsh/vendor-completions/_jeheap \
	/usr/share/fish/vendor_completions.d/jeattach.fish /usr/share/fish/vendor_completions.d/jeheap.fish; do
	echo "$files" | grep -qx "$f" || fail "dpkg -L jeattach does not list $f"
done
ok "dpkg -L jeattach: the programs, manual pages and bash, zsh and fish completions"
# The units: each that make install put in place (Makefile.am's
# dist_systemdsystemunit_DATA, as automake read it), and so each unit file
# of dist/systemd/; none enabled.
units=$(ls "$src/debian/tmp/lib/systemd/system" 2>/dev/null)
for f in "$top"/dist/systemd/*.service "$top"/dist/systemd/*.timer \
	"$top"/dist/systemd/*.socket "$top"/dist/systemd/*.path; do
	[ -f "$f" ] || continue
	echo "$units" | grep -qxF "${f##*/}" ||
		fail "make install did not install ${f#"$top"/}: add it to Makefile.am's dist_systemdsystemunit_DATA"
done
nunits=0
for u in $units; do
	nunits=$((nunits + 1))
	echo "$files" | grep -qx "/lib/systemd/system/$u" || fail "dpkg -L jeattach does not list /lib/systemd/system/$u"
	[ -f "$root/lib/systemd/system/$u" ] || fail "/lib/systemd/system/$u is not in the root"
done
got=$(echo "$files" | grep -c '^/lib/systemd/system/.')
[ "$got" = "$nunits" ] || fail "the package has $got units, Makefile.am lists $nunits"
enabled=$(find "$root/etc/systemd/system" -name 'jeattach*' 2>/dev/null)
[ -z "$enabled" ] || fail "installing enabled units: $enabled"
ok "dpkg -L jeattach: $nunits systemd unit(s) ($(echo $units)), none enabled or started"

files=$(in_root dpkg -L libjeheap-dev) || fail "dpkg -L libjeheap-dev"
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for f in /usr/include/jeheap.h "/usr/lib/$ma/libjeheap.so" "/usr/lib/$ma/libjeheap.a" \
	"/usr/lib/$ma/pkgconfig/jeheap.pc" /usr/share/man/man3/libjeheap.3.gz; do
	echo "$files" | grep -qx "$f" || fail "dpkg -L libjeheap-dev does not list $f"
done
ok "dpkg -L libjeheap-dev: the header, .so, .a, jeheap.pc, libjeheap.3"

# ---- a program against libjeheap-dev, as libjeheap(3) tells to build it
if ! step timeout "$(left 900)" chroot "$root" $root_env $apt install gcc libc6-dev pkg-config >>"$work/apt.log" 2>&1; then
	tail -20 "$work/apt.log"
	fail "apt-get install gcc libc6-dev pkg-config failed in the root"
fi
cp "$root"/var/cache/apt/archives/*.deb "$cache/apt/" 2>/dev/null
flags=$(in_root pkg-config --cflags --libs jeheap 2>&1) || fail "pkg-config --cflags --libs jeheap: $flags"
ok "pkg-config --cflags --libs jeheap: $flags"
cp "$top/doc/libjeheap-example.c" "$root/tmp/example.c" || exit 1
# shellcheck disable=SC2086
out=$(in_root gcc -Wall -o /tmp/example /tmp/example.c $flags 2>&1) || fail "compiling doc/libjeheap-example.c: $out"
# One stack holding one sampled 1 MiB object at a 512 KiB sampling rate.
printf 'heap_v2/524288\n  t*: 1: 1048576 [0: 0]\n  t0: 1: 1048576 [0: 0]\n@ 0x401000 0x401100\n  t*: 1: 1048576 [0: 0]\n  t0: 1: 1048576 [0: 0]\n\nMAPPED_LIBRARIES:\n' \
	>"$root/tmp/x.heap"
out=$(in_root /tmp/example /tmp/x.heap 2>&1) || fail "the example on a profile: $out"
# Un-sampled as jeprof does (doc/jeattach-format.5): s / (1 - exp(-s/R)).
want=$(awk 'BEGIN { printf "%.0f", 1048576 / (1 - exp(-1048576 / 524288)) }')
echo "$out" | grep -q "^$want bytes in use" || fail "the example printed '$out', not $want bytes in use"
ok "doc/libjeheap-example.c built with pkg-config in the root: $want bytes in use"
echo "PASS: the packages build, pass lintian, install in a fresh $suite and run"
