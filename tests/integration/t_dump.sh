#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --dump: a complete profile where the operator asks, atomically, with
# nothing left in the target (no descriptor, no file); for a target of
# another user and in another mount namespace; a full disk; and the profile's
# numbers checked against the known workload and against jeprof itself.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# Every allocation sampled (lg_prof_sample:0): the profile is exact.
EXACT="MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0"
start_victim_env v "$EXACT" "$TARGETS/victim_dyn" -b 1 -w
fds_before=$(ls /proc/"$v"/fd | wc -l)
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/a.heap" --json
[ "$(json_get "$OUT" "j['actions'][0]['bytes']")" = "$(stat -c %s "$WORK/a.heap")" ] ||
	fail "reported size differs: $OUT"
head -1 "$WORK/a.heap" | grep -q '^heap_v2/1$' || fail "not a heap profile: $(head -1 "$WORK/a.heap")"
grep -q '^MAPPED_LIBRARIES:' "$WORK/a.heap" || fail "no MAPPED_LIBRARIES section"
grep -q "victim_dyn" "$WORK/a.heap" || fail "the maps do not name the victim"
fds_after=$(ls /proc/"$v"/fd | wc -l)
[ "$fds_before" = "$fds_after" ] || fail "descriptors in the target: $fds_before -> $fds_after"
ls -l /proc/"$v"/fd | grep -q 'memfd:jeattach' && fail "a memfd was left in the target"
ls -a "$WORK" | grep -q '^\.jeattach-' && fail "a temporary file was left behind"
pass "dump complete, nothing left behind"

# The numbers: the workload's sites, exactly (each function once per stack).
expect_rc 0 "$JEHEAP" top --inuse_objects "$WORK/a.heap"
cum() { printf '%s\n' "$OUT" | awk -v f="$1" '$6 == f { print $4 }'; }
[ "$(cum wl_small)" = 1000 ] || fail "wl_small: $(cum wl_small) objects"
[ "$(cum wl_big)" = 10 ] || fail "wl_big: $(cum wl_big) objects"
[ "$(cum wl_rec)" = 100 ] || fail "wl_rec (recursive) counted $(cum wl_rec) times"
pass "workload sites exact"

# Against jeprof on the same file: the total and every row of the program's
# own functions agree (libc's internal names differ: jeprof reads DWARF from
# debug packages through addr2line, jeheap the symbol tables).
if command -v jeprof >/dev/null; then
	for metric in inuse_objects inuse_space; do
		jeprof --"$metric" --text "$TARGETS/victim_dyn" "$WORK/a.heap" >"$WORK/jeprof.txt" 2>/dev/null ||
			fail "jeprof failed"
		"$JEHEAP" top --"$metric" "$WORK/a.heap" >"$WORK/jeheap.txt" || fail "jeheap failed"
		# jeprof prunes allocator frames by a list of names (malloc,
		# calloc, ...). Where jemalloc was built with its internals out of
		# line (the clang build the arm64 machine profiles with:
		# tests/arm64/jemalloc-prof.sh), one of them stays on top for
		# jeprof and takes the flat share jeheap, pruning by object, gives
		# the program: then the cumulative columns are compared.
		top=$(awk '/^ *[0-9.]+ +[0-9.]+% / { print $NF; exit }' "$WORK/jeprof.txt")
		cols='$0'
		case " alloc_block wl_small wl_big wl_rec main " in
		*" $top "*) ;;
		*) cols='$4, $5'; echo "note: jeprof keeps $top (an allocator frame) on top; cumulative columns compared" ;;
		esac
		for f in Total: alloc_block wl_small wl_big wl_rec main; do
			a=$(grep -E "( $f\$|^$f )" "$WORK/jeprof.txt")
			b=$(grep -E "( $f\$|^$f )" "$WORK/jeheap.txt")
			[ -n "$a" ] || fail "jeprof has no row $f"
			[ "$f" = Total: ] || { a=$(echo "$a" | awk "{ print $cols }"); b=$(echo "$b" | awk "{ print $cols }"); }
			[ "$a" = "$b" ] || fail "$metric $f: jeprof '$a' jeheap '$b'"
		done
	done
	pass "jeheap top agrees with jeprof --text"
else
	echo "note: jeprof not installed (libjemalloc-dev ships it); comparison skipped"
fi

# --symbolize: jeprof's symbolized form, readable without the binaries, by
# jeheap (here prevented from opening any binary) and by jeprof itself.
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/sym.heap" --symbolize --json
[ "$(json_get "$OUT" "j['actions'][0]['symbolized']")" = True ] || fail "$OUT"
head -1 "$WORK/sym.heap" | grep -qx -- '--- symbol' || fail "not symbolized: $(head -1 "$WORK/sym.heap")"
grep -q ' wl_small$' "$WORK/sym.heap" || fail "no wl_small symbol"
"$JEHEAP" top --inuse_objects --root /nonexistent "$WORK/sym.heap" >"$WORK/sym.txt" || fail "jeheap on it"
# The same profile without its symbol section, named from the binaries.
sed '1,/^--- heap$/d' "$WORK/sym.heap" >"$WORK/sym-raw.heap"
for f in alloc_block wl_small wl_big wl_rec main; do
	a=$(grep " $f\$" "$WORK/sym.txt")
	b=$("$JEHEAP" top --inuse_objects "$WORK/sym-raw.heap" | grep " $f\$")
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "symbolized $f: '$a' vs '$b'"
done
if command -v jeprof >/dev/null; then
	jeprof --text --inuse_objects "$WORK/sym.heap" >"$WORK/sym.jeprof" 2>/dev/null || fail "jeprof on it"
	# Cumulative columns: jeprof prunes by plain names only, so the frames
	# of libjemalloc that no symbol covers ("libjemalloc.so.2+0x...") stay
	# on top for it and take the flat share jeheap gives the program.
	for f in alloc_block wl_small; do
		[ "$(grep " $f\$" "$WORK/sym.jeprof" | awk '{print $4, $5}')" = \
			"$(grep " $f\$" "$WORK/sym.txt" | awk '{print $4, $5}')" ] ||
			fail "jeprof reads $f differently"
	done
fi
pass "--symbolize"

# No FILE: jemalloc's automatic name in jeattach's working directory.
mkdir "$WORK/cwd"
(cd "$WORK/cwd" && "$JEATTACH" -p "$v" --dump --dump -q) || fail "automatic dump"
[ -s "$WORK/cwd/jeprof.$v.0.m0.heap" ] && [ -s "$WORK/cwd/jeprof.$v.1.m1.heap" ] ||
	fail "automatic names: $(ls "$WORK/cwd")"
# The name starts with the basename of the target's opt.prof_prefix, which
# act_dump read during the hold and hands to the step that names the file.
start_victim_env pp "MALLOC_CONF=prof:true,prof_active:false,prof_prefix:/nonexistent/app" \
	"$TARGETS/victim_dyn" -b 0
(cd "$WORK/cwd" && "$JEATTACH" -p "$pp" --dump -q) || fail "automatic dump with a prefix"
[ -s "$WORK/cwd/app.$pp.0.m0.heap" ] || fail "prefixed automatic name: $(ls "$WORK/cwd")"
finish_victim pp
pass "automatic names"

# A full disk: exit 8, no partial file, no temporary left, target unharmed.
mkdir "$WORK/full"
if mount -t tmpfs -o size=64k tmpfs "$WORK/full" 2>/dev/null; then
	MOUNTED="$WORK/full"
	dd if=/dev/zero of="$WORK/full/filler" bs=4k count=64 2>/dev/null
	expect_rc 8 "$JEATTACH" -p "$v" --dump "$WORK/full/x.heap"
	echo "$ERR" | grep -q 'No space left on device' || fail "$ERR"
	[ "$(ls -A "$WORK/full")" = filler ] || fail "left in the full directory: $(ls -A "$WORK/full")"
	umount "$WORK/full"
	MOUNTED=
	pass "full disk"
else
	echo "note: cannot mount a tmpfs here (not root?); full-disk case not tested"
fi
finish_victim v

# A target running as another user, which cannot write where we ask.
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	mkdir -m 700 "$WORK/private"
	start_victim_env other "" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$TARGETS/victim_dyn" -b 1
	expect_rc 0 "$JEATTACH" -p "$other" --dump "$WORK/private/o.heap"
	[ "$(stat -c %u "$WORK/private/o.heap")" = 0 ] || fail "not owned by the operator"
	head -1 "$WORK/private/o.heap" | grep -q '^heap_v2/' || fail "bad profile"
	finish_victim other
	pass "target of another user"
else
	echo "note: not root or no setpriv; other-user case not tested"
fi

# A target in its own mount and pid namespaces with a private /tmp (a
# container, as far as jeattach is concerned). The binary is opened before
# the mount and run through its descriptor, so it works even when the build
# tree itself is under /tmp (then the target's own files are hidden from it,
# which map_files copes with). Its pid inside is 1.
if unshare --mount --pid --fork --propagation private true 2>/dev/null; then
	start_victim_env nsu "" unshare --mount --pid --fork --propagation private sh -c \
		'exec 3<"$0"; mount -t tmpfs tmpfs /tmp && exec /proc/self/fd/3 "$@"' \
		"$TARGETS/victim_dyn" -b 1
	ns=$(pgrep -P "$nsu")
	ns_out=$nsu_out
	track "$ns"
	expect_rc 0 "$JEATTACH" -p "$ns" --dump "$WORK/ns.heap" --stats --json
	[ "$(json_get "$OUT" "(j['pid'], j['ns_pid'])")" = "($ns, 1)" ] || fail "pids: $OUT"
	head -1 "$WORK/ns.heap" | grep -q '^heap_v2/' || fail "bad profile from the namespace"
	# jemalloc reads /proc/<its getpid()>/maps: 1 here, in a /proc that is
	# not its namespace's (before: no section, or another process's, exit 0).
	sed -n '/^MAPPED_LIBRARIES:/,$p' "$WORK/ns.heap" | grep -q 'libjemalloc' ||
		fail "the namespace's profile does not hold its own maps"
	echo "note: maps written by $(json_get "$OUT" "j['actions'][0]['maps']")"
	finish_victim ns
	pass "target in its own mount and pid namespaces"
else
	echo "note: unshare --mount --pid not permitted; namespace case not tested"
fi

# A profile's size is the target's choice: a thread of it writes into
# jeattach's pipe without end while jemalloc writes. Refused with exit 8
# past --max-dump (or 10, below), nothing written, and what jeattach keeps is bounded by it
# (before, with a memfd: 1 TiB of zeros, sparse, refused at once; with a
# pipe the bytes come as fast as jeattach drains them, so the ceiling is
# lowered here to see it reached within a dump of a few milliseconds).
# Under the ceiling the foreign bytes are still found (exit 10): jemalloc's
# writes are counted at their system call stops, and the pipe brought more.
start_victim grow "$TARGETS/victim_dyn" -b 1 -w -G
# The hostile thread polls: a dump of a few milliseconds can end before it
# looks; that dump is simply whole (exit 0). Try until one meets it.
i=0
while :; do
	i=$((i + 1)); [ $i -gt 40 ] && fail "no dump met the hostile writer in 40 tries"
	bounded 60 "$JEATTACH" -p "$grow" --dump "$WORK/grow.heap" --force --max-dump 256K >"$WORK/stdout" 2>"$WORK/stderr"
	rc=$?
	ERR=$(cat "$WORK/stderr")
	[ $rc = 8 ] && break
	[ $rc = 10 ] && break
	[ $rc = 0 ] || fail "exit $rc: $ERR"
	head -1 "$WORK/grow.heap" | grep -q '^heap_v2/' || fail "exit 0 without a whole profile"
	grep -q 'xxxxxxxx' "$WORK/grow.heap" && fail "exit 0 with the hostile thread's bytes in the profile"
	rm -f "$WORK/grow.heap"
done
grep -q '^fed fd' "$grow_out" || fail "exit $rc though the pipe was never fed: $ERR"
case $rc in
8) echo "$ERR" | grep -q 'past --max-dump' || fail "fed pipe: $ERR" ;;
*) echo "$ERR" | grep -q 'another thread of the process wrote into it' || fail "fed pipe: $ERR" ;;
esac
[ -e "$WORK/grow.heap" ] && fail "a profile was written"
ls "$WORK"/.jeattach-* >/dev/null 2>&1 && fail "a temporary file was left"
# The same thread's writes in flight as the pipe's last reader goes: a
# write that takes the pipe's lock after that raises SIGPIPE, which kills
# (fs/pipe.c pipe_write). Before jeattach waited for the write end to be
# gone everywhere (act_dump_pipe.c close_all), the victim died of it once
# in about 70 dumps (on arm64 in the test above).
i=0
while [ $i -lt 150 ]; do
	i=$((i + 1))
	bounded 60 "$JEATTACH" -p "$grow" --dump "$WORK/grow.heap" --force --max-dump 256K >/dev/null 2>"$WORK/stderr"
	rc=$?
	kill -0 "$grow" 2>/dev/null || fail "the victim died at dump $i (exit $rc): $(cat "$WORK/stderr")"
	case $rc in 0 | 8 | 10) ;; *) fail "dump $i: exit $rc: $(cat "$WORK/stderr")" ;; esac
done
finish_victim grow
pass "150 dumps with a thread writing into the pipe: the process lives"
start_victim small "$TARGETS/victim_dyn" -b 1 -w
expect_rc 8 "$JEATTACH" -p "$small" --dump "$WORK/small.heap" --max-dump 1K
echo "$ERR" | grep -q 'past --max-dump (1024 bytes)' || fail "--max-dump 1K: $ERR"
expect_rc 8 "$JEATTACH" -p "$small" --dump "$WORK/small.heap" --max-dump 1K --symbolize
expect_rc 0 "$JEATTACH" -p "$small" --dump "$WORK/small.heap" --max-dump 64M
finish_victim small
pass "--max-dump: a pipe fed without end refused, the ceiling obeyed"

# Automatic names and patterns, as the target and the operator may give them.
# prof_prefix:/ : the automatic name is a plain file name here, never in /.
mkdir -p "$WORK/auto"
start_victim_env slash "MALLOC_CONF=prof:true,prof_active:false,prof_prefix:/" "$TARGETS/victim_dyn" -b 1
(cd "$WORK/auto" && "$JEATTACH" -p "$slash" --dump >/dev/null 2>"$WORK/auto.err") ||
	fail "--dump with prof_prefix:/: $(cat "$WORK/auto.err")"
ls "$WORK/auto/jeprof.$slash.0.m0.heap" >/dev/null || fail "no jeprof.PID.0.m0.heap: $(ls -a "$WORK/auto")"
ls -a / | grep -q "^\.$slash\." && fail "a profile was written into /"
# A directory named by %p, and %% in a name.
mkdir -p "$WORK/d$slash"
expect_rc 0 "$JEATTACH" -p "$slash" --dump "$WORK/d%p/x%%y.heap"
[ -f "$WORK/d$slash/x%y.heap" ] || fail "%p directory / %%: $(ls "$WORK/d$slash")"
# A pattern that makes a directory's name: said before attaching (a
# directory named as itself is a directory of dumps, t_every_keep.sh).
expect_rc 8 "$JEATTACH" -p "$slash" --dump "$WORK/d%p"
echo "$ERR" | grep -q 'is a directory: give a file name' || fail "directory: $ERR"
finish_victim slash
pass "automatic name under prof_prefix:/, %p directories, %%, a directory refused"
