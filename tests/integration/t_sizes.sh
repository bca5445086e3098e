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
