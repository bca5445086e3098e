#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# arm64 pointer authentication and BTI: injected calls into a jemalloc built
# with branch protection. Debian 12's arm64 libjemalloc2 is not (no PAC, no
# BTI note); Debian 13's 5.3.0-3 is (its GNU property note says "BTI, PAC"
# and its functions open with paciasp), and it loads on Debian 12's glibc.
# tests/jemalloc-archive.sh fetches it; the victim preloads it. It has no
# profiling (no Debian arm64 build has), so no dump here.
#
# What could go wrong (src/arch/aarch64/arch_frame.c): mallctl signs x30
# against sp at entry and authenticates it at return, so an injected call
# must enter at the function's first instruction with sp as it will be at
# the return; on pages the loader guarded with PROT_BTI, PSTATE.BTYPE must
# be clear when the pc is set, or the first instruction faults. The call's
# return goes straight into the vDSO's rt_sigreturn (crash-safe), so a
# jeattach killed at any instant must leave the target running.
. "$top_srcdir/tests/integration/lib.sh"
[ "$(uname -m)" = aarch64 ] ||
	skip "pointer authentication and BTI are arm64's; this machine is $(uname -m) (tests/arm64/vm.sh check runs this test)"
grep -qw paca /proc/cpuinfo ||
	skip "this CPU has no address authentication (no 'paca' in /proc/cpuinfo): nothing would check the signatures"

LIB=$("$top_srcdir/tests/jemalloc-archive.sh" 5.3.0 2>/dev/null)
rc=$?
[ $rc = 77 ] && skip "Debian 13's arm64 libjemalloc2 5.3.0 is not available: $(echo "$LIB" | sed 's/^SKIP: //')"
[ $rc = 0 ] || fail "tests/jemalloc-archive.sh 5.3.0 failed (exit $rc): $LIB"
require_ptrace

# The library is what this test needs it to be: marked, and mallctl's own
# prologue signs its return address.
readelf -n "$LIB" | grep -q 'AArch64 feature: BTI, PAC' ||
	fail "$LIB has no 'BTI, PAC' property note: $(readelf -n "$LIB" | grep -i feature)"
addr=$(readelf -W --dyn-syms "$LIB" | awk '$8 == "mallctl" && $4 == "FUNC" { print $2; exit }')
[ -n "$addr" ] || fail "no mallctl in $LIB's dynamic symbols"
prologue=$(objdump -d --start-address=0x"$addr" --stop-address=$((0x$addr + 16)) "$LIB" |
	grep -E '^ +[0-9a-f]+:' | awk '{ print $3 }' | tr '\n' ' ')
echo "$prologue" | grep -qw paciasp || fail "mallctl does not open with paciasp: $prologue"
pass "Debian 13's libjemalloc2: BTI and PAC marked, mallctl opens with: $prologue"

# Debian builds jemalloc with profiling on x86 only (debian/rules), so this
# build has none: status, statistics and --frag's report, no dump.
start_victim_env v "LD_PRELOAD=$LIB" "$TARGETS/victim_dyn" -b 4 -w
# Whether the loader guarded jemalloc's code with PROT_BTI ("bt" in the
# mapping's VmFlags) is glibc's choice and the CPU's; said, not required.
guarded=$(awk -v lib="$(readlink -f "$LIB")" '
	/^[0-9a-f]+-[0-9a-f]+ / { inlib = ($6 == lib && $2 ~ /x/) }
	inlib && /^VmFlags:/ { print (/ bt/ ? "yes" : "no"); exit }' "/proc/$v/smaps")
echo "note: jemalloc's code pages are BTI-guarded: ${guarded:-unknown}; CPU bti: $(grep -qw bti /proc/cpuinfo && echo yes || echo no)"

expect_rc 0 "$JEATTACH" -p "$v" --status --json
[ "$(json_get "$OUT" "j['actions'][0]['version'].split('-')[0]")" = 5.3.0 ] || fail "version: $OUT"
[ "$(json_get "$OUT" "j['actions'][0]['loaded_as']")" = LD_PRELOAD ] || fail "loaded_as: $OUT"
[ "$(json_get "$OUT" "j['crash_safe']")" = True ] || fail "calls are not crash-safe: $OUT"
expect_rc 0 "$JEATTACH" -p "$v" --stats --json
[ "$(json_get "$OUT" "j['actions'][0]['allocated'] > 0")" = True ] || fail "stats: $OUT"
wall_us=$(json_get "$OUT" "j['wall_us']")
expect_rc 0 "$JEATTACH" -p "$v" --frag --json
[ "$(json_get "$OUT" "j['actions'][0]['frag']['resident'] > 0")" = True ] || fail "frag: $OUT"
pass "status, stats and --frag (malloc_stats_print) through PAC-signed code (crash-safe return)"

# The crash-safe return under PAC: killed at random instants, every call
# still ends by itself through the vDSO's rt_sigreturn.
python3 "$top_srcdir/tests/integration/kill_storm.py" "$JEATTACH" "$v" "${TRIALS:-20}" "$wall_us" \
	--status --stats || fail "see above (kill storm on the PAC build)"
expect_rc 0 "$JEATTACH" -p "$v" --status --stats
finish_victim v errno_errors
pass "${TRIALS:-20} kills during calls into the PAC build: victim unharmed"
