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

tested=0
if grep -q ' - cgroup2 ' /proc/self/mountinfo; then
	mp=$(awk '$0 ~ / - cgroup2 / && $4 == "/" { print $5; exit }' /proc/self/mountinfo)
	freeze_case v2 "$mp/jeattach-test-$$" cgroup.freeze 1 0 cgroup.procs && tested=$((tested + 1))
fi
mp=$(awk '$0 ~ / - cgroup / && $4 == "/" && $NF ~ /(^|,)freezer(,|$)/ { print $5; exit }' /proc/self/mountinfo)
if [ -n "$mp" ]; then
	freeze_case v1 "$mp/jeattach-test-$$" freezer.state FROZEN THAWED cgroup.procs && tested=$((tested + 1))
fi
[ $tested -gt 0 ] || skip "no cgroup freezer can be used here (neither cgroup2 nor a v1 freezer mounted at its root, or not writable)"
