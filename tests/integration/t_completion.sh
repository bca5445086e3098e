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
complete_words "$C/jeattach" _jeattach jeattach --sta | grep -qx -- '--status' || fail "--sta"
complete_words "$C/jeattach" _jeattach jeattach --gdump=o | grep -qx -- '--gdump=on' || fail "--gdump="
start_victim v "$TARGETS/victim_dyn" -b 0
start_victim p "$TARGETS/victim_plain" -b 0
out=$(complete_words "$C/jeattach" _jeattach jeattach -p "")
echo "$out" | grep -qx "$v" || fail "no jemalloc pid $v in: $out"
echo "$out" | grep -qx "$p" && fail "glibc-only pid $p offered"
touch "$WORK/a.heap" "$WORK/b.txt"
out=$(complete_words "$C/jeheap" _jeheap jeheap top "$WORK/")
echo "$out" | grep -q 'a.heap$' || fail "jeheap files: $out"
echo "$out" | grep -q 'b.txt$' && fail "non-profile offered: $out"
complete_words "$C/jeheap" _jeheap jeheap co | grep -qx collapsed || fail "jeheap commands"
complete_words "$C/jeheap" _jeheap jeheap pp | grep -qx pprof || fail "jeheap pprof command"
complete_words "$C/jeheap" _jeheap jeheap top --li | grep -qx -- --lines || fail "jeheap --lines"
finish_victim v
finish_victim p
pass "bash completion"
