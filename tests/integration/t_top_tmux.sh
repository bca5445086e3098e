#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --top on a real terminal, in tmux: it draws, its figures change between
# refreshes on a busy victim, s sorts, p pauses, q quits with exit 0 and
# Ctrl-C with 130, the terminal's settings and main screen restored both
# ways; the victim's self-checks stay clean.
. "$top_srcdir/tests/integration/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed (apt-get install tmux)"
require_ptrace

start_victim v "$TARGETS/victim_dyn" -b 4 -t
sleep 1 # --top borrows a thread once it is a second old (cli_top_threads.c)
SOCK="jeattach-test-$$"
tm() { tmux -L "$SOCK" "$@"; }

# start NAME: jeattach --top in a 110x40 pane, between two stty -g.
start() {
	tm new-session -d -s "$1" -x 110 -y 40 \
		"stty -g >$WORK/$1.before; $JEATTACH -p $v --top --interval 300ms; echo \$? >$WORK/$1.exit; stty -g >$WORK/$1.after; sleep 120"
	[ -n "${TMUX_SERVER:-}" ] || { TMUX_SERVER=$(tm display -p '#{pid}'); track "$TMUX_SERVER"; }
}
screen() { tm capture-pane -p -t "$1"; }
seq_of() { screen "$1" | sed -n 's/.*  #\([0-9]*\).*/\1/p' | head -1; }
# wait_for NAME REGEX: up to 10 s for the pane to show it.
wait_for() {
	i=0
	until screen "$1" | grep -qE "$2"; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "the pane never showed '$2': $(screen "$1")"
		sleep 0.1
	done
}
# ended NAME CODE: jeattach exited with CODE, the terminal as it was.
ended() {
	i=0
	until [ -s "$WORK/$1.after" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "$1: jeattach did not end: $(screen "$1")"
		sleep 0.1
	done
	[ "$(cat "$WORK/$1.exit")" = "$2" ] || fail "$1: exit $(cat "$WORK/$1.exit"), wanted $2"
	cmp -s "$WORK/$1.before" "$WORK/$1.after" || fail "$1: terminal settings not restored"
	screen "$1" | grep -q 'ALLOC/s' && fail "$1: still on the alternate screen: $(screen "$1")"
	return 0
}

start a
wait_for a 'jeattach --top  pid '"$v"
wait_for a 'TID +NAME +ALLOC/s'
wait_for a '  #3'
one=$(screen a | sed -n '/^TID/,$p')
wait_for a '  #5'
two=$(screen a | sed -n '/^TID/,$p')
[ "$one" != "$two" ] || fail "the thread table did not change: $two"
screen a | grep -qE '^allocated +[0-9.]+ [KMG]?i?B' || fail "no totals: $(screen a)"
screen a | grep -qE '^[0-9]+ +victim_dyn +[0-9.]+ MiB' || fail "no busy thread: $(screen a)"
pass "draws and updates"

tm send-keys -t a s
wait_for a 'sort \(free/s\)'
tm send-keys -t a s
wait_for a 'sort \(allocated\)'
pass "s sorts"

tm send-keys -t a p
wait_for a 'PAUSED'
s1=$(seq_of a)
sleep 1
[ "$(seq_of a)" = "$s1" ] || fail "paused, yet refreshed: $s1 -> $(seq_of a)"
tm send-keys -t a p
sleep 1
[ "$(seq_of a)" -gt "$s1" ] || fail "p did not resume"
pass "p pauses and resumes"

tm send-keys -t a q
ended a 0
pass "q quits: exit 0, terminal restored"

start b
wait_for b '  #2'
tm send-keys -t b C-c
ended b 130
pass "Ctrl-C: exit 130, terminal restored"

# 80 columns (issue 33 item 9): no line wraps (before, each thread row
# was 81 wide); every row under the header is a thread's, whole.
tm new-session -d -s c -x 80 -y 30 "$JEATTACH -p $v --top --interval 300ms; sleep 120"
wait_for c '  #3'
screen c | sed -n '/^TID/,$p' | sed 1d | grep -v '^ *$' >"$WORK/c.rows"
[ -s "$WORK/c.rows" ] || fail "no thread rows: $(screen c)"
grep -vE '^[0-9]+ +[^ ].* [0-9.]+ [KMG]?i?B$' "$WORK/c.rows" && fail "a cut or wrapped row: $(screen c)"
screen c | awk 'length > 80 { bad = 1 } END { exit !bad }' && fail "a line past 80 columns: $(screen c)"
tm send-keys -t c q
pass "80 columns: nothing wraps"

tm kill-server
finish_victim v
