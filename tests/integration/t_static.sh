#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# ./configure --enable-static-jeattach: jeattach has no dynamic dependency
# at all and works against a victim.
. "$top_srcdir/tests/integration/lib.sh"
[ "${STATIC_JEATTACH:-}" = yes ] ||
	skip "jeattach is not built static here (./configure --enable-static-jeattach to test it)"
require_ptrace
ldd "$JEATTACH" 2>&1 | grep -q 'not a dynamic executable' || fail "ldd: $(ldd "$JEATTACH" 2>&1)"
readelf -l "$JEATTACH" | grep -q INTERP && fail "it asks for a dynamic loader"
start_victim v "$TARGETS/victim_dyn" -b 2
expect_rc 0 "$JEATTACH" -p "$v" --status --activate --dump "$WORK/s.heap" --stats --json
[ "$(json_get "$OUT" "j['ok']")" = True ] || fail "$OUT"
finish_victim v
pass "static jeattach: $(stat -c %s "$JEATTACH") bytes, no dynamic dependency"
