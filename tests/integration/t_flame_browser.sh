#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# jeheap flame in a real browser: headless Chromium driven through the
# DevTools protocol with real mouse and keyboard events
# (tests/browser/drive_flame.py): search highlights the right frames and
# shows the share the collapsed stacks give, nested matches once; hover
# tells the value in human units; a click zooms (the frame fills the width,
# its siblings hide, a label too narrow before appears); Reset Zoom
# restores; a differential graph colours each frame by its own change;
# --inverted puts the root on top; names from the profile that hold markup,
# control bytes or invalid UTF-8 stay text. The profiles come from
# victim_flame (sites of known sizes, one grown between two dumps).
#
# FLAME_EXPORT=DIR: where there is no browser, the graphs are copied into DIR
# before the skip; FLAME_FROM=DIR: only the browser half, on graphs made
# elsewhere. tests/arm64/vm.sh xcheck so checks the arm64 guest's graphs in
# the host's Chromium (the guest has none).
. "$top_srcdir/tests/integration/lib.sh"
FILES="a.svg a.folded d.svg i.svg h.svg h.folded"
if [ -n "${FLAME_FROM:-}" ]; then
	for f in $FILES; do
		cp "$FLAME_FROM/$f" "$WORK/" || fail "FLAME_FROM=$FLAME_FROM has no $f (FLAME_EXPORT makes them)"
	done
	. "$top_srcdir/tests/browser/flame_in_browser.sh"
	exit 0
fi
require_ptrace

EXACT="MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0"
start_victim_env v "$EXACT" "$TARGETS/victim_flame"
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/a.heap"
kill -USR2 "$v" || fail "victim_flame is gone"
i=0
while ! grep -q '^grown' "$v_out"; do
	i=$((i + 1))
	[ $i -gt 200 ] && fail "victim_flame did not grow: $(cat "$v_out")"
	sleep 0.05
done
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/b.heap"
finish_victim v

expect_rc 0 "$JEHEAP" collapsed "$WORK/a.heap"
printf '%s\n' "$OUT" >"$WORK/a.folded"
grep -q ';fl_group;fl_narrow_site_with_a_long_name 4096$' "$WORK/a.folded" ||
	fail "victim_flame's narrow site: $OUT"
expect_rc 0 "$JEHEAP" flame -o "$WORK/a.svg" "$WORK/a.heap"
expect_rc 0 "$JEHEAP" flame --base "$WORK/a.heap" -o "$WORK/d.svg" "$WORK/b.heap"
expect_rc 0 "$JEHEAP" flame --inverted -o "$WORK/i.svg" "$WORK/a.heap"

# Names that are markup, control bytes, invalid UTF-8, in jeprof's
# symbolized form (names as written, no binary needed), and a subtitle of
# the same kind.
python3 - "$WORK/h.heap" <<'PY'
import sys
names = [b'evil</text><script>window.pwned=1</script>', b'amp&"quote\'<b>]]>',
         b'ctl\x01\x1b[31m\x7fend', b'bad\xff\xfe\xc3(\xed\xa0\x80utf8',
         'Grüße_☃_𝄞'.encode(), b'lone</svg', b'gt>]]>&lt']
with open(sys.argv[1], 'wb') as f:
    f.write(b'--- symbol\nbinary=/bin/<hostile>&"]]>\n')
    for i, n in enumerate(names + [b'hostile_root']):
        for a in (0x1000 * (i + 1), 0x1000 * (i + 1) - 1):
            f.write(b'0x%016x %s\n' % (a, n))
    f.write(b'---\n--- heap\nheap_v2/1\n  t*: %d: %d [0: 0]\n' % (len(names), 1000 * len(names)))
    for i in range(len(names)):
        f.write(b'@ 0x%x 0x%x\n  t*: 1: 1000 [0: 0]\n' % (0x1000 * (i + 1), 0x1000 * (len(names) + 1)))
    f.write(b'\nMAPPED_LIBRARIES:\n')
PY
"$JEHEAP" collapsed "$WORK/h.heap" >"$WORK/h.folded" || fail "jeheap collapsed on hostile names"
expect_rc 0 "$JEHEAP" flame --subtitle "$(printf 's</text><script>window.pwned=2</script>\001\377')" \
	-o "$WORK/h.svg" "$WORK/h.heap"
# A strict XML parser (expat) refuses invalid UTF-8 and control characters.
python3 - "$WORK"/a.svg "$WORK"/d.svg "$WORK"/i.svg "$WORK"/h.svg <<'PY' || fail "not well-formed XML"
import sys, xml.etree.ElementTree as E
S = "{http://www.w3.org/2000/svg}"
for path in sys.argv[1:]:
    root = E.parse(path).getroot()
    assert len(list(root.iter(S + "script"))) == 1, path
    assert not [e for e in root.iter() if e.get("href") or e.get("{http://www.w3.org/1999/xlink}href")], path
PY
pass "flame graphs well-formed, hostile names escaped"

if ! command -v chromium >/dev/null; then
	[ -n "${FLAME_EXPORT:-}" ] || skip "no chromium (apt-get install chromium)"
	mkdir -p "$FLAME_EXPORT" && (cd "$WORK" && cp $FILES "$FLAME_EXPORT/") ||
		fail "cannot copy the graphs into FLAME_EXPORT=$FLAME_EXPORT"
	skip "no chromium (apt-get install chromium); the graphs are in $FLAME_EXPORT, for a browser elsewhere (FLAME_FROM)"
fi
. "$top_srcdir/tests/browser/flame_in_browser.sh"
