#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# zsh and fish completion (completions/_jeattach, _jeheap, jeattach.fish,
# jeheap.fish), each driven through its own shell's completion machinery:
# an interactive shell in tmux, its completion system set up as an
# installed one finds these files (zsh's compinit through $fpath, fish's
# autoloading through $fish_complete_path), a command line typed and Tab
# pressed, and what the shell then shows read off the pane.
. "$top_srcdir/tests/integration/lib.sh"
command -v tmux >/dev/null || skip "tmux is not installed (apt-get install tmux)"
command -v zsh >/dev/null || command -v fish >/dev/null ||
	skip "neither zsh nor fish is installed (apt-get install zsh fish)"
# The scripts ask the jeattach and the jeheap they complete (the command's
# first word) for their tables: this build's, as installed ones on PATH.
PATH=$top_builddir/src:$top_builddir/jeheap:$PATH
export PATH
C=$top_srcdir/completions
SOCK="jeattach-test-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
screen() { tm capture-pane -p -t "$SH"; }

start_victim v "$TARGETS/victim_dyn" -b 0
start_victim p "$TARGETS/victim_plain" -b 0
mkdir "$WORK/f"
touch "$WORK/f/a.heap" "$WORK/f/b.txt" "$WORK/f/c.prom" "$WORK/f/r.json"
# Every option jeattach --help lists (the bash test's check, here through
# each shell's own listing).
help_opts=$("$JEATTACH" --help | grep -oE -- '--[a-z][a-z_-]*' | sort -u)

# started: the shell's first prompt is up (a Ctrl-C before it would cut
# its startup file short).
started() {
	[ -n "${TMUX_SERVER:-}" ] || { TMUX_SERVER=$(tm display -p '#{pid}'); track "$TMUX_SERVER"; }
	i=0
	until screen | grep -q "^${PS% }"; do
		i=$((i + 1))
		[ $i -gt 100 ] && fail "$SH: no prompt: $(screen)"
		sleep 0.1
	done
}
# shows TEXT N: the pane is TEXT, exactly, within N tenths of a second.
shows() {
	j=0
	until [ "$(screen)" = "$1" ]; do
		j=$((j + 1))
		[ $j -gt "$2" ] && return 1
		sleep 0.1
	done
}
# fresh: a bare prompt, with the line editor reading keys. zsh and fish
# both give up their line at Ctrl-C and clear the screen at Ctrl-L.
# Under load either shell may handle a Ctrl-C late, after keys typed
# since (seen in CI: '% x' left above a new prompt), or zsh may drop
# keys typed ahead of its prompt; so a marker is typed until the line
# shows it alone, and taken back, and any other pane starts over.
# (fish keeps typeahead, and would draw an autosuggestion after a marker.)
fresh() {
	k=0
	while :; do
		k=$((k + 1))
		[ $k -gt 10 ] && fail "$SH: no fresh prompt: $(screen)"
		tm send-keys -t "$SH" C-c
		sleep 0.1
		tm send-keys -t "$SH" C-l
		shows "${PS% }" 30 || continue
		[ "$SH" = zsh ] || return 0
		tm send-keys -t "$SH" -l x
		shows "${PS}x" 30 || continue
		tm send-keys -t "$SH" BSpace
		shows "${PS% }" 30 && return 0
	done
}
# tab LINE: a fresh line, LINE typed and Tab pressed; the pane's text is
# read once the shell has answered (its line changed, or a list shown).
tab() {
	typed=$(printf '%s\n' "$PS$1" | sed 's/ *$//') # as the pane shows it
	n=0
	while :; do
		n=$((n + 1))
		[ $n -gt 5 ] && fail "$SH: '$1' never showed: $(screen)"
		fresh
		tm send-keys -t "$SH" -l "$1"
		shows "$typed" 50 && break
	done
	tm send-keys -t "$SH" Tab
	i=0
	until [ "$(screen)" != "$typed" ]; do
		i=$((i + 1))
		[ $i -gt 100 ] && break # no answer at all: the caller says what it wanted
		sleep 0.1
	done
	sleep 0.3 # a list is drawn after the line
	screen >"$WORK/screen"
}
# line: the command line after Tab (the first line of the pane).
line() { head -1 "$WORK/screen" | sed "s/^$PS//; s/ *\$//"; }
# offered WORD: WORD is on the pane below the line, as a word of its own.
offered() { sed 1d "$WORK/screen" | grep -qE -- "(^|[[:space:]])$1([[:space:]]|\$)"; }
# completes LINE WANT: Tab turns LINE into WANT.
completes() {
	tab "$1"
	[ "$(line)" = "$2" ] || fail "$SH: '$1' Tab gave '$(line)', wanted '$2': $(cat "$WORK/screen")"
}
# lists LINE WORD...: Tab on LINE lists each WORD.
lists() {
	l=$1
	shift
	tab "$l"
	for w in "$@"; do
		offered "$w" || fail "$SH: '$l' Tab does not offer $w: $(cat "$WORK/screen")"
	done
}

# The checks each shell passes: the same as the bash completion's.
checks() {
	completes "jeattach --statu" "jeattach --status"
	completes "jeattach --gdump=of" "jeattach --gdump=off"
	completes "jeattach --stats=" "jeattach --stats=full"
	lists "jeattach --thread-active-init o" on off
	offered full && fail "$SH: --thread-active-init offers --stats' value"
	# Drawn from the option table: every option --help lists is offered
	# (fish, as bash, offers one that needs a word as --NAME=).
	# shellcheck disable=SC2046
	lists "jeattach --" $(for o in $help_opts; do echo "$o=?"; done)
	pass "$SH: jeattach's options and their words, from its table"
	# The victim's pid listed, or, where it is the machine's only jemalloc
	# process, put on the line (with the comma a list of pids goes on with).
	tab "jeattach -p "
	# Other jemalloc processes (a parallel make check's victims): zsh puts
	# the pids' common start on the line first; a second Tab lists them.
	cur=$(line | sed -n 's/^jeattach -p \([0-9]*\)$/\1/p')
	if [ -n "$cur" ] && [ "$cur" != "$v" ] && [ "${v#"$cur"}" != "$v" ]; then
		tm send-keys -t "$SH" Tab
		sleep 0.5
		screen >"$WORK/screen"
	fi
	offered "$v" || line | grep -qE -- "-p $v,?\$" ||
		fail "$SH: 'jeattach -p ' Tab does not offer $v: $(cat "$WORK/screen")"
	{ offered "$p" || line | grep -qE -- "-p $p,?\$"; } &&
		fail "$SH: glibc-only pid $p offered: $(cat "$WORK/screen")"
	completes "jeattach --prometheus $WORK/f/" "jeattach --prometheus $WORK/f/c.prom"
	completes "jeattach --dump $WORK/f/" "jeattach --dump $WORK/f/a.heap"
	completes "jeattach --frag-profile=$WORK/f/" "jeattach --frag-profile=$WORK/f/a.heap"
	completes "jeattach --get prof.acti" "jeattach --get prof.active"
	# --all NAME,NAME: the name after the comma (zsh's _sequence may
	# leave its comma for the next one, as with -p).
	tab "jeattach --all nosuch,victim_d"
	line | grep -qE -- '^jeattach --all nosuch,victim_dyn,?$' ||
		fail "$SH: '--all nosuch,victim_d' Tab gave '$(line)': $(cat "$WORK/screen")"
	# a name only jeattach's table has (--list-controls), no script
	completes "jeattach --get opt.prof_leak_e" "jeattach --get opt.prof_leak_error"
	pass "$SH: jeattach's values: jemalloc pids, .prom and .heap files, controls, --all's names"
	completes "jeheap co" "jeheap collapsed"
	completes "jeheap pp" "jeheap pprof"
	completes "jeheap rec" "jeheap recent"
	completes "jeheap top --li" "jeheap top --lines"
	completes "jeheap recent --cr" "jeheap recent --cross-thread"
	completes "jeheap top $WORK/f/" "jeheap top $WORK/f/a.heap"
	completes "jeheap recent $WORK/f/" "jeheap recent $WORK/f/r.json"
	pass "$SH: jeheap's commands, each one's options and files"
}

missing=""
if command -v zsh >/dev/null; then
	# No system startup file (-d) and ours for the user's: compinit
	# finds _jeattach and _jeheap through $fpath as it would Debian's
	# /usr/share/zsh/vendor-completions.
	mkdir "$WORK/zdot"
	cat >"$WORK/zdot/.zshrc" <<-EOF
		fpath=($C \$fpath)
		autoload -Uz compinit && compinit -u -d $WORK/zcompdump
		PS1='%% ' RPS1=''
		LISTMAX=0 # list every match, without asking first
	EOF
	SH=zsh PS='% '
	tm new-session -d -s zsh -x 200 -y 60 "ZDOTDIR=$WORK/zdot zsh -d -i"
	started
	checks
else
	missing="zsh"
fi
if command -v fish >/dev/null; then
	# No configuration (--no-config): jeattach.fish and jeheap.fish are
	# autoloaded from $fish_complete_path by the command's name, as from
	# Debian's /usr/share/fish/vendor_completions.d.
	cat >"$WORK/config.fish" <<-EOF
		set -g fish_greeting
		set -p fish_complete_path $C
		function fish_prompt; echo -n '> '; end
		function fish_right_prompt; end
	EOF
	SH=fish PS='> '
	tm new-session -d -s fish -x 200 -y 60 "fish --no-config -C 'source $WORK/config.fish'"
	started
	checks
else
	missing="${missing:+$missing and }fish"
fi
tm kill-server
finish_victim v
finish_victim p
[ -z "$missing" ] || skip "$missing not installed (apt-get install zsh fish): its completion untested"
