#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Targets under seccomp filters that kill (systemd's SystemCallFilter= kills
# the process on a filtered call unless SystemCallErrorNumber= is set). The
# held thread's filters are read (PTRACE_SECCOMP_GET_FILTER) and evaluated
# for every system call a dump makes, before the first one; a filter that
# would kill, or one that cannot be read, is refused with exit 10, and the
# target is as it was. (ERRNO and TRAP filters: t_variants.sh.)
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# kills_on FLAG WORDS...: the victim under filter FLAG survives --dump.
kills_on() {
	flag=$1; shift
	start_victim "sk$flag" "$TARGETS/victim_dyn" -b 2 -s "$flag"
	eval "pid=\$sk$flag"
	expect_rc 10 "$JEATTACH" -p "$pid" --dump "$WORK/sk$flag.heap"
	for w in "$@"; do
		echo "$ERR" | grep -q "$w" || fail "-s $flag: the message lacks '$w': $ERR"
	done
	[ -e "$WORK/sk$flag.heap" ] && fail "-s $flag: a profile was written"
	kill -0 "$pid" || fail "-s $flag: the target died"
	# What needs no system call still works.
	expect_rc 0 "$JEATTACH" -p "$pid" --status --activate --deactivate
	finish_victim "sk$flag"
}
kills_on k "seccomp filter would kill the process on pipe2"
kills_on K "kill the borrowed thread on pipe2"
kills_on w "kill the process on openat (jemalloc's creat of the dump)"

# --stats=full maps memory in the target: the same check.
start_victim skm "$TARGETS/victim_dyn" -b 1 -s k
expect_rc 0 "$JEATTACH" -p "$skm" --stats=full
echo "$OUT" | grep -q 'Allocated' || fail "--stats=full under a pipe2-only filter: $OUT"
finish_victim skm

# --for whose dump is refused: prof.active, off before, is put back.
# (Before: the end of --for was skipped with the dump, profiling stayed on.)
start_victim skf "$TARGETS/victim_dyn" -b 1 -s k
expect_rc 10 "$JEATTACH" -p "$skf" --for 1s --dump "$WORK/skf.heap"
expect_rc 0 "$JEATTACH" -p "$skf" --get prof.active
echo "$OUT" | grep -qw false || fail "--for left prof.active on after its dump was refused: $OUT"
finish_victim skf
pass "--for restores prof.active when its dump is refused"

# A filter that lets mmap through but fails munmap (jemalloc never unmaps
# on Linux: an allowlist may leave it out): no scratch mapping is made that
# release could not remove. Before: every hold left its 1 MiB + 64 KiB
# mapping (with the pages its calls wrote) in the target, exit 1.
start_victim skx "$TARGETS/victim_dyn" -b 1 -s m
for i in 1 2 3; do
	"$JEATTACH" -p "$skx" --stats >"$WORK/skx.out" 2>"$WORK/skx.err"
	rc=$?
	[ $rc = 0 ] || [ $rc = 10 ] || fail "munmap forbidden: exit $rc: $(cat "$WORK/skx.err")"
done
[ -z "$(scratch_maps "$skx")" ] || fail "munmap forbidden: scratch mappings left: $(scratch_maps "$skx")"
kill -0 "$skx" || fail "munmap forbidden: the target died"
# (Not finish_victim: glibc aborts when it cannot unmap a joined thread's stack.)
kill "$skx"
pass "a filter that forbids munmap: no scratch mapping left in the target"

# Without CAP_SYS_ADMIN the filter cannot be read: refused, not risked.
# (CAP_SYS_PTRACE stays: kubectl debug --profile=general's situation.)
if setpriv --bounding-set=-sys_admin true 2>/dev/null; then
	nocap() { setpriv --bounding-set=-sys_admin --inh-caps=-sys_admin -- "$@"; }
	# (CAP_CHECKPOINT_RESTORE stays: it opens map_files, not seccomp filters.)
	start_victim sku "$TARGETS/victim_dyn" -b 1 -s k
	expect_rc 10 nocap "$JEATTACH" -p "$sku" --dump "$WORK/sku.heap"
	echo "$ERR" | grep -q 'cannot read.*CAP_SYS_ADMIN' || fail "without CAP_SYS_ADMIN: $ERR"
	expect_rc 0 nocap "$JEATTACH" -p "$sku" --status
	finish_victim sku
	# No filter at all: nothing to read, the dump works.
	start_victim skn "$TARGETS/victim_dyn" -b 1
	expect_rc 0 nocap "$JEATTACH" -p "$skn" --dump "$WORK/skn.heap"
	head -1 "$WORK/skn.heap" | grep -q '^heap_v2/' || fail "no profile without CAP_SYS_ADMIN"
	finish_victim skn
	pass "without CAP_SYS_ADMIN: refused under a filter, works without one"
else
	echo "SKIP part: setpriv cannot drop CAP_SYS_ADMIN here"
fi
