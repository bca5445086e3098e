#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Causes told truly: a dump refused for want of file descriptors says so,
# never blaming a seccomp filter the process does not have (Seccomp: 0) or
# /proc. victim_bigprof opens no descriptor of its own after "ready"; its
# RLIMIT_NOFILE is lowered from outside (prlimit --pid) to leave 0, then
# 1 descriptor free below the limit: memfd_create fails with EMFILE, then
# jemalloc's open of its file (prof.dump: EFAULT). Each time: one line, the
# documented exit code, the cause (descriptors, the limit, the fix), no
# profile, and the victim dumps again once its limit is back.
#
# The messages are act_cause.c's; act_dump.c must call them
# (act_memfd_failed, act_dump_file_failed): until it does this test is in
# XFAIL_TESTS (Makefile.am).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
command -v prlimit >/dev/null || skip "prlimit (util-linux) is not installed"

start_victim v "$TARGETS/victim_bigprof" -n 16
[ "$(sed -n 's/^Seccomp:\t//p' "/proc/$v/status")" = 0 ] || skip "the victim runs under seccomp here"
hard=$(prlimit --pid "$v" --nofile --noheadings --output HARD)
# below LIMIT: the victim's descriptors below LIMIT.
below() { ls "/proc/$v/fd" | awk -v l="$1" '$1 < l { n++ } END { print n + 0 }'; }
# limit_for FREE: the highest soft limit that leaves FREE descriptors free
# (the victim's descriptors need not be contiguous: a shell leaves 10, 251).
limit_for() {
	l=1 best=
	while [ $((l - $(below "$l"))) -le "$1" ]; do
		[ $((l - $(below "$l"))) = "$1" ] && best=$l
		l=$((l + 1)); [ $l -gt 1000 ] && break
	done
	[ -n "$best" ] || fail "no limit leaves $1 free: $(ls "/proc/$v/fd")"
	echo "$best"
}

for free in 0 1; do
	lim=$(limit_for $free)
	prlimit --pid "$v" --nofile="$lim:$hard" || fail "prlimit"
	if [ $free = 0 ]; then want=10; else want=8; fi
	expect_rc $want "$JEATTACH" -p "$v" --dump "$WORK/f$free.heap"
	[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "not one line: $ERR"
	echo "$ERR" | grep -qi seccomp && fail "$free free: seccomp blamed, with no filter: $ERR"
	echo "$ERR" | grep -q "is /proc mounted" && fail "$free free: /proc blamed: $ERR"
	echo "$ERR" | grep -q "free file descriptor.*RLIMIT_NOFILE $lim.*prlimit --pid $v --nofile=" ||
		fail "$free free: $ERR"
	[ -e "$WORK/f$free.heap" ] && fail "a profile was published"
	pass "$free descriptor(s) free: exit $want, \"$(echo "$ERR" | sed 's/^jeattach: [0-9]*: //')\""
done
prlimit --pid "$v" --nofile="$hard:$hard"
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/ok.heap"
grep -q '^MAPPED_LIBRARIES:' "$WORK/ok.heap" || fail "no whole profile once the limit is back"
pass "with its limit back the victim dumps whole"
