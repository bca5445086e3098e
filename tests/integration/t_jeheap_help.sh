#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jeheap's one table (jeheap/jeheap_table.c) against what is drawn from it:
# jeheap --help and each command's help list exactly the options the table
# gives that command, jeheap help CMD is jeheap CMD --help, bash completion
# offers them; and the answers to mistakes (did-you-mean, jeprof's habits,
# a file where the command goes), one line each, exit 2, in jeheap and in
# jeattach.
. "$top_srcdir/tests/integration/lib.sh"

PROFILE=$top_srcdir/tests/fuzz/corpus/heap/v2.heap
expect_rc 0 "$JEHEAP" --list-commands
printf '%s\n' "$OUT" >"$WORK/commands"
expect_rc 0 "$JEHEAP" --list-options
printf '%s\n' "$OUT" >"$WORK/options"
[ "$(wc -l <"$WORK/commands")" -ge 9 ] || fail "--list-commands: $(cat "$WORK/commands")"
[ "$(wc -l <"$WORK/options")" -ge 40 ] || fail "--list-options: $(cat "$WORK/options")"

# left HELP: the options a help lists in its left column, one a line
# (the long name where there is one), sorted.
left() {
	sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}\(-\{1,2\}[a-z_-]*\).*/\2/p' "$1" | sort
}
# wanted CMD...: the options --list-options gives any of the commands.
wanted() {
	while read -r long short arg value cmds; do
		for c in "$@"; do
			case ",$cmds," in *",$c,"*)
				[ "$long" = - ] && long=$short
				printf '%s\n' "$long"
				break ;;
			esac
		done
	done <"$WORK/options" | sort -u
}

# ---- each command's help: jeheap help CMD = jeheap CMD --help, and its
# options are the table's for it, each once.
expect_rc 0 "$JEHEAP" --help
printf '%s\n' "$OUT" >"$WORK/help"
shared=""
while read -r name operand scope join; do
	grep -q "^  $name  " "$WORK/help" || fail "jeheap --help does not list the command $name"
	[ "$scope" = shared ] && shared="$shared $name"
	expect_rc 0 "$JEHEAP" help "$name"
	printf '%s\n' "$OUT" >"$WORK/help.$name"
	head -1 "$WORK/help.$name" | grep -q "^Usage: jeheap $name" || fail "help $name: $OUT"
	if [ "$name" != help ]; then
		expect_rc 0 "$JEHEAP" "$name" --help
		[ "$OUT" = "$(cat "$WORK/help.$name")" ] || fail "jeheap $name --help differs from jeheap help $name"
	fi
	left "$WORK/help.$name" >"$WORK/left.$name"
	wanted "$name" >"$WORK/want.$name"
	[ "$(sort -u "$WORK/left.$name")" = "$(cat "$WORK/left.$name")" ] ||
		fail "$name --help lists an option twice: $(cat "$WORK/left.$name")"
	cmp -s "$WORK/left.$name" "$WORK/want.$name" ||
		fail "$name --help and the table differ: $(diff "$WORK/want.$name" "$WORK/left.$name" | tr '\n' ' ')"
done <"$WORK/commands"
# shellcheck disable=SC2086
wanted $shared >"$WORK/want.shared"
left "$WORK/help" >"$WORK/left.shared"
cmp -s "$WORK/left.shared" "$WORK/want.shared" ||
	fail "jeheap --help and the table differ: $(diff "$WORK/want.shared" "$WORK/left.shared" | tr '\n' ' ')"
# Every help fits a terminal, and says what its exit codes mean.
for f in "$WORK"/help "$WORK"/help.*; do
	awk -v f="$f" 'length > 79 { print f ": " $0; bad = 1 } END { exit bad }' "$f" ||
		fail "a help line is longer than 79 columns"
	grep -q '^Exit codes: 0 ok, 2 usage' "$f" || fail "$f: no exit codes"
done
# jeheap top --help after other options, jeheap --help before the command.
expect_rc 0 "$JEHEAP" --lines top --help
[ "$OUT" = "$(cat "$WORK/help.top")" ] || fail "jeheap --lines top --help"
expect_rc 0 "$JEHEAP" --help trend --bogus
[ "$OUT" = "$(cat "$WORK/help.trend")" ] || fail "jeheap --help trend"
expect_rc 0 "$JEHEAP" jeprof --help
[ "$OUT" = "$(cat "$WORK/help.jeprof")" ] || fail "jeheap jeprof --help"
pass "jeheap --help, each command's help and the table agree"

# ---- bash completion offers each command's options, and only its.
if command -v bash >/dev/null; then
	PATH=$top_builddir/jeheap:$PATH
	export PATH
	offered() { # offered WORD...: what completing the last word offers
		bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _jeheap; printf "%s\n" "${COMPREPLY[@]}"' \
			_ "$top_srcdir/completions/jeheap" jeheap "$@" | sed 's/=$//' | sort -u
	}
	while read -r name operand scope join; do
		[ "$name" = help ] && continue
		offered "$name" - >"$WORK/offered.$name"
		cmp -s "$WORK/offered.$name" "$WORK/want.$name" ||
			fail "completion of jeheap $name -: $(diff "$WORK/want.$name" "$WORK/offered.$name" | tr '\n' ' ')"
	done <"$WORK/commands"
	offered - >"$WORK/offered.shared"
	cmp -s "$WORK/offered.shared" "$WORK/want.shared" || fail "completion of jeheap -"
	[ "$(offered "" | tr '\n' ' ')" = "$(cut -d' ' -f1 "$WORK/commands" | sort | tr '\n' ' ')" ] ||
		fail "completion of jeheap's commands: $(offered "")"
	offered help t | grep -qx trend || fail "jeheap help t: $(offered help t)"
	offered jeprof --lis | grep -qx -- --list || fail "jeheap jeprof --list="
	offered top --root "$top_srcdir/te" | grep -q 'tests$' || fail "--root DIR"
	pass "bash completion offers each command's options from the table"
fi

# ---- mistakes: one line with the cause and the fix, exit 2.
one_line() { [ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "not one line: $ERR"; }
mistake() { # mistake PATTERN ARG...: jeheap ARG... exits 2 with one line matching PATTERN
	pattern=$1
	shift
	expect_rc 2 "$JEHEAP" "$@"
	one_line
	printf '%s\n' "$ERR" | grep -qF -- "$pattern" || fail "jeheap $*: $ERR"
	[ -z "$OUT" ] || fail "jeheap $* printed: $OUT"
}
mistake "unknown option '--jsn' (did you mean --json?); see jeheap --help" trend --jsn "$PROFILE"
mistake "option '--t' is ambiguous (did you mean --thread, --title, --top or --times?)" top --t 1 "$PROFILE"
mistake "unknown command 'tpo' (did you mean top?); the commands are top, collapsed," tpo "$PROFILE"
mistake "unknown command 'graphviz'; the commands are" graphviz "$PROFILE"
mistake "unknown command 'tpo' (did you mean top?)" help tpo
mistake "'$PROFILE' is a file, not a command; put the command first: jeheap top $PROFILE" "$PROFILE"
mistake "'x.heap' is a file, not a command" x.heap
mistake "'r.json' is a file, not a command; put the command first: jeheap recent r.json" r.json
mistake "--nodecount belongs to jeheap jeprof, jeprof's command line: jeheap jeprof --nodecount=5 [PROGRAM] PROFILE..." top --nodecount=5 "$PROFILE"
mistake "--cross-thread belongs to jeheap recent: jeheap recent --cross-thread FILE" top --cross-thread "$PROFILE"
mistake "--inverted belongs to jeheap flame: jeheap flame --inverted [PROGRAM] PROFILE..." jeprof --inverted "$PROFILE"
mistake "--web is jeprof's, and jeheap jeprof refuses it: use --svg" top --web "$PROFILE"
mistake "unknown option '--nodecout=5' (did you mean --nodecount, jeheap jeprof's?); see jeheap --help" top --nodecout=5 "$PROFILE"
mistake "'--nodecout=5' is not a jeprof option (did you mean --nodecount?); see jeheap jeprof --help" jeprof --nodecout=5 "$PROFILE"
mistake "recent: unknown option '--corss-thread' (did you mean --cross-thread?); see jeheap recent --help" recent --corss-thread r.json
mistake "unknown option '-x'; see jeheap --help" top -x "$PROFILE"
mistake "recent takes its options after it: jeheap recent [OPTION...] FILE" --lines recent r.json
mistake "jeprof takes its options after it: jeheap jeprof [OPTION...] [PROGRAM] PROFILE..." --lines jeprof "$PROFILE"
mistake "no command; see jeheap --help"
pass "mistakes: one line, the cause and the fix, exit 2"

# ---- an option the command does not use is refused, never ignored: each
# profile command against each option of their one parser that the table
# does not give it, before or after the command.
mistake "top takes no --inverted; flame takes it: jeheap flame --inverted [PROGRAM] PROFILE... (see jeheap top --help)" top --inverted "$PROFILE"
mistake "flame takes no -n; top, collapsed, dot, json and recent take it (see jeheap flame --help)" -n 5 flame "$PROFILE"
mistake "top takes no --json; trend and recent take it; or the command: jeheap json [PROGRAM] PROFILE..." top --json "$PROFILE"
mistake "trend takes no --base; top, collapsed, flame, dot, pprof, json and jeprof take it" trend --base "$PROFILE" "$PROFILE" "$PROFILE"
refused=0
while read -r name operand scope join; do
	[ "$scope" = shared ] || continue
	while read -r long short arg value cmds; do
		case ",$cmds," in *",$name,"*) continue ;; esac
		ours=no # does any profile command take it?
		for c in $shared; do
			case ",$cmds," in *",$c,"*) ours=yes ;; esac
		done
		[ "$ours" = yes ] || continue
		opt=$long
		[ "$opt" = - ] && opt=$short
		if [ "$arg" = required ]; then
			mistake "jeheap: $name takes no $opt; " "$name" "$opt" 1 "$PROFILE" "$PROFILE"
		else
			mistake "jeheap: $name takes no $opt; " "$opt" "$name" "$PROFILE" "$PROFILE"
		fi
		refused=$((refused + 1))
	done <"$WORK/options"
done <"$WORK/commands"
[ "$refused" -ge 30 ] || fail "only $refused options refused: the table's profile commands?"
# ...and what a command does use is still taken.
expect_rc 0 "$JEHEAP" flame --inverted --title T -o "$WORK/f.svg" "$PROFILE"
expect_rc 0 "$JEHEAP" -n 3 top "$PROFILE"
pass "an option the command does not use: refused, one line, exit 2 ($refused cases)"

# ---- jeprof's habit: jeheap --text ... is jeheap jeprof --text ...
expect_rc 0 "$JEHEAP" jeprof --text "$PROFILE"
jeprof_out=$OUT
expect_rc 0 "$JEHEAP" --text "$PROFILE"
[ "$OUT" = "$jeprof_out" ] || fail "jeheap --text differs from jeheap jeprof --text: $OUT"
expect_rc 0 "$JEHEAP" -nodecount=5 --dot "$PROFILE"
expect_rc 2 "$JEHEAP" --web "$PROFILE"
printf '%s\n' "$ERR" | grep -q "jeprof's --web is not supported" || fail "jeheap --web: $ERR"
# jeheap's own options keep their meaning first: no jeprof there.
expect_rc 0 "$JEHEAP" --lines top "$PROFILE"
expect_rc 2 "$JEHEAP" --svg top "$PROFILE"
printf '%s\n' "$ERR" | grep -q "top takes no --svg; trend and jeprof take it" || fail "jeheap --svg top: $ERR"
pass "jeheap --text PROFILE reads jeprof's command line"

# ---- jeattach's unknown long options: the same did-you-mean.
for c in "--stat:option '--stat' is ambiguous (did you mean --status or --stats?); see jeattach --help" \
	"--activte:unknown option '--activte' (did you mean --activate?); see jeattach --help" \
	"--jsn:unknown option '--jsn' (did you mean --json?); see jeattach --help" \
	"--frobnicate:unknown option '--frobnicate'; see jeattach --help"; do
	expect_rc 2 "$JEATTACH" -p 1 "${c%%:*}"
	one_line
	[ "$ERR" = "jeattach: ${c#*:}" ] || fail "jeattach ${c%%:*}: $ERR"
done
pass "jeattach: did you mean"

# ---- --thread NAME: the comm an operator knows finds jeattach
# --name-threads' comm/TID; a name not found lists the profile's names.
T=$WORK/t.heap
printf '%s\n' 'heap_v2/524288' '  t*: 4: 4096 [0: 0]' '  t0: 1: 1024 [0: 0] main/100' \
	'  t1: 2: 2048 [0: 0] worker/5446' '  t2: 1: 1024 [0: 0] io/5448' '  t3: 0: 0 [0: 0] io/5449' \
	'  t4: 0: 0 [0: 0] cron' '@ 0x1000 0x2000' '  t*: 4: 4096 [0: 0]' '  t0: 1: 1024 [0: 0]' \
	'  t1: 2: 2048 [0: 0]' '  t2: 1: 1024 [0: 0]' '' 'MAPPED_LIBRARIES:' >"$T"
expect_rc 0 "$JEHEAP" json --thread worker "$T"
[ "$(json_get "$OUT" "(j['thread']['name'], j['thread']['thread'])")" = "('worker/5446', 1)" ] ||
	fail "--thread worker: $OUT"
expect_rc 0 "$JEHEAP" json --thread cron "$T"
[ "$(json_get "$OUT" "j['thread']['thread']")" = 4 ] || fail "--thread cron: $OUT"
mistake "jeheap: --thread 'io': 2 threads of $T are io/TID (io/5448 and io/5449); give one of their names" \
	top --thread io "$T"
mistake "jeheap: --thread 'work': no thread of $T has that name; its named threads are main/100, worker/5446, io/5448, io/5449 and cron (jeheap json $T lists them all)" \
	top --thread work "$T"
mistake "jeheap: --thread 'work': the threads of $PROFILE have no names; name them with jeattach --name-threads" \
	top --thread work "$PROFILE"
pass "--thread NAME: comm/TID by its comm; the names a profile has"
