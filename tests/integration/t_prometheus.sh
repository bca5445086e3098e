#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --prometheus FILE: Prometheus' text format, written atomically; read by
# Debian's real node_exporter (textfile collector) on 127.0.0.1, whose
# /metrics must show jeattach's series with the values written.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim v "$TARGETS/victim_dyn" -b 3
sleep 1 # --top borrows a thread once it is a second old (cli_top_threads.c)
DIR="$WORK/textfile"
mkdir "$DIR"

expect_rc 2 "$JEATTACH" -p "$v" --prometheus "$DIR/x.txt"
echo "$ERR" | grep -q 'reads only files named \*.prom' || fail "$ERR"
expect_rc 8 "$JEATTACH" -p "$v" --prometheus "$WORK/none/x.prom"
echo "$ERR" | grep -q "cannot write $WORK/none/x.prom: .*No such file or directory; choose a writable directory" ||
	fail "$ERR"
pass "bad files refused"

# Once: one refresh, one file, nothing else left in the directory.
expect_rc 0 "$JEATTACH" -p "$v" --prometheus "$DIR/jemalloc.prom"
[ -z "$OUT" ] || fail "printed: $OUT"
[ "$(ls -A "$DIR")" = jemalloc.prom ] || fail "left: $(ls -A "$DIR")"
# check.py FILE PID: the exposition format, line by line.
cat >"$WORK/check.py" <<'PY'
import re, sys
text, pid = open(sys.argv[1]).read(), sys.argv[2]
typed, series = {}, {}
sample = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\})? (\S+)$')
five = re.compile(r'^comm="[^"]*",pid="%s",exe="/[^"]*",build_id="[0-9a-f]+",cgroup="[^"]*"' % pid)
for line in text.splitlines():
    if line.startswith("# HELP "):
        continue
    if line.startswith("# TYPE "):
        _, _, name, kind = line.split(" ")
        assert kind in ("gauge", "counter"), line
        typed[name] = kind
        continue
    m = sample.match(line)
    assert m, "not a sample: %r" % line
    assert m.group(1) in typed, "no TYPE before %r" % line
    float(m.group(3))
    if m.group(1) == "jeattach_targets":  # jeattach's own, of no process
        assert m.group(2) is None and m.group(3) == "1", line
        continue
    # every series of a process: its five labels, in this order
    assert five.match(m.group(2)), line
    series.setdefault(m.group(1), []).append((m.group(2), float(m.group(3))))
for name in ("allocated", "active", "resident", "mapped", "retained", "metadata"):
    assert series["jemalloc_%s_bytes" % name][0][1] > 0, name
assert len(series["jemalloc_arena_active_bytes"]) >= 1
t = series["jemalloc_thread_allocated_bytes_total"]
assert len(t) >= 3 and any(v > 0 for _, v in t), t
assert typed["jemalloc_thread_allocated_bytes_total"] == "counter"
assert all('name="victim_dyn"' in l for l, _ in t), t
print(int(series["jemalloc_allocated_bytes"][0][1]))
PY
python3 "$WORK/check.py" "$DIR/jemalloc.prom" "$v" >/dev/null || fail "format: $(cat "$DIR/jemalloc.prom")"
pass "once: the exposition format, every figure"

# A loop: rewritten each interval, by rename (the inode changes). The
# first file is held open, so its inode number cannot be given to a later
# file (ext4 reuses a freed one at once: the check failed by chance), and
# is read before the loop starts.
exec 3<"$DIR/jemalloc.prom"
ino1=$(stat -c %i "$DIR/jemalloc.prom")
"$JEATTACH" -p "$v" --prometheus "$DIR/jemalloc.prom" --interval 200ms --count 5 &
j=$!
wait "$j" || fail "the loop failed"
[ "$(stat -c %i "$DIR/jemalloc.prom")" != "$ino1" ] || fail "not replaced"
exec 3<&-
[ "$(ls -A "$DIR")" = jemalloc.prom ] || fail "left: $(ls -A "$DIR")"
python3 "$WORK/check.py" "$DIR/jemalloc.prom" "$v" >/dev/null || fail "format after the loop"
pass "--interval: rewritten atomically"

# With --top: the JSON lines on stdout and the file, from the same refreshes.
rm "$DIR/jemalloc.prom"
expect_rc 0 "$JEATTACH" -p "$v" --top --prometheus "$DIR/jemalloc.prom" --interval 200ms --count 2
[ "$(printf '%s\n' "$OUT" | wc -l)" = 2 ] || fail "--top lines: $OUT"
last=$(printf '%s\n' "$OUT" | tail -1)
want=$(python3 "$WORK/check.py" "$DIR/jemalloc.prom" "$v") || fail "format with --top"
[ "$(json_get "$last" "j['allocated']")" = "$want" ] || fail "file $want, line $last"
pass "--top --prometheus: the same figures"

# --top's file goes with the view: SIGTERM ends it and removes the file
# (after --count, above, it stays).
rm "$DIR/jemalloc.prom"
"$JEATTACH" -p "$v" --top --prometheus "$DIR/jemalloc.prom" --interval 200ms >"$WORK/top.out" 2>&1 &
j=$!
i=0
until [ -f "$DIR/jemalloc.prom" ]; do
	i=$((i + 1)); [ $i -gt "$(slow 200)" ] && fail "--top wrote no file: $(cat "$WORK/top.out")"
	sleep 0.05
done
kill -TERM "$j"
wait "$j"
rc=$?
[ "$rc" = 143 ] || fail "--top, SIGTERM: exit $rc: $(cat "$WORK/top.out")"
[ ! -e "$DIR/jemalloc.prom" ] || fail "--top, SIGTERM: the file stayed"
pass "--top --prometheus: SIGTERM removes the file"

NE=$(command -v prometheus-node-exporter || command -v node_exporter)
[ -n "$NE" ] || { finish_victim v; skip "prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter)"; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$NE" --collector.disable-defaults --collector.textfile --collector.textfile.directory="$DIR" \
	--web.listen-address="127.0.0.1:$port" >"$WORK/ne.log" 2>&1 &
track $!
cat >"$WORK/fetch.py" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        print(urllib.request.urlopen("http://127.0.0.1:%s/metrics" % sys.argv[1], timeout=2).read().decode())
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)
PY
expect_rc 0 "$JEATTACH" -p "$v" --prometheus "$DIR/jemalloc.prom"
want=$(python3 "$WORK/check.py" "$DIR/jemalloc.prom" "$v") || fail "format"
python3 "$WORK/fetch.py" "$port" >"$WORK/metrics" || fail "node_exporter did not answer: $(cat "$WORK/ne.log")"
grep -q '^node_textfile_scrape_error 0$' "$WORK/metrics" || fail "node_exporter could not read the file: $(grep textfile "$WORK/metrics") $(cat "$WORK/ne.log")"
# node_exporter prints values as Go's %g does (1.65416e+06): compared as numbers
got=$(sed -n "s/^jemalloc_allocated_bytes{.*,pid=\"$v\"} //p" "$WORK/metrics")
[ -n "$got" ] && python3 -c "import sys; sys.exit(float('$got') != $want)" ||
	fail "jemalloc_allocated_bytes $got, wanted $want: $(grep jemalloc_allocated "$WORK/metrics")"
# node_exporter sorts the labels by name
grep -q "^jemalloc_thread_allocated_bytes_total{build_id=\"[0-9a-f]*\",cgroup=\"[^\"]*\",comm=\"victim_dyn\",exe=\"[^\"]*\",name=\"victim_dyn\",pid=\"$v\",thread=\"[0-9]*\"} [0-9.e+]*\$" "$WORK/metrics" ||
	fail "no thread series: $(grep jemalloc_thread "$WORK/metrics" | head -3)"
grep -q '^# TYPE jemalloc_thread_allocated_bytes_total counter$' "$WORK/metrics" || fail "type lost"
pass "node_exporter's /metrics shows jeattach's series and values"

finish_victim v
