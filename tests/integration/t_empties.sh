#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What used to come out empty or repeated without a word (issue 33 item 7):
# a profile with no sample says why and what to do; --frag's sites say
# once which classes no stack averages; --frag-profile refuses another
# process's profile before the target is touched.
. "$top_srcdir/tests/integration/lib.sh"

# ---- a profile with no sample: the table, and a note of why on stderr.
printf '%s\n' 'heap_v2/524288' '  t*: 0: 0 [0: 0]' '' 'MAPPED_LIBRARIES:' >"$WORK/empty.heap"
expect_rc 0 "$JEHEAP" top "$WORK/empty.heap"
[ "$OUT" = "Total: 0.0 MB" ] || fail "$OUT"
[ "$ERR" = "jeheap: note: $WORK/empty.heap holds no sample: profiling was off or too short to sample an allocation (one per 524288 bytes allocated, on average); take a longer window (jeattach --for), or start the process with a smaller lg_prof_sample (MALLOC_CONF=...,lg_prof_sample:15)" ] ||
	fail "no sample: $ERR"
# A profile with samples gets no note, even where a filter leaves nothing.
PROFILE=$top_srcdir/tests/fuzz/corpus/heap/v2.heap
expect_rc 0 "$JEHEAP" top --focus '^no_such_function$' "$PROFILE"
printf '%s\n' "$ERR" | grep -q "note" && fail "a note for a profile with samples: $ERR"
pass "no sample: said, with what to do"

require_ptrace
start_victim_env a "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:14" "$TARGETS/victim_dyn" -b 0
start_victim_env b "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:14" "$TARGETS/victim_dyn" -b 0
expect_rc 0 "$JEATTACH" -p "$a" --dump "$WORK/a.heap"

# ---- the worst classes of a healthy process: most have no stack of
# their average size; one line says which (it was a line per class).
expect_rc 0 "$JEATTACH" -p "$a" --frag --frag-profile "$WORK/a.heap"
n=$(printf '%s\n' "$OUT" | grep -c 'no stack averages')
[ "$n" -le 1 ] || fail "$n lines of 'no stack averages': $OUT"
[ "$n" = 0 ] || printf '%s\n' "$OUT" |
	grep -qE '^    no stack averages [0-9]+ B, [0-9]+ B.* \(their objects may come from stacks of mixed sizes: see the largest stacks\)$' ||
	fail "the classes without a stack: $OUT"
printf '%s\n' "$OUT" | grep -q 'the largest stacks' || fail "$OUT"
pass "--frag's classes without a stack: one line"

# ---- another process's profile: refused before either is touched.
expect_rc 2 "$JEATTACH" -p "$b" --frag --frag-profile "$WORK/a.heap"
[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "not one line: $ERR"
printf '%s\n' "$ERR" | grep -qE "^jeattach: --frag-profile $WORK/a.heap: another process's profile \(it has [^ ]+ at 0x[0-9a-f]+, process $b at 0x[0-9a-f]+\); give a profile of this process: jeattach -p $b --dump FILE$" ||
	fail "$ERR"
[ -z "$OUT" ] || fail "$OUT"
finish_victim a
finish_victim b
pass "--frag-profile: another process's profile refused, one line, exit 2"
