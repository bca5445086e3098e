#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A dump never replaces a file unless --force says so: an existing file is
# refused before any thread is held (exit 8, the target untouched), a file
# that appears while jeattach works is not replaced either (the publishing
# rename is RENAME_NOREPLACE), a directory is a directory of dumps named by
# jeattach (t_every_keep.sh has the rest), and a
# --every pattern that would reuse one name is refused at parse time.
# --force replaces regular files only: a device node, a FIFO, a socket or
# a symbolic link (even one to a regular file) is refused before the hold
# and, made meanwhile, at publish time, and is left as it was.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# Parse time: --every with one name for all dumps; %t (seconds) varies
# only a second or more apart; --force keeps the latest.
expect_rc 2 "$JEATTACH" -p 1 --every 200ms --count 2 --dump "$WORK/same.heap"
echo "$ERR" | grep -q 'each dump would replace the last; put %n .* or give --force' || fail "$ERR"
[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "not one line: $ERR"
expect_rc 2 "$JEATTACH" -p 1 --every 200ms --count 2 --dump "$WORK/t%t.heap"
expect_rc 2 "$JEATTACH" -p 1 --every 1s --count 2 --dump "$WORK/lit%%n.heap"
expect_rc 2 "$JEATTACH" -p 1 --status --force
echo "$ERR" | grep -q -- '--force goes with --dump' || fail "$ERR"
pass "--every with one name refused at parse time, with the fix"

# untouched OUT: the --json output of a run refused before any target:
# its one object, pid null, no action, nothing held (doc/json.md).
untouched() {
	[ "$(printf '%s\n' "$1" | wc -l)" = 1 ] &&
		[ "$(json_get "$1" "(j['pid'], j['actions'], j['holds'])")" = "(None, [], 0)" ]
}

start_victim v "$TARGETS/victim_dyn" -b 2
echo precious >"$WORK/x.heap"
expect_rc 8 "$JEATTACH" -p "$v" --dump "$WORK/x.heap" --json
echo "$ERR" | grep -q 'the file exists; give --force to replace it' || fail "$ERR"
[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "not one line: $ERR"
untouched "$OUT" || fail "a target was touched: $OUT"
[ "$(cat "$WORK/x.heap")" = precious ] || fail "the file was replaced"
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/x.heap" --force
head -1 "$WORK/x.heap" | grep -q '^heap_v2/' || fail "--force did not replace it"
pass "an existing file is refused before the hold, replaced with --force"

# The --baseline's file is checked too.
echo precious >"$WORK/b.heap.base"
expect_rc 8 "$JEATTACH" -p "$v" --for 200ms --baseline --dump "$WORK/b.heap"
echo "$ERR" | grep -q 'b.heap.base: the file exists' || fail "$ERR"
[ "$(cat "$WORK/b.heap.base")" = precious ] || fail "the baseline replaced a file"

# A file made while jeattach waits (after the check): left alone.
"$JEATTACH" -p "$v" --for "$(slow 2)s" --dump "$WORK/race.heap" >"$WORK/race.out" 2>"$WORK/race.err" &
jp=$!
sleep "$(slow 1)"
echo theirs >"$WORK/race.heap"
wait $jp
rc=$?
[ $rc = 8 ] || fail "exit $rc (wanted 8): $(cat "$WORK/race.err")"
grep -q 'it exists (made while jeattach worked) and was left alone' "$WORK/race.err" ||
	fail "$(cat "$WORK/race.err")"
[ "$(cat "$WORK/race.heap")" = theirs ] || fail "a file made meanwhile was replaced"
ls "$WORK"/.jeattach-* >/dev/null 2>&1 && fail "a temporary file was left"
expect_rc 0 "$JEATTACH" -p "$v" --get prof.active --json
[ "$(json_get "$OUT" "j['actions'][0]['value']")" = False ] || fail "prof.active not restored"
pass "a file made while jeattach worked is not replaced (RENAME_NOREPLACE)"

# %t: a UTC stamp that sorts and reads as a time (issue 33 item 9), not
# the seconds since the epoch.
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/stamp.%t.heap" -q
stamp=$(ls "$WORK" | sed -n 's/^stamp\.\(.*\)\.heap$/\1/p')
echo "$stamp" | grep -qE '^[0-9]{8}T[0-9]{6}Z$' || fail "%t gave '$stamp'"
[ "$(TZ=UTC date -d "$(echo "$stamp" | sed 's/^\(....\)\(..\)\(..\)T\(..\)\(..\)\(..\)Z$/\1-\2-\3 \4:\5:\6/')" +%s)" -gt $(($(date +%s) - 60)) ] ||
	fail "%t is not now: $stamp"
pass "%t is a UTC stamp ($stamp)"

# A directory: the dump goes in it, under a name of jeattach's.
mkdir "$WORK/dir"
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/dir" -q
ls "$WORK/dir" | grep -qxE "[0-9]{8}T[0-9]{6}Z\.victim_dyn\.$v\.0\.heap" || fail "in dir: $(ls -A "$WORK/dir")"

# --force onto what is not a regular file: a device node (made here, as
# root; never in /dev), a FIFO, a socket, a symbolic link to a regular
# file. Refused before any thread is held (nothing on stdout, exit 8, one
# line), with --force or without, and each left as it was.
ident() { stat -c '%F %t:%T %i' "$1"; }
echo target >"$WORK/linked.heap"
ln -s linked.heap "$WORK/link.heap"
mkfifo "$WORK/fifo.heap" "$WORK/fifo.json"
python3 -c "import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])" "$WORK/sock.heap"
kinds="link.heap:symbolic fifo.heap:FIFO sock.heap:socket"
if mknod "$WORK/null.heap" c 1 3 2>/dev/null; then
	kinds="$kinds null.heap:character"
else
	echo "note: mknod not permitted here (not root?): no device node case"
fi
for k in $kinds; do
	f=${k%%:*} word=${k#*:}
	before=$(ident "$WORK/$f")
	for force in --force ""; do
		# shellcheck disable=SC2086
		expect_rc 8 "$JEATTACH" -p "$v" --dump "$WORK/$f" $force --json
		echo "$ERR" | grep -q "$f: it is a $word.*replaces regular files only (--force too); give another name" ||
			fail "$f $force: $ERR"
		[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "not one line: $ERR"
		untouched "$OUT" || fail "$f $force: a target was touched: $OUT"
	done
	[ "$(ident "$WORK/$f")" = "$before" ] || fail "$f changed: $(ident "$WORK/$f"), was $before"
done
[ "$(readlink "$WORK/link.heap")" = linked.heap ] || fail "the link's target changed"
[ "$(cat "$WORK/linked.heap")" = target ] || fail "the linked file was written"
expect_rc 8 "$JEATTACH" -p "$v" --frag --frag-out "$WORK/fifo.json" --force
echo "$ERR" | grep -q "fifo.json: it is a FIFO" || fail "--frag-out: $ERR"
# --prometheus replaces its file at every refresh: a regular file only.
mkfifo "$WORK/fifo.prom"
ln -s linked.heap "$WORK/link.prom"
for f in fifo.prom:FIFO link.prom:symbolic; do
	before=$(ident "$WORK/${f%%:*}")
	expect_rc 8 "$JEATTACH" -p "$v" --prometheus "$WORK/${f%%:*}" --count 1
	echo "$ERR" | grep -q "${f%%:*}: it is a ${f#*:}.*replaces regular files only" || fail "--prometheus: $ERR"
	[ "$(ident "$WORK/${f%%:*}")" = "$before" ] || fail "--prometheus replaced ${f%%:*}"
done
[ "$(cat "$WORK/linked.heap")" = target ] || fail "the linked file was written"
pass "--force (and --prometheus) onto a link, FIFO, socket$(echo "$kinds" | grep -q null && echo ', device node'): refused before the hold, left alone"

# Made while jeattach waits, after the early check: the publishing rename
# of --force looks again, and leaves a FIFO or a link alone.
for k in fifo:FIFO link:symbolic; do
	f=$WORK/late-${k%%:*}.heap word=${k#*:}
	"$JEATTACH" -p "$v" --for "$(slow 2)s" --dump "$f" --force >"$WORK/late.out" 2>"$WORK/late.err" &
	jp=$!
	sleep "$(slow 1)"
	if [ "$word" = FIFO ]; then mkfifo "$f"; else ln -s linked.heap "$f"; fi
	before=$(ident "$f")
	wait $jp
	rc=$?
	[ $rc = 8 ] || fail "late $word: exit $rc (wanted 8): $(cat "$WORK/late.err")"
	grep -q "it is a $word.* (made while jeattach worked), and --force replaces regular files only" "$WORK/late.err" ||
		fail "$(cat "$WORK/late.err")"
	[ "$(ident "$f")" = "$before" ] || fail "late $word replaced: $(ident "$f")"
done
[ "$(cat "$WORK/linked.heap")" = target ] || fail "the linked file was written"
ls "$WORK"/.jeattach-* >/dev/null 2>&1 && fail "a temporary file was left"
expect_rc 0 "$JEATTACH" -p "$v" --get prof.active --json
[ "$(json_get "$OUT" "j['actions'][0]['value']")" = False ] || fail "prof.active not restored"
pass "a FIFO or a link made while jeattach worked is not replaced by --force"

# --every --force with one name: the latest dump, each replacing the last.
expect_rc 0 "$JEATTACH" -p "$v" --every 200ms --count 2 --dump "$WORK/latest.heap" --force
head -1 "$WORK/latest.heap" | grep -q '^heap_v2/' || fail "no latest profile"
finish_victim v
pass "a directory takes a named dump; --every --force keeps the latest"
