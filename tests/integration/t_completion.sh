#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Bash completion: options, pids of jemalloc processes, profile files.
. "$top_srcdir/tests/integration/lib.sh"
command -v bash >/dev/null || skip "bash not installed"
complete_words() { # complete_words FILE FUNCTION WORD...
	f=$1 fn=$2
	shift 2
	bash -c '. "$1"; fn=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); "$fn"; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$f" "$fn" "$@"
}
C=$top_srcdir/completions
# The scripts ask the jeattach and the jeheap they complete (their first
# word) for their tables: this build's, as installed ones would be on PATH.
PATH=$top_builddir/src:$top_builddir/jeheap:$PATH
export PATH
complete_words "$C/jeattach" _jeattach jeattach --sta | grep -qx -- '--status' || fail "--sta"
complete_words "$C/jeattach" _jeattach jeattach --gdump=o | grep -qx -- '--gdump=on' || fail "--gdump="
# Drawn from the option table: every option --help lists is offered.
offered=$(complete_words "$C/jeattach" _jeattach jeattach --)
for opt in $("$JEATTACH" --help | grep -oE -- '--[a-z][a-z_-]*' | sort -u); do
	echo "$offered" | grep -q -- "^$opt=\{0,1\}$" || fail "$opt not offered: $offered"
done
complete_words "$C/jeattach" _jeattach jeattach --stats= | grep -qx -- '--stats=full' || fail "--stats="
out=$(complete_words "$C/jeattach" _jeattach jeattach --thread-active-init "" | tr '\n' ' ')
[ "$out" = "on off " ] || fail "--thread-active-init VALUE: $out"
# bash splits at '=' (COMP_WORDBREAKS): "--gdump" "=" "of".
complete_words "$C/jeattach" _jeattach jeattach --gdump = of | grep -qx off || fail "--gdump = of"
[ -z "$(complete_words "$C/jeattach" _jeattach jeattach --for "")" ] || fail "--for offers a value"
start_victim v "$TARGETS/victim_dyn" -b 0
start_victim p "$TARGETS/victim_plain" -b 0
out=$(complete_words "$C/jeattach" _jeattach jeattach -p "")
echo "$out" | grep -qx "$v" || fail "no jemalloc pid $v in: $out"
echo "$out" | grep -qx "$p" && fail "glibc-only pid $p offered"
# --all NAME,NAME: a name after the comma, the names before kept; beside
# a process whose name holds a quote and a backslash (compgen -W expanded
# the names, and that one made the completion offer none).
cp "$TARGETS/victim_dyn" "$WORK/q\"\\x"
start_victim_env q "MALLOC_CONF=" "$WORK/q\"\\x" -b 0
out=$(complete_words "$C/jeattach" _jeattach jeattach --all "nosuch,victim_d")
echo "$out" | grep -qx "nosuch,victim_dyn" || fail "--all a,b: $out"
echo "$out" | grep -q "victim_plain" && fail "--all offers a glibc-only process: $out"
touch "$WORK/a.heap" "$WORK/b.txt" "$WORK/c.prom"
out=$(complete_words "$C/jeattach" _jeattach jeattach -p 1 --prometheus "$WORK/")
echo "$out" | grep -q 'c.prom$' || fail "--prometheus files: $out"
echo "$out" | grep -qE '(a.heap|b.txt)$' && fail "--prometheus offers a non-.prom file: $out"
# Controls: jeattach's own table (--list-controls), each one offered, and
# an index given as 4096 where it means all arenas.
out=$(complete_words "$C/jeattach" _jeattach jeattach -p 1 --get "")
[ "$out" = "$(jeattach --list-controls)" ] || fail "--get offers other than --list-controls: $out"
complete_words "$C/jeattach" _jeattach jeattach -p 1 --get opt.prof_leak_e | grep -qx opt.prof_leak_error ||
	fail "--get opt.prof_leak_e"
complete_words "$C/jeattach" _jeattach jeattach -p 1 --set arena.4 | grep -qx arena.4096.purge ||
	fail "--set arena.4"
jeattach --list-controls | grep -qx prof.dump && fail "prof.dump listed (--set refuses it)"
jeattach --list-controls | grep -qx arenas.create && fail "arenas.create listed (--get refuses it)"
for n in $(jeattach --list-controls); do
	jeattach -p 2147483647 --get "$n" >/dev/null 2>"$WORK/get.err"
	g=$?
	jeattach -p 2147483647 --set "$n=0" >/dev/null 2>"$WORK/set.err"
	s=$?
	# exit 2 from both: neither takes the name (else 3: the pid, past
	# pid_max, names no process; nothing is ever attached)
	[ "$g" = 2 ] && [ "$s" = 2 ] && ! grep -q "is not a valid" "$WORK/set.err" &&
		fail "$n is listed but neither --get nor --set takes it: $(cat "$WORK/get.err" "$WORK/set.err")"
done
out=$(complete_words "$C/jeheap" _jeheap jeheap top "$WORK/")
echo "$out" | grep -q 'a.heap$' || fail "jeheap files: $out"
echo "$out" | grep -q 'b.txt$' && fail "non-profile offered: $out"
complete_words "$C/jeheap" _jeheap jeheap co | grep -qx collapsed || fail "jeheap commands"
complete_words "$C/jeheap" _jeheap jeheap pp | grep -qx pprof || fail "jeheap pprof command"
complete_words "$C/jeheap" _jeheap jeheap top --li | grep -qx -- --lines || fail "jeheap --lines"
complete_words "$C/jeheap" _jeheap jeheap rec | grep -qx recent || fail "jeheap recent command"
complete_words "$C/jeheap" _jeheap jeheap recent --cr | grep -qx -- --cross-thread ||
	fail "jeheap recent options"
touch "$WORK/r.json"
out=$(complete_words "$C/jeheap" _jeheap jeheap recent "$WORK/")
echo "$out" | grep -q 'r.json$' || fail "jeheap recent files: $out"
echo "$out" | grep -q 'a.heap$' && fail "jeheap recent offers a heap profile: $out"
finish_victim v
finish_victim p
pass "bash completion"
