#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Install the Debian 12 packages jeattach needs to build and test. Idempotent:
# when every package is already installed it changes nothing and exits 0.
# With --bench, also the benchmarks' peers (below).
set -eu
# prometheus, prometheus-node-exporter, iproute2 (ss) and systemd
# (systemd-analyze verify): tests/integration/t_exporter.sh runs the real
# server and exporter on 127.0.0.1, checks what they bind, and verifies
# dist/systemd's units.
# systemd's systemd-analyze verify also checks the profiles' units
# (t_systemd_profiles.sh); on a container without it the test skips.
PKGS="build-essential autoconf automake libtool pkg-config
      libelf-dev libdw-dev zlib1g-dev liblzma-dev libunwind-dev check
      libjemalloc-dev libjemalloc2 golang-go graphviz libc6-dbg elfutils
      gcc-multilib gdb strace redis-server redis-tools util-linux procps
      groff-base python3 valgrind clang libclang-rt-14-dev
      chromium python3-websocket tmux zsh fish prometheus-node-exporter
      apt dpkg debian-archive-keyring linux-perf prometheus iproute2 systemd"
# The Debian package (debian/, README "Debian package") and its test
# (tests/package/t_deb.sh, a stage of .ci/run): dpkg-buildpackage (dpkg-dev)
# with dh and dh_autoreconf (debhelper, dh-autoreconf), fakeroot for a
# build as a user, lintian on the result, debootstrap and wget (the fresh
# root and the archive's reachability), git (the tree's files to build from).
PKGS="$PKGS debhelper dh-autoreconf dpkg-dev fakeroot lintian debootstrap wget git"
# --bench: also the peers that bench/service.py and bench/sampler_cost.py
# measure (not for CI: .ci/run runs no benchmark): heaptrack, bcc's
# memleak-bpfcc (bpfcc-tools) and kernel headers for bcc to compile it
# against (about 60 MB; bench/peers.py says why any version serves).
if [ "${1:-}" = --bench ]; then
	PKGS="$PKGS heaptrack bpfcc-tools linux-headers-cloud-amd64"
fi
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q '^install ok installed'; then
		missing="$missing $p"
	fi
done
if [ -z "$missing" ]; then
	echo "install-deps: all build and test dependencies are installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing:$missing; run this script as root (it uses apt-get)" >&2
	exit 1
fi
echo "install-deps: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
