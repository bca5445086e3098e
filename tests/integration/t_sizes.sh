#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Sizes a target chooses cost jeattach no more than normal ones: an 8 GiB
# sparse file mapped executable (jeattach looked for code through every
# byte: ~52 s of --status), a dynamic linker's list that loops (read to
# 65,536 entries with a 4 KiB name each: 1.8 s and 267 MB). The bounds here
# are generous: they tell a scan of gigabytes from none, not a benchmark.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# run_measured CMD...: $OUT/$ERR/$rc as expect_rc, $ms the wall time, $kb
# the peak RSS of the command.
run_measured() {
	python3 - "$WORK/measured" "$@" <<'PY'
import resource, subprocess, sys, time
t0 = time.monotonic()
r = subprocess.run(sys.argv[2:], capture_output=True, text=True)
ms = int((time.monotonic() - t0) * 1000)
kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
open(sys.argv[1], "w").write(f"{r.returncode} {ms} {kb}\n")
sys.stdout.write(r.stdout); sys.stderr.write(r.stderr)
PY
	read -r rc ms kb <"$WORK/measured"
}

start_victim sparse "$TARGETS/victim_sizes" -X "$WORK/sparse.bin"
run_measured "$JEATTACH" -p "$sparse" --status >/dev/null 2>"$WORK/err"
[ "$rc" = 0 ] || fail "--status with an 8 GiB executable mapping: exit $rc: $(cat "$WORK/err")"
[ "$ms" -lt 10000 ] || fail "--status took $ms ms with an 8 GiB executable mapping"
pass "--status in $ms ms beside an 8 GiB executable mapping"
finish_victim sparse
rm -f "$WORK/sparse.bin"

start_victim loop "$TARGETS/victim_sizes" -C
run_measured "$JEATTACH" -p "$loop" --status >/dev/null 2>"$WORK/err"
[ "$rc" = 0 ] || fail "--status with a looping link map: exit $rc: $(cat "$WORK/err")"
[ "$kb" -lt 100000 ] || fail "a looping link map cost $kb kB"
pass "a looping link map: --status in $ms ms, $kb kB"
finish_victim loop

# A program whose .symtab claims 4 GiB (its section header patched, the
# file sparse past its end): the table is not walked (15 s and 4.2 GB
# before); the program itself runs, section headers mean nothing to it.
cp "$(readlink -f "$TARGETS/victim_sizes")" "$WORK/bigsym"
python3 - "$WORK/bigsym" <<'PY' || skip "cannot patch the ELF file"
import struct, sys
f = open(sys.argv[1], "r+b")
h = f.read(64)
shoff, = struct.unpack_from("<Q", h, 0x28)
shentsize, shnum = struct.unpack_from("<HH", h, 0x3a)
for i in range(shnum):
    f.seek(shoff + i * shentsize)
    sh = f.read(shentsize)
    if struct.unpack_from("<I", sh, 4)[0] == 2:  # SHT_SYMTAB
        offset, = struct.unpack_from("<Q", sh, 0x18)
        size = (4 << 30) // 24 * 24
        f.seek(shoff + i * shentsize + 0x20)
        f.write(struct.pack("<Q", size))
        f.truncate(max(offset + size, f.seek(0, 2)))
        break
else:
    sys.exit(1)
PY
chmod +x "$WORK/bigsym"
start_victim bigsym "$WORK/bigsym"
run_measured "$JEATTACH" -p "$bigsym" --status >/dev/null 2>"$WORK/err"
[ "$rc" = 0 ] || fail "--status of a program whose .symtab claims 4 GiB: exit $rc: $(cat "$WORK/err")"
[ "$ms" -lt 10000 ] && [ "$kb" -lt 1000000 ] || fail "a 4 GiB .symtab claim cost $ms ms, $kb kB"
pass "a .symtab claiming 4 GiB: --status in $ms ms, $kb kB"
finish_victim bigsym
