#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What the target says is data, never output format: its JSON report is
# parsed and re-encoded (or refused), its strings escaped on terminals. A
# crafted report must not forge a second record, a name or a prefix must
# not break --json's one line per target or send escape sequences.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# one_record PID: stdout is one line, one JSON object, for PID, naming no
# other process.
one_record() {
	python3 - "$1" "$WORK/stdout" <<'PY' || fail "not one honest record: $OUT"
import json, sys
pid, text = int(sys.argv[1]), open(sys.argv[2]).read()
lines = text.splitlines()
assert len(lines) == 1, f"{len(lines)} lines"
j = json.loads(lines[0])
assert j["pid"] == pid, j["pid"]
assert "systemd" not in lines[0]
PY
}

start_victim_env fg "MALLOC_CONF=prof:true,prof_active:false" "$TARGETS/victim_forge"
# --stats=full --json: the forged report is not JSON jeattach will embed.
expect_rc 7 "$JEATTACH" -p "$fg" --stats=full --json --prefix je_
one_record "$fg"
echo "$OUT" | grep -q 'not valid JSON' || fail "no word of the invalid report: $OUT"
# Text: no escape or bell byte reaches the terminal, from the report or comm.
expect_rc 0 "$JEATTACH" -p "$fg" --stats=full --status --prefix je_
printf '%s' "$OUT$ERR" | od -An -c | grep -q '033\|007' && fail "control bytes in the output: $OUT"
echo "$OUT" | grep -q 'forged' || fail "the report itself is gone: $OUT"
expect_rc 0 "$JEATTACH" -p "$fg" --status --json --prefix je_
one_record "$fg"
finish_victim fg
pass "a forged report and an escape-laden name are data"

# A prof_prefix with a newline and an escape sequence (jemalloc takes any
# byte but the comma): one JSON line, and no control byte in text.
# (Set by a shell: start_victim_env splits its variables at white space.)
start_victim_env pp "" sh -c \
	'MALLOC_CONF="$(printf "prof:true,prof_active:false,prof_prefix:/tmp/a\nb\033[2J")" exec "$0" -b 1' \
	"$TARGETS/victim_dyn"
expect_rc 0 "$JEATTACH" -p "$pp" --status --json
one_record "$pp"
expect_rc 0 "$JEATTACH" -p "$pp" --status
printf '%s' "$OUT" | od -An -c | grep -q '033' && fail "an escape byte in the text: $OUT"
echo "$OUT" | grep -q 'prof_prefix.*/tmp/a\\nb' || fail "the prefix is not shown escaped: $OUT"
finish_victim pp
pass "prof_prefix with a newline and an escape: one JSON line, escaped text"
