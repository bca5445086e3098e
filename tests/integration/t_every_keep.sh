#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --every into a directory with a bound (--dump DIR/ --keep N,
# --keep-bytes SIZE), against two real victims: exactly the newest files
# are left, named TIME.COMM.PID.SEQ.heap, each readable by jeheap; what
# others planted there under our names (a symbolic link to a file
# outside, a FIFO, a directory, a hard link) and a file of the operator's
# survive, and what they point at is untouched; a dump that fails removes
# nothing; a directory swapped for a symbolic link while jeattach runs is
# refused, nothing written through the link; a series without --count
# runs until SIGTERM, bounded all along, and goes on when one target exits
# (ends, exit 3, when the last does); bad bounds and directories get
# one line and their exit code (jeattach(1), EXIT STATUS).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

CONF="MALLOC_CONF=prof:true,prof_active:true"
start_victim_env a "$CONF" "$TARGETS/victim_dyn" -b 2
start_victim_env b "$CONF" "$TARGETS/victim_dyn" -b 2
NAME='^[0-9]{8}T[0-9]{6}Z\.victim_dyn\.[0-9]+\.[0-9]+\.heap$'

# ours DIR: the names of our files in DIR, oldest first as listed by the
# shell (names sort by time; the order checked is the events').
ours() { ls "$1" | grep -E "$NAME"; }
# written FILE: the paths of the "dump" events of a --json run, in order.
written() { sed -n 's/^{"event":"dump".*"file":"\([^"]*\)".*/\1/p' "$1"; }

# Planted under names jeattach would make, all older than any dump.
P="$WORK/p"
mkdir "$P" "$WORK/outside"
echo "the operator's notes" >"$P/notes.txt"
echo precious >"$WORK/outside/target.heap"
echo precious2 >"$WORK/outside/linked.heap"
ln -s "$WORK/outside/target.heap" "$P/20200101T000000Z.victim_dyn.1.0.heap"
mkfifo "$P/20200101T000000Z.victim_dyn.2.0.heap"
mkdir "$P/20200101T000000Z.victim_dyn.3.0.heap"
echo inside >"$P/20200101T000000Z.victim_dyn.3.0.heap/x"
ln "$WORK/outside/linked.heap" "$P/20200101T000000Z.victim_dyn.4.0.heap"
echo almost >"$P/20200101T000000Z.victim_dyn.06.0.heap" # a leading zero: not our form
echo theirs >"$P/20200101T000000Z.victim_dyn.5.0.heap"
# Another user's file of our form (as root only: chown).
chown 65534 "$P/20200101T000000Z.victim_dyn.5.0.heap" 2>/dev/null ||
	rm "$P/20200101T000000Z.victim_dyn.5.0.heap"

expect_rc 0 "$JEATTACH" -p "$a,$b" --every 300ms --count 4 --dump "$P/" --keep 3 --json
printf '%s\n' "$OUT" >"$WORK/p.json"
[ "$(written "$WORK/p.json" | wc -l)" = 8 ] || fail "8 dumps wanted: $OUT"
# The newest 3 are the last 3 written (the events' order is the writing order).
want=$(written "$WORK/p.json" | tail -3 | sed 's|.*/||' | sort)
got=$(ours "$P" | grep -v '^20200101' | sort)
[ "$want" = "$got" ] || fail "left: $got; wanted the last three written: $want"
for f in $got; do
	echo "$f" | grep -qE "\\.($a|$b)\\.[0-3]\\.heap$" || fail "name $f says no target of ours"
	[ -f "$P/$f" ] && [ ! -L "$P/$f" ] || fail "$f is no regular file"
	"$JEHEAP" top "$P/$f" >"$WORK/top.out" 2>&1 || fail "jeheap cannot read $f: $(cat "$WORK/top.out")"
done
pass "--keep 3 over 8 dumps of 2 targets leaves the last 3 written, each readable"

# What was removed is said: 5 paths over the run, each one of ours, none planted.
removed=$(printf '%s\n' "$OUT" | grep '^{"event":"dump"' | sed -n 's/.*"removed_files":\[\(.*\)\]}$/\1/p' | tr ',' '\n' | grep -c heap)
[ "$removed" = 5 ] || fail "5 removals wanted in the events: $OUT"
printf '%s\n' "$OUT" | grep -q '20200101T' && fail "a planted file was named as removed: $OUT"
pass "--json names the 5 removed files"

[ "$(cat "$P/notes.txt")" = "the operator's notes" ] || fail "notes.txt changed"
[ -L "$P/20200101T000000Z.victim_dyn.1.0.heap" ] || fail "the planted link went"
[ "$(cat "$WORK/outside/target.heap")" = precious ] || fail "the link's target changed"
[ -p "$P/20200101T000000Z.victim_dyn.2.0.heap" ] || fail "the planted FIFO went"
[ "$(cat "$P/20200101T000000Z.victim_dyn.3.0.heap/x")" = inside ] || fail "the planted directory changed"
[ "$(cat "$P/20200101T000000Z.victim_dyn.4.0.heap")" = precious2 ] || fail "the hard link went"
[ "$(stat -c %h "$WORK/outside/linked.heap")" = 2 ] || fail "the hard link went"
[ "$(cat "$WORK/outside/linked.heap")" = precious2 ] || fail "the hard link's file changed"
[ "$(cat "$P/20200101T000000Z.victim_dyn.06.0.heap")" = almost ] || fail "an almost-ours name went"
if [ "$(id -u)" = 0 ]; then
	[ "$(cat "$P/20200101T000000Z.victim_dyn.5.0.heap")" = theirs ] || fail "another user's file went"
	pass "another user's file by our name survives"
fi
[ "$(ls -A "$P" | grep -c '^\.jeattach-')" = 0 ] || fail "a temporary was left: $(ls -A "$P")"
pass "a foreign file, a link, a FIFO, a directory, a hard link and a near name survive"

# A byte budget: every profile of these victims is 5-7 KB, so 13000
# bytes hold two and never three.
Q="$WORK/q"
mkdir "$Q"
expect_rc 0 "$JEATTACH" -p "$a,$b" --every 300ms --count 3 --dump "$Q" --keep-bytes 13000 --json
printf '%s\n' "$OUT" >"$WORK/q.json"
want=$(written "$WORK/q.json" | tail -2 | sed 's|.*/||' | sort)
got=$(ours "$Q" | sort)
[ "$want" = "$got" ] || fail "left: $got; wanted the last two written: $want"
total=$(cd "$Q" && cat $got | wc -c)
[ "$total" -le 13000 ] || fail "$total bytes left, past 13000"
pass "--keep-bytes 13000 leaves the last two ($total bytes)"

# A dump that fails (past --max-dump, after the hold) removes nothing.
R="$WORK/r"
mkdir "$R"
expect_rc 0 "$JEATTACH" -p "$a" --dump "$R/" --keep 1 -q
first=$(ours "$R")
[ -n "$first" ] || fail "no first dump in $R"
sleep 1.1 # another second: another name
expect_rc 8 "$JEATTACH" -p "$a" --dump "$R/" --keep 1 --max-dump 100
[ "$(ours "$R")" = "$first" ] || fail "a failed dump changed the directory: $(ls -A "$R")"
pass "a failed dump (exit 8) removes nothing: $ERR"

# The directory swapped for a link to another while a series runs: the
# next dump is refused, and nothing is written through the link.
S="$WORK/s"
mkdir "$S" "$WORK/elsewhere"
: >"$WORK/s.json"
"$JEATTACH" -p "$a" --every "$(slow 1)s" --count 3 --dump "$S/" --keep 2 --json \
	>"$WORK/s.json" 2>"$WORK/s.err" &
j=$!
await_line "$WORK/s.json" '"event":"dump"' "$j" "the first dump"
mv "$S" "$WORK/s.real" && ln -s "$WORK/elsewhere" "$S"
wait "$j"
rc=$?
[ "$rc" = 8 ] || fail "exit $rc (wanted 8) after the swap: $(cat "$WORK/s.err")"
grep -q "is a symbolic link" "$WORK/s.err" || fail "message: $(cat "$WORK/s.err")"
[ "$(wc -l <"$WORK/s.err")" = 1 ] || fail "one line wanted: $(cat "$WORK/s.err")"
[ -z "$(ls -A "$WORK/elsewhere")" ] || fail "written through the link: $(ls -A "$WORK/elsewhere")"
[ "$(ours "$WORK/s.real" | wc -l)" = 1 ] || fail "the first dump: $(ls -A "$WORK/s.real")"
pass "a directory swapped for a link is refused: $(cat "$WORK/s.err")"

# Without --count: until SIGTERM, each dump numbered on, the bound kept.
C="$WORK/c"
mkdir "$C"
: >"$WORK/c.json"
"$JEATTACH" -p "$a,$b" --every 200ms --dump "$C/" --keep 2 --json >"$WORK/c.json" 2>"$WORK/c.err" &
j=$!
i=0
until [ "$(written "$WORK/c.json" | wc -l)" -ge 10 ]; do
	i=$((i + 1)); [ $i -gt "$(slow 600)" ] && fail "10 dumps did not come: $(cat "$WORK/c.json" "$WORK/c.err")"
	kill -0 "$j" 2>/dev/null || fail "jeattach ended by itself: $(cat "$WORK/c.err")"
	[ "$(ours "$C" | wc -l)" -le 2 ] || fail "past the bound while running: $(ls "$C")"
	sleep 0.05
done
kill -TERM "$j"
wait "$j"
rc=$?
[ "$rc" = 143 ] || fail "exit $rc after SIGTERM (wanted 143): $(cat "$WORK/c.err")"
want=$(written "$WORK/c.json" | tail -2 | sed 's|.*/||' | sort)
[ "$(ours "$C" | sort)" = "$want" ] || fail "left $(ours "$C"), wanted $want"
ours "$C" | grep -qE '\.([4-9]|[1-9][0-9]+)\.heap$' || fail "sequence not counted on: $(ours "$C")"
pass "--every without --count runs until SIGTERM (143), bounded"

# Until stopped, when a target exits: the series goes on for the other;
# when the last exits, jeattach ends by itself with its code (3).
start_victim_env c "$CONF" "$TARGETS/victim_dyn" -b 2
E="$WORK/e"
mkdir "$E"
: >"$WORK/e.json"
"$JEATTACH" -p "$a,$c" --every 200ms --dump "$E/" --keep 4 --json >"$WORK/e.json" 2>"$WORK/e.err" &
j=$!
await_line "$WORK/e.json" "\"event\":\"dump\",\"pid\":$c" "$j" "a dump of $c"
kill -9 "$c"
n0=$(grep -c "\"event\":\"dump\",\"pid\":$a" "$WORK/e.json")
i=0
until [ "$(grep -c "\"event\":\"dump\",\"pid\":$a" "$WORK/e.json")" -ge $((n0 + 4)) ]; do
	i=$((i + 1)); [ $i -gt "$(slow 600)" ] && fail "$a's series stopped with $c: $(cat "$WORK/e.err")"
	kill -0 "$j" 2>/dev/null || fail "jeattach ended when one target exited: $(cat "$WORK/e.err")"
	sleep 0.05
done
kill -TERM "$j"
wait "$j"
rc=$?
[ "$rc" = 143 ] || fail "exit $rc (wanted 143): $(cat "$WORK/e.err")"
[ "$(ours "$E" | wc -l)" = 4 ] || fail "4 wanted: $(ls -A "$E")"
start_victim_env d "$CONF" "$TARGETS/victim_dyn" -b 2
: >"$WORK/f.json"
"$JEATTACH" -p "$d" --every 200ms --dump "$E/" --keep 4 --json >"$WORK/f.json" 2>"$WORK/f.err" &
j=$!
await_line "$WORK/f.json" '"event":"dump"' "$j" "a dump of $d"
kill -9 "$d"
i=0
while kill -0 "$j" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt "$(slow 200)" ] && fail "jeattach went on with no target: $(cat "$WORK/f.err")"
	sleep 0.05
done
wait "$j"
rc=$?
[ "$rc" = 3 ] || fail "exit $rc (wanted 3) when the last target exited: $(cat "$WORK/f.err")"
[ "$(ours "$E" | wc -l)" = 4 ] || fail "4 wanted after: $(ls -A "$E")"
pass "until stopped: goes on when one target exits, ends (3) when the last does"

# Bad bounds and directories: one line, the documented code, nothing done.
for bad in "--keep 0" "--keep -3" "--keep 99999999" "--keep-bytes 0" "--keep-bytes 5P" \
	"--keep-bytes 2000T"; do
	# shellcheck disable=SC2086
	expect_rc 2 "$JEATTACH" -p "$a" --dump "$WORK/p/" $bad
	[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "$bad: $ERR"
	echo "$ERR" | grep -q "expected" || fail "$bad: $ERR"
done
expect_rc 2 "$JEATTACH" -p "$a" --dump "$WORK/x.heap" --keep 2
echo "$ERR" | grep -q "goes with --dump DIR/" || fail "$ERR"
expect_rc 8 "$JEATTACH" -p "$a" --dump "$WORK/none/" --keep 2
echo "$ERR" | grep -q "no such directory" || fail "$ERR"
ln -s "$WORK/elsewhere" "$WORK/link"
expect_rc 8 "$JEATTACH" -p "$a" --dump "$WORK/link/" --keep 2
echo "$ERR" | grep -q "is a symbolic link" || fail "$ERR"
echo x >"$WORK/plain"
expect_rc 8 "$JEATTACH" -p "$a" --dump "$WORK/plain/" --keep 2
echo "$ERR" | grep -q "not a directory" || fail "$ERR"
[ -z "$(ls -A "$WORK/elsewhere")" ] || fail "written through the link"
pass "bad bounds (exit 2) and directories (exit 8): one line each"

finish_victim a
finish_victim b
