#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A process frozen by a cgroup freezer (v2 cgroup.freeze, v1 freezer.state)
# is refused before any thread is touched (exit 10): a borrowed thread would
# not run the call before the thaw, and jeattach waited for ever. Thawed,
# the victim is healthy and jeattach works.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace
[ "$(id -u)" = 0 ] || skip "creating a cgroup needs root"

# freeze_case KIND DIR FILE ON OFF PROCS: one freezer. Freezing and thawing
# alone make some waits return EINTR (the freezer's fake signal): a control
# victim frozen beside the target must report the same.
freeze_case() {
	kind=$1 dir=$2 file=$3 on=$4 off=$5 procs=$6
	mkdir -p "$dir" 2>/dev/null || { echo "no $kind freezer here"; return 1; }
	start_victim ctl "$TARGETS/victim_dyn" -b 1
	start_victim fz "$TARGETS/victim_dyn" -b 1
	if ! echo "$fz" >"$dir/$procs" || ! echo "$ctl" >"$dir/$procs"; then
		kill "$fz" "$ctl"; rmdir "$dir"; echo "cannot move into $dir"; return 1
	fi
	echo "$on" >"$dir/$file"
	sleep 0.3
	expect_rc 10 timeout 30 "$JEATTACH" -p "$fz" --status --timeout 2
	echo "$ERR" | grep -q "frozen by its cgroup" || fail "$kind: $ERR"
	echo "$off" >"$dir/$file"
	sleep 0.3
	expect_rc 0 "$JEATTACH" -p "$fz" --status
	kill -USR1 "$ctl" "$fz"
	sleep 1
	r_ctl=$(grep '^report' "$ctl_out")
	r_fz=$(grep '^report' "$fz_out")
	[ -n "$r_fz" ] && [ "$r_fz" = "$r_ctl" ] || fail "$kind: jeattach changed the victim: [$r_fz], control [$r_ctl]"
	rmdir "$dir" 2>/dev/null
	pass "$kind freezer: refused while frozen, works once thawed; victim as the control: $r_fz"
}

# Frozen while a long dump runs (v2): jeattach leaves the crash-safe call
# to finish at the thaw instead of waiting for it (exit 10, saying so).
frozen_during_call() {
	dir=$1
	mkdir -p "$dir" 2>/dev/null || return 1
	START_SECONDS=60 start_victim_env big "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0" \
		"$TARGETS/victim_bigprof" -n "$(stacks 262144)"
	echo "$big" >"$dir/cgroup.procs" || { kill "$big"; rmdir "$dir"; return 1; }
	"$JEATTACH" -p "$big" --dump "$WORK/big.heap" -v >"$WORK/big.out" 2>"$WORK/big.err" &
	jp=$!
	# Frozen once the dump's call has begun: its action line, then 0.2 s
	# (the dump runs for over a second on any machine). The first progress
	# line comes at 1 s, too late on an emulated machine, where these
	# stacks dump in 1.3 s (2026-11-24: the freeze came after the end).
	await_line "$WORK/big.err" "^jeattach: $big: dump$" "$jp" "the dump's start"
	sleep 0.2
	kill -0 "$jp" 2>/dev/null || fail "the dump ended before the freeze: $(cat "$WORK/big.err")"
	echo 1 >"$dir/cgroup.freeze"
	i=0
	while kill -0 "$jp" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt "$(slow 100)" ] && { echo 0 >"$dir/cgroup.freeze"; fail "jeattach still waits $(slow 5) s after the freeze"; }
		sleep 0.05
	done
	wait "$jp"; rc=$?
	echo 0 >"$dir/cgroup.freeze"
	[ "$rc" = 10 ] || fail "exit $rc after a freeze during the dump: $(cat "$WORK/big.err")"
	grep -q 'frozen while the call ran' "$WORK/big.err" || fail "$(cat "$WORK/big.err")"
	[ -e "$WORK/big.heap" ] && fail "a partial profile was published"
	sleep 1
	# The dump left running finishes after the thaw; on a loaded machine
	# that takes seconds, and its thread is in jemalloc until then.
	expect_rc 0 "$JEATTACH" -p "$big" --status --timeout 30
	kill -USR1 "$big"
	i=0
	while kill -0 "$big" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt 1200 ] && fail "the target did not exit after the thaw"
		sleep 0.05
	done
	wait "$big"; rc=$?
	[ "$rc" = 0 ] || fail "the target exited $rc after the thaw: $(cat "$big_out")"
	rmdir "$dir" 2>/dev/null
	pass "frozen during a dump: left to finish at the thaw (exit 10), the target went on and exited 0"
}

tested=0
if grep -q ' - cgroup2 ' /proc/self/mountinfo; then
	mp=$(awk '$0 ~ / - cgroup2 / && $4 == "/" { print $5; exit }' /proc/self/mountinfo)
	freeze_case v2 "$mp/jeattach-test-$$" cgroup.freeze 1 0 cgroup.procs && tested=$((tested + 1))
	frozen_during_call "$mp/jeattach-test-big-$$" && tested=$((tested + 1))
fi
mp=$(awk '$0 ~ / - cgroup / && $4 == "/" && $NF ~ /(^|,)freezer(,|$)/ { print $5; exit }' /proc/self/mountinfo)
if [ -n "$mp" ]; then
	freeze_case v1 "$mp/jeattach-test-$$" freezer.state FROZEN THAWED cgroup.procs && tested=$((tested + 1))
fi
[ $tested -gt 0 ] || skip "no cgroup freezer can be used here (neither cgroup2 nor a v1 freezer mounted at its root, or not writable)"
