#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --help and --version tell the truth and exit 0; usage errors exit 2.
. "$top_srcdir/tests/integration/lib.sh"

expect_rc 0 "$JEATTACH" --help
for w in --status --activate --deactivate --dump --get --set --json --timeout --prefix --tid; do
	echo "$OUT" | grep -q -- "$w" || fail "--help does not mention $w"
done
expect_rc 0 "$JEATTACH" --version
echo "$OUT" | grep -q '^jeattach [0-9]' || fail "--version: $OUT"
expect_rc 2 "$JEATTACH"
echo "$ERR" | grep -q '^jeattach: no target' || fail "no-argument message: $ERR"
expect_rc 2 "$JEATTACH" -p 1 --frobnicate
[ "$(echo "$ERR" | wc -l)" = 1 ] || fail "usage error is not one line: $ERR"
# A value --set does not take: one line that lists the ones it does.
expect_rc 2 "$JEATTACH" -p 1 --set prof.active=yes
[ "$ERR" = "jeattach: --set prof.active: 'yes' is not a valid bool; accepted: true, false, on, off, 1 or 0" ] ||
	fail "--set prof.active=yes: $ERR"
expect_rc 0 "$JEHEAP" --help
echo "$OUT" | grep -q 'top' || fail "jeheap --help"
expect_rc 2 "$JEHEAP" graphviz x.heap
echo "$ERR" | grep -q "unknown command 'graphviz'" || fail "jeheap unknown command: $ERR"
pass "help, version and usage errors"
