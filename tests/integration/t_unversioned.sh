#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Known by what it does, not by its string: a jemalloc 5.2.1 built from a
# tree without a VERSION file (or tags) calls itself "0.0.0". Debian 11's
# libjemalloc2 5.2.1 (tests/jemalloc-archive.sh) with its version string
# patched to "0.0.0" in a copy stands in for such a vendored build. Its
# release is told from the controls that exist (act_version.c), so
# --status says activation alone would not reach existing threads and
# --activate re-arms them: a dump then holds samples from the threads that
# allocated before it. Before: "rearm": "unknown_version", exit 0, and the
# process never sampled (t*: 0: 0).
. "$top_srcdir/tests/integration/lib.sh"

LIB=$("$top_srcdir/tests/jemalloc-archive.sh" 5.2.1 2>/dev/null)
rc=$?
[ $rc = 77 ] && skip "Debian 11's libjemalloc2 5.2.1 is not available: $(echo "$LIB" | sed 's/^SKIP: //')"
[ $rc = 0 ] || fail "tests/jemalloc-archive.sh failed (exit $rc): $LIB"
require_ptrace

# The copy: "5.2.1-0-g<40 hex>" in .rodata becomes "0.0.0" and NULs, the
# same length, nothing else changed.
python3 - "$LIB" "$WORK/libjemalloc.so.2" <<'PY' || fail "cannot patch the version string"
import re, sys
data = open(sys.argv[1], "rb").read()
found = re.findall(rb"5\.2\.1-0-g[0-9a-f]{40}\0", data)
assert len(found) == 1, found
old = found[0]
new = b"0.0.0".ljust(len(old), b"\0")
open(sys.argv[2], "wb").write(data.replace(old, new))
PY
CONF="MALLOC_CONF=prof:true,prof_active:false,lg_prof_sample:10,prof_accum:true"
PRE="LD_PRELOAD=$WORK/libjemalloc.so.2 $CONF"

sampled_threads() {
	sed -n '2,/^@/p' "$1" | grep -E '^  t[0-9]+: ' |
		awk '{ gsub(/[\[\]]/, ""); if ($3 + $5 > 0) n++ } END { print n + 0 }'
}

start_victim_env v "$PRE" "$TARGETS/victim_plain" -b 3
age_threads
expect_rc 0 "$JEATTACH" -p "$v" --status --json
[ "$(json_get "$OUT" "j['actions'][0]['config_prof']")" = True ] ||
	skip "Debian's 5.2.1 for $(uname -m) has no profiling"
[ "$(json_get "$OUT" "j['actions'][0]['version']")" = 0.0.0 ] || fail "not patched: $OUT"
[ "$(json_get "$OUT" "j['actions'][0]['activation_reaches_existing_threads']")" = False ] || fail "$OUT"
[ "$(json_get "$OUT" "j['actions'][0]['release']")" = 5.2 ] || fail "release: $OUT"
[ "$(json_get "$OUT" "j['actions'][0]['release_known_by']")" = controls ] || fail "release_known_by: $OUT"
pass "--status: version 0.0.0, known by its controls as 5.2, activation alone would not do"

expect_rc 0 "$JEATTACH" -p "$v" --activate --json
[ "$(json_get "$OUT" "j['actions'][0]['rearm']")" = done ] || fail "not re-armed: $OUT"
sleep 1
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/act.heap"
n=$(sampled_threads "$WORK/act.heap")
[ "$n" -ge 3 ] || fail "samples from $n pre-existing threads (wanted the 3 busy ones): $(head -6 "$WORK/act.heap")"
finish_victim v
pass "--activate re-armed a 5.2.1 that says 0.0.0: $n pre-existing threads sample"
