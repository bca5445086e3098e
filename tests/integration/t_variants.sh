#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Where jemalloc may hide, and targets that fight back: a non-PIE program,
# a symbol prefix, an executable deleted since start, a stripped static
# binary, seccomp filters that deny or trap the system calls of a dump.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# Non-PIE executable.
start_victim nopie "$TARGETS/victim_nopie" -b 2
expect_rc 0 "$JEATTACH" -p "$nopie" --status --activate --json
[ "$(json_get "$OUT" "j['actions'][1]['prof_active']")" = True ] || fail "$OUT"
finish_victim nopie
pass "non-PIE"

# A je_ prefix: found by itself, and with --prefix; a wrong --prefix fails.
start_victim pfx "$TARGETS/victim_prefixed" -b 1
expect_rc 0 "$JEATTACH" -p "$pfx" --status --json
[ "$(json_get "$OUT" "j['jemalloc']['symbol_prefix']")" = je_ ] || fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$pfx" --prefix je_ --activate
expect_rc 5 "$JEATTACH" -p "$pfx" --prefix xx_ --status
finish_victim pfx
pass "symbol prefix"

# The executable deleted after start: read through /proc/PID/map_files.
cp "$TARGETS/victim_dyn" "$WORK/gone"
start_victim gone "$WORK/gone" -b 1
rm "$WORK/gone"
expect_rc 0 "$JEATTACH" -p "$gone" --status --dump "$WORK/gone.heap" --json
grep -q '^heap_v2/' "$WORK/gone.heap" || fail "no profile from a deleted executable"
# Replaced by another file of the same name: still the mapped inode is read.
cp "$TARGETS/victim_plain" "$WORK/gone"
expect_rc 0 "$JEATTACH" -p "$gone" --activate
finish_victim gone
pass "deleted and replaced executable"

# A stripped static binary: no symbol for mallctl anywhere.
cp "$TARGETS/victim_static" "$WORK/stripped"
strip --strip-all "$WORK/stripped"
start_victim stripped "$WORK/stripped" -b 1
expect_rc 5 "$JEATTACH" -p "$stripped" --status
echo "$ERR" | grep -q 'stripped' || fail "$ERR"
finish_victim stripped
pass "stripped static binary"

# seccomp: pipe2 denied with EPERM -> a clear refusal, nothing done.
start_victim sece "$TARGETS/victim_dyn" -b 1 -s e
expect_rc 0 "$JEATTACH" -p "$sece" --status
expect_rc 10 "$JEATTACH" -p "$sece" --dump "$WORK/sece.heap"
echo "$ERR" | grep -q 'pipe2 in the target failed.*seccomp' || fail "$ERR"
[ ! -e "$WORK/sece.heap" ] || fail "a file appeared"
finish_victim sece
# seccomp: openat raises SIGSYS, which would kill this victim: jeattach
# answers EPERM instead, jemalloc gives up cleanly (and unlocks), and a
# later status still works.
# The main thread is borrowed: libc sets its errno to EPERM inside the
# call; the victim checks that errno reads as before once released.
start_victim sect "$TARGETS/victim_dyn" -b 1 -s t
expect_rc 10 "$JEATTACH" -p "$sect" --tid "$sect" --dump "$WORK/sect.heap"
echo "$ERR" | grep -q 'seccomp filter forbids system call' || fail "$ERR"
expect_rc 10 "$JEATTACH" -p "$sect" --dump "$WORK/sect.heap"
expect_rc 0 "$JEATTACH" -p "$sect" --status --activate
finish_victim sect
pass "seccomp"
