#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# An emulated Debian 12 arm64 machine for testing jeattach's aarch64 port
# (issue #17) on an x86_64 Debian 12 host, with Debian's own qemu.
#
#   tests/arm64/vm.sh deps          install the host tools (root; apt-get)
#   tests/arm64/vm.sh image         build the cached system image (once)
#   tests/arm64/vm.sh run CMD...    boot, run CMD in a copy of the tree, power off
#   tests/arm64/vm.sh shell         boot to an interactive root shell
#   tests/arm64/vm.sh check [T...]  autogen, configure, make, make check in the guest
#                                   (T: only these tests, e.g. t_pac t_kill)
#   tests/arm64/vm.sh xcheck [T...] cross-build on the host (cross-check.sh, clang and
#                                   lld: minutes, not the guest's half hour), then run
#                                   the integration tests (T: only these) in the guest;
#                                   t_flame_browser's browser half runs on the host
#                                   (its Chromium) with the guest's graphs
#   tests/arm64/vm.sh xbench [A...] the same cross build, then bench/run.py --skip-heap A...
#                                   in the guest (jeattach against gdb there)
#   tests/arm64/vm.sh clean         remove the cached image
#
# See doc/arm64.md for what it costs and why it is not a CI stage.
#
# Environment:
#   JEATTACH_ARM64_CACHE    where the image lives (default ~/.cache/jeattach-arm64)
#   JEATTACH_ARM64_TREE     the source tree to test (default: this script's tree)
#   JEATTACH_ARM64_TIMEOUT  seconds before a guest run is killed (run: 900, check: 5400,
#                           xcheck: 7200)
#   JEATTACH_ARM64_SLOWDOWN  TEST_SLOWDOWN in the guest (default 4; tests/integration/lib.sh)
#   JEATTACH_ARM64_NOBUILD=1  xcheck, xbench: reuse the last cross build
#   JEATTACH_ARM64_CONFIGURE  xcheck, xbench: more configure options for the cross
#                           build (--enable-static-jeattach: t_static runs)
#   JEATTACH_ARM64_SMP, JEATTACH_ARM64_MEM   guest CPUs and memory (2, 4G)
#   JEATTACH_ARM64_PROF=0   keep Debian's arm64 jemalloc, which has no profiling
#                           (default: Debian's source rebuilt with it, jemalloc-prof.sh)
#   JEATTACH_JEMALLOC_GIT   a jemalloc git directory: 5.2.1 is built from it with
#                           profiling for t_jemalloc52 (jemalloc-prof.sh says why)
#   JEATTACH_ARM64_WATCHDOG  each integration test's watchdog in the guest
#                           (seconds, default 1200: TCG runs 5-20x slower)
set -eu

me=${0##*/}
die() { echo "$me: $*" >&2; exit 1; }
log() { echo "$me: $*" >&2; }

here=$(cd "$(dirname "$0")" && pwd)
TREE=${JEATTACH_ARM64_TREE:-$(cd "$here/../.." && pwd)}
CACHE=${JEATTACH_ARM64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jeattach-arm64}
SMP=${JEATTACH_ARM64_SMP:-2}
MEM=${JEATTACH_ARM64_MEM:-4G}
SUITE=bookworm

# Host tools. Only amd64 packages: the arm64 system is built in a directory by
# mmdebstrap, never by apt-get install on the host, because Debian's aarch64
# cross compiler conflicts with gcc-multilib and libjemalloc-dev is not
# Multi-Arch: same (installing either arm64 piece removes what the x86 suite needs).
HOST_PKGS="mmdebstrap arch-test qemu-system-arm qemu-user-static e2fsprogs"

# The guest's packages: scripts/install-deps.sh less what is x86-only or only
# feeds tests that skip without it (gcc-multilib, chromium, golang, clang).
GUEST_PKGS="build-essential autoconf automake libtool pkg-config
	libelf-dev libdw-dev zlib1g-dev liblzma-dev libunwind-dev check
	libjemalloc-dev libjemalloc2 graphviz libc6-dbg elfutils
	gdb strace redis-server redis-tools util-linux procps groff-base
	python3 python3-websocket tmux valgrind git
	linux-image-arm64 initramfs-tools kmod iproute2 busybox mount"
# The image is rebuilt when this changes (the package list or the guest init).
IMAGE_VERSION=1

img=$CACHE/root.img
kernel=$CACHE/vmlinuz
initrd=$CACHE/initrd.img
stamp=$CACHE/image.stamp

want_stamp() { printf '%s\n%s\n%s\n' "$IMAGE_VERSION" "$SUITE" "$GUEST_PKGS" | md5sum | cut -d' ' -f1; }

# The host's Debian archive, read from its apt configuration at run time so
# that no mirror is named here. deb822 first (bookworm's default), then
# one-line sources.list.
host_sources() {
	local f
	for f in /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list; do
		if [ -s "$f" ] && grep -Eq "^(Suites:.*|deb .*)\\b$SUITE\\b" "$f"; then
			echo "$f"
			return 0
		fi
	done
	die "no Debian $SUITE entry in /etc/apt/sources.list.d/debian.sources or /etc/apt/sources.list"
}

need() {
	command -v "$1" >/dev/null 2>&1 || die "$1 not found; run '$0 deps' as root (installs: $HOST_PKGS)"
}

# mmdebstrap runs the arm64 maintainer scripts (and the kernel's initramfs
# hook) on the host through qemu-user; that needs binfmt_misc with the
# qemu-aarch64 entry that qemu-user-static ships in /usr/lib/binfmt.d.
binfmt() {
	local d=/proc/sys/fs/binfmt_misc conf=/usr/lib/binfmt.d/qemu-aarch64.conf
	if [ ! -e $d/status ]; then
		mount -t binfmt_misc binfmt_misc $d 2>/dev/null ||
			die "binfmt_misc is not mounted and cannot be mounted (mount -t binfmt_misc binfmt_misc $d)"
	fi
	if [ ! -e $d/qemu-aarch64 ]; then
		[ -f $conf ] || die "$conf missing; run '$0 deps' (qemu-user-static)"
		cat $conf >$d/register 2>/dev/null || die "cannot register qemu-aarch64 in $d/register"
	fi
	grep -q enabled $d/qemu-aarch64 || die "binfmt entry $d/qemu-aarch64 is disabled"
}

cmd_deps() {
	[ "$(id -u)" = 0 ] || die "deps: run as root (apt-get install $HOST_PKGS)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $HOST_PKGS
	# The x86 suite needs these two; say so loudly if anything took them.
	for p in gcc-multilib libjemalloc-dev:amd64; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			log "warning: $p is not installed (the x86 suite needs it; scripts/install-deps.sh)"
	done
}

# The guest's PID 1. It stays small and generic: everything a run does is in
# the run directory's guest.sh, shared over 9p, so changing what runs never
# means rebuilding the image.
guest_init() {
	cat <<'EOF'
#!/bin/sh
# PID 1 of the jeattach arm64 test machine (written by tests/arm64/vm.sh).
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH HOME=/root TERM=${TERM:-linux} LANG=C.UTF-8
# Images of IMAGE_VERSION 1 lack the mount package (not Essential); busybox's
# mount does proc, tmpfs and 9p alike.
command -v mount >/dev/null || mount() { busybox mount "$@"; }
# The initramfs moved /proc, /sys, /dev and /run here; mount whatever it did not.
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
mountpoint -q /dev/pts || mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mountpoint -q /dev/shm || mount -t tmpfs tmpfs /dev/shm
mountpoint -q /run || mount -t tmpfs -o mode=755 tmpfs /run
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -o remount,rw /
hostname arm64vm
ip link set lo up
# Loopback only: the machine has no network card at all.
sysctl -qw kernel.yama.ptrace_scope=0 2>/dev/null
modprobe -q 9pnet_virtio; modprobe -q 9p
mkdir -p /mnt/run
if mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 run /mnt/run && [ -f /mnt/run/guest.sh ]; then
	/bin/sh /mnt/run/guest.sh
else
	echo "jeattach-vm-init: no run directory shared as 9p tag 'run'" >&2
fi
sync
# Power off now (no init system to ask): sysrq 'o'.
echo o >/proc/sysrq-trigger
sleep 10
EOF
}

cmd_image() {
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(want_stamp)" ] &&
		[ -f "$img" ] && [ -f "$kernel" ] && [ -f "$initrd" ]; then
		log "image: up to date in $CACHE"
		return 0
	fi
	[ "$(id -u)" = 0 ] || die "image: building the image needs root (mmdebstrap in root mode, binfmt_misc)"
	need mmdebstrap
	need mke2fs
	[ -x /usr/bin/qemu-aarch64-static ] || die "qemu-aarch64-static not found; run '$0 deps'"
	binfmt
	local src root t0 pkgs
	src=$(host_sources)
	mkdir -p "$CACHE"
	root=$CACHE/rootfs
	rm -rf "$root" "$img" "$stamp"
	t0=$(date +%s)
	pkgs=$(echo $GUEST_PKGS | tr ' ' ,)
	log "image: mmdebstrap $SUITE arm64 from $src into $root (this takes a while under qemu-user)"
	# Recommends off: the guest is a build box. Documentation off: smaller
	# image, fewer files to unpack through qemu-user. The host's apt options
	# (e.g. an archive snapshot's Check-Valid-Until) are copied too.
	mmdebstrap --mode=root --arch=arm64 --variant=apt \
		--include="$pkgs" \
		--aptopt='Acquire::Check-Valid-Until "false"' \
		--aptopt='APT::Install-Recommends "false"' \
		--dpkgopt='path-exclude=/usr/share/doc/*' \
		--dpkgopt='path-include=/usr/share/doc/*/copyright' \
		--dpkgopt='path-exclude=/usr/share/locale/*' \
		--dpkgopt='path-exclude=/usr/share/info/*' \
		--customize-hook='echo arm64vm >"$1/etc/hostname"' \
		--customize-hook='echo "/dev/vda / ext4 rw,relatime 0 1" >"$1/etc/fstab"' \
		--customize-hook='passwd --root "$1" -d root' \
		"$SUITE" "$root" "$src"
	guest_init >"$root/usr/local/sbin/jeattach-vm-init"
	chmod 755 "$root/usr/local/sbin/jeattach-vm-init"
	# The kernel and the initramfs its postinst built (initramfs-tools,
	# MODULES=most: virtio and ext4 are modules in Debian's arm64 kernel).
	local v
	v=$(ls "$root"/boot/vmlinuz-* | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
	[ -n "$v" ] && [ -f "$root/boot/initrd.img-$v" ] || die "image: no kernel/initramfs in $root/boot"
	cp "$root/boot/vmlinuz-$v" "$kernel"
	cp "$root/boot/initrd.img-$v" "$initrd"
	echo "$v" >"$CACHE/kernel.version"
	# An ext4 image straight from the directory: no loop mount needed. Sparse,
	# 8 GiB leaves room for a build; runs never write to it (-snapshot).
	log "image: mke2fs root.img from $root"
	mke2fs -q -t ext4 -L jeattach-arm64 -d "$root" "$img" 8G
	rm -rf "$root"
	want_stamp >"$stamp"
	log "image: done in $(($(date +%s) - t0)) s: $img, kernel $v"
}

# Boot the image with RUNDIR shared as 9p tag 'run' (its guest.sh runs as
# root), under a timeout so that a wedged guest never hangs the caller.
boot() {
	local rundir=$1 tmo=$2
	need qemu-system-aarch64
	need timeout
	[ -f "$stamp" ] && [ -f "$img" ] && [ -f "$kernel" ] && [ -f "$initrd" ] ||
		die "no image in $CACHE; run '$0 image' (as root) first"
	# -snapshot: writes go to a temporary file, the cached image stays as
	# built. -nic none: loopback only, as the issue asks. -cpu max: PAC, BTI,
	# MTE and the rest, so the port meets them. panic=-1 and -no-reboot:
	# should PID 1 die, qemu exits instead of hanging.
	local rc=0
	timeout -k 15 "$tmo" qemu-system-aarch64 \
		-M virt -cpu max -smp "$SMP" -m "$MEM" -accel tcg,thread=multi \
		-nodefaults -no-reboot -display none -monitor none -serial stdio \
		-kernel "$kernel" -initrd "$initrd" \
		-append "root=/dev/vda rw rootfstype=ext4 console=ttyAMA0 quiet loglevel=3 panic=-1 init=/usr/local/sbin/jeattach-vm-init" \
		-drive file="$img",format=raw,if=virtio,snapshot=on \
		-virtfs local,path="$rundir",mount_tag=run,security_model=none,id=run \
		-virtfs local,path="$CACHE/build",mount_tag=build,security_model=none,id=build \
		-nic none || rc=$?
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		log "guest timed out after $tmo s (JEATTACH_ARM64_TIMEOUT) and was killed"
	fi
	return "$rc"
}

# A clean copy of the tree: tracked files and untracked-but-not-ignored ones
# (new work not yet added), so the host's x86 build products never reach the
# guest and the tree itself is never written to.
tree_tar() {
	[ -d "$TREE" ] || die "tree $TREE not found"
	if git -C "$TREE" rev-parse --git-dir >/dev/null 2>&1; then
		(cd "$TREE" && git ls-files -z --cached --others --exclude-standard |
			xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
			tar --null -T - -cf "$1")
	else
		tar -C "$TREE" -cf "$1" .
	fi
}

# What the tests fetch from Debian's archive, fetched here on the host into
# DIR (copied from a cache kept in $CACHE/archive): the arm64 jemalloc
# builds (tests/jemalloc-archive.sh) and busybox-static:armhf, t_errors'
# 32-bit process. What cannot be fetched is left out: its tests say why.
archive() {
	local v
	for v in 5.2.1 5.3.0; do
		JEATTACH_ARCHIVE_ARCH=arm64 JEATTACH_ARCHIVE_CACHE="$CACHE/archive" \
			sh "$TREE/tests/jemalloc-archive.sh" "$v" >/dev/null 2>&1 ||
			log "jemalloc $v (arm64) could not be fetched; its tests will skip"
	done
	JEATTACH_ARCHIVE_CACHE="$CACHE/archive" sh "$TREE/tests/debian-archive.sh" \
		bookworm armhf busybox-static >/dev/null 2>&1 ||
		log "busybox-static:armhf could not be fetched; t_errors' 32-bit case will not run"
	# Debian's arm64 node exporter for t_prometheus: one Go binary that
	# needs libc only, so it runs from the share without being installed.
	JEATTACH_ARCHIVE_CACHE="$CACHE/archive" sh "$TREE/tests/debian-archive.sh" \
		bookworm arm64 prometheus-node-exporter >/dev/null 2>&1 ||
		log "prometheus-node-exporter:arm64 could not be fetched; t_prometheus will skip"
	mkdir -p "$1"
	[ -d "$CACHE/archive" ] && cp -a "$CACHE/archive/." "$1/"
	# Debian's arm64 jemalloc has no profiling (jemalloc-prof.sh): the
	# guest gets Debian's source rebuilt with it, unless asked not to.
	if [ "${JEATTACH_ARM64_PROF:-1}" != 0 ]; then
		sh "$TREE/tests/arm64/jemalloc-prof.sh" "$CACHE/jemalloc-prof" &&
			cp -a "$CACHE/jemalloc-prof" "$1/jemalloc-prof" ||
			log "no jemalloc with profiling for the guest; tests that dump will fail there"
		# t_jemalloc52's stand-in for Debian 11's 5.2.1, whose source
		# only a jemalloc git directory still provides (jemalloc-prof.sh).
		sh "$TREE/tests/arm64/jemalloc-prof.sh" "$CACHE/jemalloc52-prof" 5.2.1 &&
			cp -a "$CACHE/jemalloc52-prof" "$1/jemalloc52-prof" ||
			log "no jemalloc 5.2.1 with profiling for the guest; t_jemalloc52 will skip after --status"
	fi
	return 0
}

# run: GUEST_CMD is a shell command line; its output streams to stdout and
# its exit status becomes ours. Files the command leaves in /mnt/run/out come
# back in $OUT (default: a fresh directory under $CACHE/runs).
run_in_guest() {
	local tmo=$1 cmd=$2 rundir
	mkdir -p "$CACHE/runs"
	rundir=$(mktemp -d "$CACHE/runs/run.XXXXXX")
	mkdir -p "$rundir/out"
	tree_tar "$rundir/src.tar"
	printf '%s\n' "$cmd" >"$rundir/cmd"
	mkdir -p "$CACHE/build"
	archive "$rundir/archive"
	cat >"$rundir/guest.sh" <<'EOF'
# Runs in the guest as root, from jeattach-vm-init; /mnt/run is the host's run dir.
echo "guest: up after $(cut -d' ' -f1 /proc/uptime) s"
# The build tree lives on the host ($CACHE/build, 9p tag 'build') so that a
# second run recompiles only what changed: under TCG a full build is ~19 min.
# Extracting keeps each file's mtime, so make sees only real changes.
command -v mount >/dev/null || mount() { busybox mount "$@"; } # as the init does
mkdir -p /build
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 build /build ||
	echo "guest: no shared build directory; building from scratch on the image"
mkdir -p /build/jeattach && cd /build/jeattach && tar -xf /mnt/run/src.tar
# jemalloc builds from Debian's archive, fetched on the host (the guest has
# no network): tests/jemalloc-archive.sh finds them here.
export JEATTACH_ARCHIVE_CACHE=/mnt/run/archive
# Debian's jemalloc rebuilt with profiling, over Debian's own (the image is
# a snapshot: nothing is kept).
if [ -f /mnt/run/archive/jemalloc-prof/libjemalloc.so.2 ]; then
	cp /mnt/run/archive/jemalloc-prof/lib* /usr/lib/aarch64-linux-gnu/
	echo "guest: jemalloc 5.3.0 with --enable-prof installed over Debian's (which has no profiling on arm64)"
fi
# 5.2.1 rebuilt with profiling, for t_jemalloc52 (preloaded, not installed).
if [ -f /mnt/run/archive/jemalloc52-prof/libjemalloc.so.2 ]; then
	export JEATTACH_JEMALLOC52_PROF=/mnt/run/archive/jemalloc52-prof/libjemalloc.so.2
fi
# The unified cgroup hierarchy, as systemd mounts it on a Debian server
# (the init mounts no cgroup): t_frozen freezes a victim through it.
if ! grep -q ' /sys/fs/cgroup ' /proc/mounts; then
	mount -t cgroup2 cgroup2 /sys/fs/cgroup && echo "guest: cgroup2 mounted at /sys/fs/cgroup"
fi
# No real-time throttling: under TCG jeattach takes 1-4 s to start, longer
# than the 0.95 s of each second (sched_rt_runtime_us) the default lets
# victim_woken's SCHED_FIFO spinner keep its waiter off the CPU, so t_woken's
# borrows meant for the woken window landed in the next wait (2026-11-24: 7
# of 10 windows, 2 waits late; with -1, 10 of 10 and none late).
echo -1 >/proc/sys/kernel/sched_rt_runtime_us && echo "guest: real-time throttling off"
for d in /mnt/run/archive/*prometheus-node-exporter*/root/usr/bin; do
	[ -x "$d/prometheus-node-exporter" ] && PATH=$PATH:$d && export PATH
done
rc=0
sh -c "$(cat /mnt/run/cmd)" </dev/null || rc=$?
echo "$rc" >/mnt/run/rc
sync
echo "guest: command exited $rc after $(cut -d' ' -f1 /proc/uptime) s"
EOF
	local t0 qrc=0 rc
	t0=$(date +%s)
	boot "$rundir" "$tmo" </dev/null || qrc=$?
	if [ -f "$rundir/rc" ]; then
		rc=$(cat "$rundir/rc")
	else
		log "no exit status from the guest (qemu exited $qrc)"
		rc=125
	fi
	log "run: $(($(date +%s) - t0)) s wall, guest exit $rc; files in $rundir"
	rm -f "$rundir/src.tar"
	RUNDIR=$rundir
	return "$rc"
}

cmd_run() {
	[ $# -gt 0 ] || die "run: give a command (e.g. '$0 run uname -a')"
	local q="" a
	for a; do q="$q '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"; done
	run_in_guest "${JEATTACH_ARM64_TIMEOUT:-900}" "$q"
}

cmd_shell() {
	local rundir
	mkdir -p "$CACHE/runs"
	rundir=$(mktemp -d "$CACHE/runs/shell.XXXXXX")
	tree_tar "$rundir/src.tar"
	cat >"$rundir/guest.sh" <<'EOF'
mkdir -p /build/jeattach && cd /build/jeattach && tar -xf /mnt/run/src.tar
echo "guest: tree in /build/jeattach; exit the shell to power off"
setsid -c /bin/bash -l </dev/ttyAMA0 >/dev/ttyAMA0 2>&1
EOF
	boot "$rundir" "${JEATTACH_ARM64_TIMEOUT:-7200}"
}

cmd_check() {
	local rc=0 tests="" t
	for t; do tests="$tests tests/integration/${t%.sh}.sh"; done
	# make check's logs come back to the host: test-suite.log and every
	# test's own log, plus config.log when configure is what failed.
	run_in_guest "${JEATTACH_ARM64_TIMEOUT:-5400}" '
t() { s=$(cut -d" " -f1 /proc/uptime); echo "guest: [$s s] $*"; }
save() { cp config.log /mnt/run/out/ 2>/dev/null; cp test-suite.log /mnt/run/out/ 2>/dev/null
	find . -name "*.log" -path "*tests*" -exec cp --parents {} /mnt/run/out/ \; 2>/dev/null; :; }
export WATCHDOG_SECONDS='"${JEATTACH_ARM64_WATCHDOG:-1200}"'
export TEST_SLOWDOWN='"${JEATTACH_ARM64_SLOWDOWN:-4}"'
# Once per build tree: later runs let make re-run what changed.
if [ ! -f configure ]; then
	t autogen; ./autogen.sh >/mnt/run/out/autogen.out 2>&1 || { tail -20 /mnt/run/out/autogen.out; exit 2; }
fi
if [ ! -f Makefile ]; then
	t configure; ./configure || { save; exit 3; }
fi
t make; make -j'"$SMP"' || { save; exit 4; }
rm -f test-suite.log
t make check; make -j'"$SMP"' check '"${tests:+TESTS=\"$tests\"}"'; rc=$?
save; t done; exit $rc' || rc=$?
	log "check: logs in $RUNDIR/out"
	[ -f "$RUNDIR/out/test-suite.log" ] && log "check: test-suite.log: $RUNDIR/out/test-suite.log"
	return "$rc"
}

# The tree cross-built on the host in $CACHE/build/xbuild (shared with the
# guest as /build/xbuild), configured there: its scripts and libtool
# wrappers name that path, so the guest makes the same path lead to it.
# JEATTACH_ARM64_NOBUILD=1 reuses the last cross build.
XB=$CACHE/build/xbuild
xbuild() {
	[ "${JEATTACH_ARM64_NOBUILD:-0}" = 1 ] && [ -f "$XB/Makefile" ] && return 0
	local prof=""
	if [ "${JEATTACH_ARM64_PROF:-1}" != 0 ]; then
		sh "$here/jemalloc-prof.sh" "$CACHE/jemalloc-prof" && prof=$CACHE/jemalloc-prof
	fi
	JEATTACH_ARM64_BUILD=$XB JEATTACH_ARM64_JEMALLOC_PROF=$prof sh "$here/cross-check.sh" ||
		die "the cross build or its unit tests failed"
}
# The guest's first lines: into the cross-built tree by its host path.
# Tests run programs as another user (t_errors: nobody): every directory
# above the tree searchable, as /build/jeattach is for check (root is 0700).
xguest_cd() {
	printf '%s
' "mkdir -p '$(dirname "$XB")' && ln -sfn /build/xbuild '$XB' && cd '$XB' || exit 2" \
		'd=$PWD; while d=$(dirname "$d"); [ "$d" != / ]; do chmod o+x "$d"; done'
}

# Each test runs as make check would run it (top_srcdir, top_builddir, its
# exit status 0 pass, 77 skip); logs come back in $RUNDIR/out, and a failed
# test's work directory in $RUNDIR/out/TEST.work (lib.sh's TEST_KEEP).
cmd_xcheck() {
	local rc=0 tests="" t sh env
	xbuild
	# What make check's AM_TESTS_ENVIRONMENT gives each test; jemalloc
	# where the guest has it (the cross build names the host's unpacked copy).
	mkv() { sed -n "s/^$1 = //p" "$XB/Makefile"; }
	env="STATIC_JEATTACH='$(mkv STATIC_JEATTACH_TEST)' JEHEAP_HAS_LIBDW='$(mkv have_libdw)'"
	env="$env JEMALLOC_SO=/usr/lib/aarch64-linux-gnu/libjemalloc.so.2 CK_DEFAULT_TIMEOUT=60"
	env="$env FLAME_EXPORT=/mnt/run/out/t_flame_browser.graphs"
	# The shell make check runs them with (SH_LOG_COMPILER: configure's, bash).
	sh=$(mkv SHELL)
	for t; do tests="$tests ${t%.sh}"; done
	[ -n "$tests" ] || tests=$(sed -n 's|^\t*tests/integration/\(t_[a-z0-9_]*\)\.sh.*|\1|p' "$TREE/Makefile.am" | tr '\n' ' ')
	run_in_guest "${JEATTACH_ARM64_TIMEOUT:-7200}" "$(xguest_cd)"'
export top_srcdir=$PWD top_builddir=$PWD '"$env"'
export WATCHDOG_SECONDS='"${JEATTACH_ARM64_WATCHDOG:-1200}"' TEST_SLOWDOWN='"${JEATTACH_ARM64_SLOWDOWN:-4}"'
p=0 f=0 s=0 failed=""
for t in '"$tests"'; do
	b=$(cut -d" " -f1 /proc/uptime)
	TEST_KEEP=/mnt/run/out/$t.work '"${sh:-/bin/sh}"' tests/integration/$t.sh >/mnt/run/out/$t.log 2>&1; r=$?
	e=$(cut -d" " -f1 /proc/uptime)
	case $r in 0) w=PASS; p=$((p + 1)) ;; 77) w=SKIP; s=$((s + 1)) ;; *) w=FAIL; f=$((f + 1)); failed="$failed $t" ;; esac
	echo "$w: $t ($b-$e s)"
	[ $w = PASS ] || tail -3 /mnt/run/out/$t.log | sed "s/^/    /"
done
echo "# PASS: $p  SKIP: $s  FAIL: $f${failed:+ (}${failed# }${failed:+)}"
[ $f = 0 ]' || rc=$?
	xflame || rc=1
	log "xcheck: logs in $RUNDIR/out"
	return "$rc"
}

# The guest has no browser (Chromium under TCG would take minutes a page):
# t_flame_browser there leaves its flame graphs in out/, and their browser
# half runs here, in the host's Chromium, on the guest's very files.
xflame() {
	local g="$RUNDIR/out/t_flame_browser.graphs" r=0
	[ -d "$g" ] || return 0
	env top_srcdir="$TREE" top_builddir="$TREE" FLAME_FROM="$g" \
		sh "$TREE/tests/integration/t_flame_browser.sh" >"$RUNDIR/out/t_flame_browser.host.log" 2>&1 || r=$?
	case $r in 0) echo "PASS: t_flame_browser's browser half, on the host, with the guest's graphs" ;;
	77) echo "SKIP: t_flame_browser's browser half on the host: $(sed -n 's/^SKIP: //p' "$RUNDIR/out/t_flame_browser.host.log")" ;;
	*) echo "FAIL: t_flame_browser's browser half on the host, with the guest's graphs"
	   tail -3 "$RUNDIR/out/t_flame_browser.host.log" | sed 's/^/    /'; return 1 ;;
	esac
}

# bench/run.py in the guest on the cross-built tree (attach figures:
# jeattach against gdb in the same machine); ARGS go to run.py.
cmd_xbench() {
	local q="" a
	for a; do q="$q '$(printf '%s' "$a" | sed "s/'/'\\\\''/g")'"; done
	xbuild
	run_in_guest "${JEATTACH_ARM64_TIMEOUT:-7200}" "$(xguest_cd)
python3 /build/jeattach/bench/run.py \"\$PWD\" --skip-heap$q"
}

cmd_clean() { rm -rf "$CACHE"; log "removed $CACHE"; }

case ${1:-} in
deps | image | run | shell | check | xcheck | xbench | clean)
	c=$1; shift; "cmd_$c" "$@" ;;
*) sed -n '3,/^set -eu/{/^set -eu/d; s/^# \{0,1\}//p}' "$0" >&2; exit 2 ;;
esac
