#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jeheap's jeprof mode (jeheap jeprof ..., jeheap-jeprof ...): byte for byte
# what the real jeprof prints on the same profile, jeprof's other options
# refused by name, PROGRAM told from a profile by its ELF magic, graphviz
# output, --raw's round trip.
# jeprof runs a dozen times; under the sanitizers jeheap is several times
# slower too.
WATCHDOG_SECONDS=${WATCHDOG_SECONDS:-600}
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

EXACT="MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0"
start_victim_env v "$EXACT" "$TARGETS/victim_dyn" -b 0 -w
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/a.heap"
finish_victim v
PROG=$(sed -n 's|.* \(/[^ ]*victim_dyn\)$|\1|p' "$WORK/a.heap" | head -1)
[ -n "$PROG" ] || fail "no victim_dyn in the profile's maps"

# A base that differs both ways: every other stack's counts halved, the
# others doubled (so --drop_negative has negative differences to drop).
python3 - "$WORK/a.heap" "$WORK/base.heap" <<'PY'
import re, sys
n = 0
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        if line.startswith("@"):
            n += 1
        m = re.match(r"  t\*: (\d+): (\d+) \[(\d+): (\d+)\]$", line)
        if m and n:
            k = 2 if n % 2 else 0.5
            line = "  t*: %d: %d [%d: %d]\n" % tuple(int(int(v) * k) for v in m.groups())
        out.write(line)
PY
cmp -s "$WORK/a.heap" "$WORK/base.heap" && fail "the base is the profile"

# ---- PROGRAM: an ELF file before the profiles, in both command lines.
expect_rc 0 "$JEHEAP" top "$WORK/a.heap"
plain=$OUT
expect_rc 0 "$JEHEAP" top "$PROG" "$WORK/a.heap"
[ "$OUT" = "$plain" ] || fail "jeheap top PROGRAM PROFILE differs from jeheap top PROFILE"
expect_rc 0 "$JEHEAP" jeprof --text "$WORK/a.heap"
nopro=$OUT
expect_rc 0 "$JEHEAP" jeprof --text "$PROG" "$WORK/a.heap"
[ "$OUT" = "$nopro" ] || fail "jeheap jeprof with and without PROGRAM differ"
echo "$OUT" | grep -q ' wl_small$' || fail "jeheap jeprof --text: $OUT"
# By content, not name: a profile named like a program is still a profile.
cp "$WORK/a.heap" "$WORK/prog"
expect_rc 0 "$JEHEAP" top "$WORK/prog" "$WORK/a.heap"
# The program is read for the main executable, not the path in the maps:
# a copy elsewhere names the same, a stripped copy names nothing of it.
mkdir "$WORK/bin"
cp "$PROG" "$WORK/bin/copy"
expect_rc 0 "$JEHEAP" jeprof --text "$WORK/bin/copy" "$WORK/a.heap"
[ "$OUT" = "$nopro" ] || fail "PROGRAM as a copy: $(echo "$OUT" | head -3)"
if command -v objcopy >/dev/null; then
	objcopy --strip-all "$PROG" "$WORK/bin/stripped"
	expect_rc 0 "$JEHEAP" jeprof --text "$WORK/bin/stripped" "$WORK/a.heap"
	echo "$OUT" | grep -q 'wl_small' && fail "a stripped PROGRAM was not used: $OUT"
	expect_rc 0 "$JEHEAP" top "$WORK/bin/stripped" "$WORK/a.heap"
	echo "$OUT" | grep -q 'wl_small' && fail "jeheap top: a stripped PROGRAM was not used: $OUT"
fi
pass "PROGRAM recognised by its ELF magic, and used"

# ---- The name: jeheap-jeprof is jeheap jeprof (the real binary, not
# libtool's wrapper, which would exec it under its own name).
real=$top_builddir/jeheap/.libs/jeheap
[ -x "$real" ] || real=$JEHEAP
ln -s "$real" "$WORK/jeheap-jeprof"
LD_LIBRARY_PATH=$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
	"$WORK/jeheap-jeprof" --text "$PROG" "$WORK/a.heap" >"$WORK/named.txt" ||
	fail "jeheap-jeprof: exit $?"
[ "$(cat "$WORK/named.txt")" = "$nopro" ] || fail "jeheap-jeprof: $(head -3 "$WORK/named.txt")"
pass "invoked as jeheap-jeprof"

# ---- Every other jeprof option: refused by name, with what to use, exit 2.
for o in --web --gv --evince --ps --gif --callgrind --disasm=main --symbols --interactive \
	--seconds=5 --add_lib=x.so --files --maxdegree=3 --scale=2 --heapcheck --thread=1 \
	--total_delay --contentions --mean_delay --tools=/usr/bin --test --debug \
	--debug-syms-by-id --test_stride=2; do
	expect_rc 2 "$JEHEAP" jeprof "$o" "$PROG" "$WORK/a.heap"
	name=${o%%=*}
	[ "$(printf '%s\n' "$ERR" | wc -l)" = 1 ] || fail "$o: not one line: $ERR"
	echo "$ERR" | grep -qF -- "jeprof's $name is not supported: " || fail "$o: $ERR"
	[ -z "$OUT" ] || fail "$o printed: $OUT"
done
# Separate values are values (jeprof's GetOptions), not operands.
expect_rc 2 "$JEHEAP" jeprof --seconds 5 "$PROG" "$WORK/a.heap"
echo "$ERR" | grep -q -- "--seconds is not supported" || fail "--seconds 5: $ERR"
expect_rc 2 "$JEHEAP" jeprof --frobnicate "$PROG" "$WORK/a.heap"
echo "$ERR" | grep -q "'--frobnicate' is not a jeprof option" || fail "$ERR"
expect_rc 2 "$JEHEAP" jeprof --text --dot "$PROG" "$WORK/a.heap"
echo "$ERR" | grep -q "Only specify one output mode" || fail "$ERR"
expect_rc 2 "$JEHEAP" jeprof --inuse_objects --alloc_space "$PROG" "$WORK/a.heap"
expect_rc 2 "$JEHEAP" jeprof --lines --addresses "$PROG" "$WORK/a.heap"
expect_rc 2 "$JEHEAP" jeprof --nodecount=x "$PROG" "$WORK/a.heap"
expect_rc 2 "$JEHEAP" jeprof --lib_prefix=/a,/b "$PROG" "$WORK/a.heap"
expect_rc 2 "$JEHEAP" jeprof --focus='(' "$PROG" "$WORK/a.heap"
expect_rc 2 "$JEHEAP" jeprof --exclude='(' "$PROG" "$WORK/a.heap"
expect_rc 3 "$JEHEAP" jeprof "$PROG" "$WORK/none.heap"
expect_rc 2 "$JEHEAP" jeprof --text "$PROG"
pass "unsupported options and usage errors: one line each, exit 2"

# ---- --lib_prefix=DIR: the binaries are looked for under DIR.
mkdir "$WORK/empty"
expect_rc 0 "$JEHEAP" jeprof --lib_prefix="$WORK/empty" "$WORK/a.heap"
echo "$OUT" | grep -q 'wl_small' && fail "--lib_prefix not applied: $OUT"
pass "--lib_prefix"

# ---- graphviz: --dot is the text, --svg and --pdf go through dot.
expect_rc 0 "$JEHEAP" jeprof --dot --nodecount=5 "$PROG" "$WORK/a.heap"
echo "$OUT" | head -1 | grep -q '^digraph ' || fail "--dot: $OUT"
[ "$(echo "$OUT" | grep -c '^N[0-9]* \[label')" = 5 ] || fail "--nodecount=5: $OUT"
expect_rc 0 "$JEHEAP" jeprof --dot --nodefraction=0.5 --edgefraction=0.5 "$PROG" "$WORK/a.heap"
echo "$OUT" | grep -q 'label="wl_small' && fail "--nodefraction=0.5 drew wl_small (3.5%): $OUT"
echo "$OUT" | grep -q 'label="wl_big' || fail "--nodefraction=0.5 dropped wl_big (63%): $OUT"
if command -v dot >/dev/null; then
	"$JEHEAP" jeprof --svg "$PROG" "$WORK/a.heap" >"$WORK/g.svg" || fail "--svg: exit $?"
	python3 - "$WORK/g.svg" <<'PY' || fail "--svg is not a graph of the profile"
import sys, xml.etree.ElementTree as E
root = E.parse(sys.argv[1]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag
texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
assert "wl_small" in texts, texts[:20]
PY
	"$JEHEAP" jeprof --pdf "$PROG" "$WORK/a.heap" >"$WORK/g.pdf" || fail "--pdf: exit $?"
	[ "$(head -c 5 "$WORK/g.pdf")" = "%PDF-" ] || fail "--pdf: $(head -c 20 "$WORK/g.pdf")"
	pass "--svg (parsed as XML) and --pdf"
else
	echo "note: graphviz not installed; --svg and --pdf not rendered"
fi
# (the real binary: libtool's wrapper script needs a $PATH of its own)
nodot() {
	expect_rc 2 env PATH=/nonexistent \
		LD_LIBRARY_PATH="$top_builddir/lib/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$real" jeprof "$@" "$PROG" "$WORK/a.heap"
	echo "$ERR" | grep -q -- "$1 needs graphviz's dot" || fail "no graphviz, $1: $ERR"
}
nodot --svg
nodot --pdf
pass "graphviz missing: one line, exit 2"

# ---- --raw: the symbolized form, read back without the binaries.
expect_rc 0 "$JEHEAP" jeprof --raw "$PROG" "$WORK/a.heap"
printf '%s\n' "$OUT" >"$WORK/a.raw"
[ "$(head -2 "$WORK/a.raw")" = "--- symbol
binary=$PROG" ] || fail "--raw: $(head -3 "$WORK/a.raw")"
grep -qx -- '--- heap' "$WORK/a.raw" || fail "--raw: no --- heap"
expect_rc 0 "$JEHEAP" top --root "$WORK/empty" "$WORK/a.raw"
[ "$OUT" = "$plain" ] || fail "top of --raw without binaries differs: $(echo "$OUT" | head -5)"
expect_rc 0 "$JEHEAP" jeprof --raw "$WORK/a.raw"
[ "$OUT" = "$(cat "$WORK/a.raw")" ] || fail "--raw of a --raw output is not itself"
pass "--raw round trip"

# ---- --collapsed is jeheap collapsed.
expect_rc 0 "$JEHEAP" collapsed "$WORK/a.heap"
folded=$OUT
expect_rc 0 "$JEHEAP" jeprof --collapsed "$PROG" "$WORK/a.heap"
[ "$OUT" = "$folded" ] || fail "--collapsed"
pass "--collapsed"

# ---- The real jeprof on the same profile, byte for byte.
command -v jeprof >/dev/null || skip "no jeprof (Debian: libjemalloc-dev) to compare with"
# Rows are kept to the victim's own functions: jeprof names libc's frames
# through nm and addr2line, jeheap through its own ELF and DWARF reader
# (they differ on glibc's inlined frames and aliases, and jeheap prunes the
# allocator beyond jeprof's plain names); what is compared here is the
# command line: totals, columns, sorting, units, filters, base.
OWN='--retain=^(wl_.*|alloc_block|main)$'
EMPTY_OK=
# Where jeprof keeps jemalloc's own frames on top (lib.sh, jeprof_exclude),
# both sides exclude them, merged into a command line's own --exclude
# (jeprof takes the last --exclude only).
jeprof --text --focus=wl_ "$PROG" "$WORK/a.heap" >"$WORK/jeprof0.out" 2>/dev/null
JEX=$(jeprof_exclude "$WORK/jeprof0.out")
same() {
	if [ -n "$JEX" ]; then
		merged=""
		for a; do
			case $a in --exclude=*) a="--exclude=(${a#--exclude=})|$JE_FRAMES"; merged=1 ;; esac
			set -- "$@" "$a"
			shift
		done
		[ -n "$merged" ] || set -- "$@" "$JEX"
	fi
	jeprof "$@" "$PROG" "$WORK/a.heap" >"$WORK/jeprof.out" 2>"$WORK/jeprof.err" ||
		fail "jeprof $*: exit $? $(cat "$WORK/jeprof.err")"
	"$JEHEAP" jeprof "$@" "$PROG" "$WORK/a.heap" >"$WORK/jeheap.out" 2>"$WORK/jeheap.err" ||
		fail "jeheap jeprof $*: exit $? $(cat "$WORK/jeheap.err")"
	cmp -s "$WORK/jeprof.out" "$WORK/jeheap.out" ||
		fail "jeheap jeprof $* differs from jeprof: $(diff "$WORK/jeprof.out" "$WORK/jeheap.out" | head -10)"
	[ -s "$WORK/jeprof.out" ] || [ -n "$EMPTY_OK" ] || fail "jeprof $* printed nothing"
}
same --text --focus=wl_
same --text --inuse_objects --focus=wl_
same --text --focus=wl_ --ignore=wl_big
same --text --cum --focus=wl_
same --text --cum --inuse_objects "$OWN"
same --text --show_bytes --focus=wl_
same --text --nodecount=5 --focus=wl_
same --text --exclude=wl_rec --focus=wl_
same --text --retain='wl_|alloc_block'
same --text "$OWN"
same --text --inuse_objects "$OWN"
same --text --base="$WORK/base.heap" --focus=wl_
same --text --base="$WORK/base.heap" --inuse_objects "$OWN"
same --text --base="$WORK/base.heap" --drop_negative --inuse_objects "$OWN"
same --text --focus wl_ --inuse_objects
same -text -focus=wl_ -show_bytes
# Nothing at all when the whole is 0, not "Total: 0.0 MB" (FilterAndPrint).
EMPTY_OK=1
same --text --base="$WORK/a.heap"
EMPTY_OK=
same --addresses "$OWN"
if [ "$JEHEAP_HAS_LIBDW" = yes ]; then
	same --text --lines "$OWN"
	same --text --lines --inuse_objects --cum "$OWN"
	same --list='^wl_'
	same --list=alloc_block --inuse_objects
	# main's lines carry DWARF discriminators: jeprof's line for them
	same --list=main
	same --list=. --inuse_objects
	pass "--lines and --list=RE as jeprof prints them"
else
	echo "note: jeheap built without libdw; --lines and --list not compared"
fi
# A --raw file is read by jeprof itself as by jeheap. jeheap names
# jemalloc's internal frames the symbols do not cover "libjemalloc.so.2+0x..."
# (addr2line's terms) and prunes them as jemalloc's; jeprof named them after
# the nearest symbol before (nm), often "malloc", and pruned them by that
# name: reading jeheap's names it cannot, so they are excluded here.
# Where jeprof keeps jemalloc's own frames on top (JEX), it names them
# through its addr2line in one run and through jeheap's DWARF reader in the
# other (with their inlined frames): they are excluded from both.
jeprof --text --focus=wl_ --exclude="(^libjemalloc)${JEX:+|$JE_FRAMES}" "$WORK/a.raw" >"$WORK/jeprof.raw" 2>/dev/null ||
	fail "jeprof on --raw: exit $?"
jeprof --text --focus=wl_ ${JEX:+"$JEX"} "$PROG" "$WORK/a.heap" >"$WORK/jeprof.txt" 2>/dev/null
cmp -s "$WORK/jeprof.raw" "$WORK/jeprof.txt" || fail "jeprof reads --raw otherwise: $(diff "$WORK/jeprof.raw" "$WORK/jeprof.txt" | head)"
pass "byte-identical to jeprof: --text, --cum, --show_bytes, --base, --drop_negative, --focus, --ignore, --exclude, --retain, --addresses"
