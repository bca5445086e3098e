#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# dist/systemd/jeattach-profiles@.service and .timer: systemd-analyze
# verify accepts them (as instance redis-server, jeattach named by its
# built path since the test machine has none installed); the directory the
# command dumps into is the one StateDirectory= makes; and the service's
# own command line, its specifiers expanded as systemd would (%i the
# instance, %S /var/lib, here a directory of the test's), profiles every
# process of the name into it, bounded, twice in a row. PID 1 is not
# systemd here, so the unit itself is not started.
. "$top_srcdir/tests/integration/lib.sh"
UNITS="$top_srcdir/dist/systemd"
SERVICE="$UNITS/jeattach-profiles@.service"
TIMER="$UNITS/jeattach-profiles@.timer"
command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (Debian package systemd)"

mkdir "$WORK/units"
jeattach_abs=$(cd "$(dirname "$JEATTACH")" && pwd)/jeattach
sed "s|^ExecStart=jeattach |ExecStart=$jeattach_abs |" "$SERVICE" >"$WORK/units/jeattach-profiles@redis-server.service"
cp "$TIMER" "$WORK/units/jeattach-profiles@redis-server.timer"
grep -q "^ExecStart=$jeattach_abs " "$WORK/units/jeattach-profiles@redis-server.service" || fail "no ExecStart=jeattach in $SERVICE"
systemd-analyze verify --man=no "$WORK/units/jeattach-profiles@redis-server.service" \
	"$WORK/units/jeattach-profiles@redis-server.timer" >"$WORK/verify.out" 2>&1 ||
	fail "systemd-analyze verify: $(cat "$WORK/verify.out")"
[ -s "$WORK/verify.out" ] && fail "systemd-analyze verify warns: $(cat "$WORK/verify.out")"
pass "systemd-analyze verify accepts the service and the timer"

# The directory: StateDirectory= under %S is the one --dump names.
state=$(sed -n 's/^StateDirectory=//p' "$SERVICE")
exec_line=$(sed -n 's/^ExecStart=//p' "$SERVICE")
echo "$exec_line" | grep -q -- "--dump %S/$state/ " || fail "--dump is not %S/$state/: $exec_line"
echo "$exec_line" | grep -qE -- "--keep [0-9]+" || fail "no bound: $exec_line"
grep -q '^CapabilityBoundingSet=.*CAP_SYS_PTRACE' "$SERVICE" || fail "no CAP_SYS_PTRACE"
pass "it dumps into its StateDirectory ($state), with a bound"

require_ptrace
# A process of its own name, so that --all finds it and nothing else.
cp "$TARGETS/victim_dyn" "$WORK/jeprofvict"
start_victim_env v "MALLOC_CONF=prof:true,prof_active:true" "$WORK/jeprofvict" -b 2
inst=jeprofvict
dir=$(echo "$state" | sed "s|%i|$inst|")
mkdir -p "$WORK/state/$dir" # what StateDirectory= does before the start
# shellcheck disable=SC2046
set -- $(echo "$exec_line" | sed -e "s|%i|$inst|g" -e "s|%S|$WORK/state|g")
shift # "jeattach": the built one instead
for run in 1 2; do
	"$JEATTACH" "$@" >"$WORK/run$run.json" 2>"$WORK/run$run.err"
	rc=$?
	[ "$rc" = 0 ] || fail "run $run: exit $rc: $(cat "$WORK/run$run.err")"
	grep -q '"ok":true' "$WORK/run$run.json" || fail "run $run: $(cat "$WORK/run$run.json")"
	[ $run = 1 ] && sleep 1.1 # the next tick: another second, another name
done
n=$(ls "$WORK/state/$dir" | grep -cE "^[0-9]{8}T[0-9]{6}Z\\.jeprofvict\\.$v\\.0\\.heap$")
[ "$n" = 2 ] || fail "2 profiles wanted in $dir: $(ls -A "$WORK/state/$dir")"
"$JEHEAP" trend "$WORK/state/$dir"/*.heap >"$WORK/trend.out" 2>&1 || fail "jeheap trend: $(cat "$WORK/trend.out")"
pass "the service's command, run twice, leaves two profiles jeheap trend reads"
finish_victim v
