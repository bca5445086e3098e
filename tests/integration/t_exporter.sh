#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The exporter (--prometheus FILE --all NAME[,NAME...] / -p PID,PID...)
# checked against the real thing: Debian's prometheus-node-exporter reads
# the file (textfile collector) and Debian's prometheus scrapes it, both
# on 127.0.0.1 only, on ports chosen here. Through prometheus' HTTP API, a
# PromQL query returns each victim's allocated bytes labelled with its
# comm, pid, exe, build_id (readelf -n of its binary) and cgroup
# (/proc/PID/cgroup); a victim started later appears, one killed
# disappears; a hostile name (a quote, a backslash, a byte that is not
# UTF-8) does not break the scrape; a process without jemalloc is said
# once and skipped. Before that, without the servers: the rules on -p, on
# --all with no match, on --top with several targets.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

# A name of this run only (comm keeps 15 bytes): other tests' victims
# never match it. Each victim is started through a symbolic link of that
# name, which becomes its comm (execve(2) takes the file name given).
NAME=jx$$
HOSTILE=$(printf 'q"\\\377%s' $$)
NOJE=jn$$
ln -s "$TARGETS/victim_dyn" "$WORK/$NAME"
ln -s "$TARGETS/victim_dyn" "$WORK/$HOSTILE"
ln -s "$(command -v sleep)" "$WORK/$NOJE"
DIR="$WORK/tf"
mkdir "$DIR"
FILE="$DIR/jeattach.prom"
# exporter ERR ARG...: jeattach ARG... in the background, its stderr in
# $WORK/ERR, its pid in $j.
exporter() {
	e=$1
	shift
	"$JEATTACH" "$@" 2>"$WORK/$e" &
	j=$!
	track "$j"
}
# await_file REGEX WHAT: wait (bounded) until $FILE has a line matching
# REGEX; WHAT names it in the failure, with the exporter's stderr ($e).
await_file() {
	i=0
	until [ -f "$FILE" ] && grep -q "$1" "$FILE"; do
		i=$((i + 1)); [ $i -gt "$(slow 200)" ] && fail "$2: $(cat "$FILE" "$WORK/$e" 2>&1)"
		sleep 0.05
	done
}
# exit_of PID SECONDS: the exit status of the background jeattach PID (a
# child of this shell), failing if it runs past SECONDS.
exit_of() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1)); [ $i -gt $(($2 * 20)) ] && fail "jeattach $1 still runs after $2 s"
		sleep 0.05
	done
	wait "$1"
}

# The bound on one line; --top stays one process.
start_victim a "$WORK/$NAME" -b 2
start_victim b "$WORK/$NAME" -b 2
expect_rc 2 "$JEATTACH" -p "$a,$b" --top
echo "$ERR" | grep -q -- '--top watches one process: give one pid (-p PID); --prometheus alone follows several' || fail "$ERR"
expect_rc 2 "$JEATTACH" --all "$NAME," --prometheus "$FILE"
echo "$ERR" | grep -q -- "expected process names separated by commas" || fail "$ERR"
pids=$(python3 -c 'print(",".join(str(i) for i in range(1, 258)))')
expect_rc 2 "$JEATTACH" -p "$pids" --prometheus "$FILE"
echo "$ERR" | grep -q -- '--prometheus follows at most 256 processes (257 given)' || fail "$ERR"
pass "--top with several targets, a bad list, too many pids: refused in one line"

# Once, --all with no match: today's message and code, no file.
expect_rc 3 "$JEATTACH" --all "nx$$,ny$$" --prometheus "$FILE"
echo "$ERR" | grep -q "^jeattach: no process named nx$$,ny$$; check the name" || fail "$ERR"
[ ! -e "$FILE" ] || fail "a file was left: $(cat "$FILE")"
pass "once, no match: exit 3, no file"

# -p with two (one given twice: followed once): both followed (threads a second old, cli_top_threads.c);
# one killed leaves the file at the next write; the other killed too,
# the file is removed and the exit is 3 (target gone).
sleep 1
exporter p.err -p "$a,$b,$a" --prometheus "$FILE" --interval 200ms
await_file "^jeattach_targets 2$" "-p: not both followed"
grep -q "^jemalloc_allocated_bytes{comm=\"$NAME\",pid=\"$a\"," "$FILE" || fail "no series of $a"
kill -9 "$b"
i=0
while grep -q "pid=\"$b\"" "$FILE"; do
	i=$((i + 1)); [ $i -gt "$(slow 100)" ] && fail "-p: $b's series stayed: $(cat "$WORK/p.err")"
	sleep 0.05
done
grep -q "^jeattach_targets 1$" "$FILE" || fail "targets: $(grep jeattach_targets "$FILE")"
kill -0 "$j" 2>/dev/null || fail "jeattach ended with one target left: $(cat "$WORK/p.err")"
kill -9 "$a"
exit_of "$j" "$(slow 20)"
rc=$?
[ "$rc" = 3 ] || fail "-p, none left: exit $rc (wanted 3): $(cat "$WORK/p.err")"
[ ! -e "$FILE" ] || fail "-p, none left: the file stayed"
grep -q "^jeattach: $b: the process .*; its series leave $FILE$" "$WORK/p.err" ||
	fail "-p: the end not told: $(cat "$WORK/p.err")"
grep -q "none of the processes given is left to follow; the file is removed" "$WORK/p.err" ||
	fail "-p: $(cat "$WORK/p.err")"
pass "-p: a target's end drops its series; none left: file removed, exit 3"

# -p, a process that replaces its program (victim_bigprof -x: SIGHUP makes
# it exec sleep): dropped, its series gone, none left: exit 3.
start_victim x "$TARGETS/victim_bigprof" -n 100 -x
sleep 1
exporter x.err -p "$x" --prometheus "$FILE" --interval 200ms
await_file "^jemalloc_allocated_bytes{comm=\"victim_bigprof\",pid=\"$x\"," "exec: not followed"
kill -HUP "$x"
exit_of "$j" "$(slow 20)"
rc=$?
[ "$rc" = 3 ] || fail "exec: exit $rc (wanted 3): $(cat "$WORK/x.err")"
grep -q "^jeattach: $x: the process replaced its program (execve.*; its series leave $FILE$" "$WORK/x.err" ||
	fail "exec: $(cat "$WORK/x.err")"
[ ! -e "$FILE" ] || fail "exec: the file stayed"
pass "-p, a process that exec'd: dropped, exit 3, the file removed"

# A FIFO put in the file's place while jeattach runs: left alone (never
# replaced, never removed), exit 8 with the cause and the fix.
start_victim l "$TARGETS/victim_dyn" -b 0
exporter l.err -p "$l" --prometheus "$FILE" --interval 200ms
await_file "^jeattach_targets 1$" "no file"
rm "$FILE" && mkfifo "$FILE"
exit_of "$j" "$(slow 20)"
rc=$?
[ "$rc" = 8 ] || fail "a FIFO made meanwhile: exit $rc (wanted 8): $(cat "$WORK/l.err")"
grep -q "cannot write $FILE: it is a FIFO (made while jeattach ran), and jeattach replaces regular files only; it was left alone" "$WORK/l.err" ||
	fail "$(cat "$WORK/l.err")"
[ -p "$FILE" ] || fail "the FIFO was replaced or removed"
rm "$FILE"
ls "$DIR"/.jeattach-* >/dev/null 2>&1 && fail "a temporary file was left"
finish_victim l
pass "a FIFO made at FILE meanwhile: left alone, exit 8"

# A refresh that finds no safe thread in time (the only thread asked for
# sits in a signal handler): jeattach_refresh_held 0, no figure, the loop
# goes on; --tid is refused with several targets.
expect_rc 2 "$JEATTACH" --all "$NAME" --prometheus "$FILE" --tid 1
echo "$ERR" | grep -q -- '--tid names a thread of one process' || fail "$ERR"
start_victim m "$TARGETS/victim_dyn" -b 0 -H
exporter m.err -p "$m" --prometheus "$FILE" --tid "$(victim_tid m inhandler)" --timeout 0.3 \
	--interval 400ms
await_file "^jeattach_refresh_held{comm=\"victim_dyn\",pid=\"$m\",.*} 0$" "no jeattach_refresh_held 0"
grep -q "^jemalloc_allocated_bytes" "$FILE" && fail "figures without a hold: $(cat "$FILE")"
sleep 1
kill -0 "$j" 2>/dev/null || fail "jeattach ended on a missed refresh: $(cat "$WORK/m.err")"
kill -TERM "$j"
exit_of "$j" "$(slow 20)"
rc=$?
[ "$rc" = 143 ] || fail "SIGTERM: exit $rc"
[ ! -e "$FILE" ] || fail "SIGTERM: the file stayed"
finish_victim m
pass "a missed refresh: jeattach_refresh_held 0, the loop goes on"

# The unit (dist/systemd): systemd's own checker, on the unit made for
# this build with ExecStart naming the jeattach just built (verify wants
# the program to exist); its command line is jeattach's, valid as written.
UNIT="$top_builddir/dist/systemd/jeattach-exporter@.service"
[ -f "$UNIT" ] || fail "$UNIT was not made"
grep -q '^ExecStart=[^ ]*/jeattach --prometheus /var/lib/prometheus/node-exporter/jeattach-%i.prom --all %i --interval 15s$' "$UNIT" ||
	fail "ExecStart: $(grep ExecStart "$UNIT")"
if command -v systemd-analyze >/dev/null; then
	mkdir "$WORK/unit"
	sed "s|^ExecStart=[^ ]*|ExecStart=$JEATTACH|" "$UNIT" >"$WORK/unit/jeattach-exporter@.service"
	systemd-analyze verify --man=no "$WORK/unit/jeattach-exporter@.service" >"$WORK/verify" 2>&1 ||
		fail "systemd-analyze verify: $(cat "$WORK/verify")"
	[ ! -s "$WORK/verify" ] || fail "systemd-analyze verify said: $(cat "$WORK/verify")"
	pass "the unit passes systemd-analyze verify"
else
	echo "note: systemd-analyze not installed (apt-get install systemd); the unit not verified"
fi
# The unit's capabilities (its CapabilityBoundingSet, NoNewPrivileges) are
# enough to follow another user's process, and CAP_SYS_PTRACE is needed:
# jeattach as root under setpriv(1) with that bounding set, then without
# CAP_SYS_PTRACE, on a victim run as nobody.
caps=$(sed -n 's/^CapabilityBoundingSet=//p' "$UNIT" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
[ -n "$caps" ] || fail "the unit has no CapabilityBoundingSet"
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && id nobody >/dev/null 2>&1; then
	start_victim_env u "" setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
		"$TARGETS/victim_dyn" -b 0
	[ "$(stat -c %U "/proc/$u")" = nobody ] || fail "the victim does not run as nobody"
	expect_rc 0 setpriv --bounding-set="-all,$caps" --no-new-privs "$JEATTACH" -p "$u" \
		--prometheus "$DIR/cap.prom"
	grep -q "^jemalloc_allocated_bytes{comm=\"victim_dyn\",pid=\"$u\"," "$DIR/cap.prom" ||
		fail "with the unit's capabilities ($caps): $(cat "$DIR/cap.prom")"
	rm "$DIR/cap.prom"
	expect_rc 4 setpriv --bounding-set="-all,$(echo "$caps" | sed 's/+sys_ptrace,\{0,1\}//')" \
		--no-new-privs "$JEATTACH" -p "$u" --prometheus "$DIR/cap.prom"
	echo "$ERR" | grep -q "without CAP_SYS_PTRACE" || fail "without CAP_SYS_PTRACE: $ERR"
	finish_victim u
	pass "the unit's capabilities ($caps) follow another user's process; without CAP_SYS_PTRACE, exit 4"
else
	echo "note: not root, or no setpriv or no user nobody: the unit's capabilities not tried"
fi
# Its arguments, as an instance whose name matches nothing runs them,
# with --count 1: one round, nothing held, exit 3 and no file left.
expect_rc 3 "$JEATTACH" --prometheus "$DIR/jeattach-nx$$.prom" --all "nx$$" --interval 15s --count 1
echo "$ERR" | grep -q "^jeattach: no process named nx$$; check the name" || fail "$ERR"
[ ! -e "$DIR/jeattach-nx$$.prom" ] || fail "--count 1, nothing held: the file stayed"

# The servers: Debian's packages, skipped with the reason when missing.
NE=$(command -v prometheus-node-exporter || command -v node_exporter)
[ -n "$NE" ] || skip "prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter)"
PROM=$(command -v prometheus)
[ -n "$PROM" ] || skip "prometheus is not installed (apt-get install prometheus)"
command -v ss >/dev/null || skip "ss is not installed (apt-get install iproute2)"
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
nport=$(freeport)
pport=$(freeport)
[ "$nport" != "$pport" ] || pport=$(freeport)
"$NE" --web.listen-address="127.0.0.1:$nport" --collector.disable-defaults --collector.textfile \
	--collector.textfile.directory="$DIR" >"$WORK/ne.log" 2>&1 &
ne=$!
track "$ne"
cat >"$WORK/prom.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: textfile
    static_configs:
      - targets: ['127.0.0.1:$nport']
EOF
"$PROM" --config.file="$WORK/prom.yml" --web.listen-address="127.0.0.1:$pport" \
	--storage.tsdb.path="$WORK/tsdb" >"$WORK/prom.log" 2>&1 &
pr=$!
track "$pr"

# q.py PORT QUERY: the instant query's samples, one per line, "pid
# value labels-as-JSON", sorted by pid; exit 1 if prometheus does not answer.
cat >"$WORK/q.py" <<'PY'
import json, sys, urllib.parse, urllib.request
url = "http://127.0.0.1:%s/api/v1/query?query=%s" % (sys.argv[1], urllib.parse.quote(sys.argv[2]))
try:
    r = json.load(urllib.request.urlopen(url, timeout=3))
except (OSError, ValueError):
    sys.exit(1)
if r.get("status") != "success":
    sys.exit(1)
for s in sorted(r["data"]["result"], key=lambda s: int(s["metric"].get("pid", "0"))):
    m = s["metric"]
    print(m.get("pid", "-"), s["value"][1], json.dumps(m, sort_keys=True))
PY
# until_query QUERY WANT-PIDS WHAT: wait (bounded) until the query returns
# samples of exactly these pids (a space-separated list, "" for none).
until_query() {
	i=0
	while :; do
		got=$(python3 "$WORK/q.py" "$pport" "$1" | cut -d' ' -f1 | tr '\n' ' ' | sed 's/ $//')
		[ "$got" = "$2" ] && return 0
		i=$((i + 1))
		[ $i -gt "$(slow 120)" ] && fail "$3: the query $1 gave pids '$got', wanted '$2': $(tail -3 "$WORK/prom.log"; cat "$WORK/j.err")"
		sleep 0.25
	done
}
i=0
until python3 "$WORK/q.py" "$pport" up >/dev/null; do
	i=$((i + 1)); [ $i -gt "$(slow 120)" ] && fail "prometheus did not answer: $(tail -5 "$WORK/prom.log")"
	kill -0 "$pr" 2>/dev/null || fail "prometheus ended: $(tail -5 "$WORK/prom.log")"
	sleep 0.25
done
until_query 'up{job="textfile"} == 1' "-" "node_exporter scraped"

# The exporter first, no process of its names running: it waits.
exporter j.err --prometheus "$FILE" --all "$NAME,$HOSTILE,$NOJE" --interval 1s
until_query 'jeattach_targets == 0' "-" "the exporter, nothing matching yet"
kill -0 "$j" 2>/dev/null || fail "jeattach ended with no match: $(cat "$WORK/j.err")"
pass "--all with no match at the start: running, jeattach_targets 0 scraped"

start_victim a "$WORK/$NAME" -b 2
start_victim b "$WORK/$NAME" -b 2
start_victim h "$WORK/$HOSTILE" -b 2
env "$WORK/$NOJE" 300 &
nj=$!
track "$nj"
want=$(printf '%s\n' "$a" "$b" | sort -n | tr '\n' ' ' | sed 's/ $//')
until_query "jemalloc_allocated_bytes{comm=\"$NAME\"}" "$want" "two victims"

# Each sample's labels: what /proc and the binary say.
exe=$(readlink "/proc/$a/exe")
bid=$(readelf -n "$exe" | sed -n 's/.*Build ID: *//p')
[ -n "$bid" ] || fail "readelf found no build id in $exe"
python3 "$WORK/q.py" "$pport" "jemalloc_allocated_bytes{comm=\"$NAME\"}" >"$WORK/res"
for p in "$a" "$b"; do
	cg=$(sed -n 's/^0:://p' "/proc/$p/cgroup")
	line=$(grep "^$p " "$WORK/res") || fail "no sample of $p: $(cat "$WORK/res")"
	printf '%s\n' "$line" | python3 -c '
import json, sys
pid, value, labels = sys.stdin.read().split(" ", 2)
m = json.loads(labels)
want = dict(comm=sys.argv[1], pid=pid, exe=sys.argv[2], build_id=sys.argv[3], cgroup=sys.argv[4])
for k, v in want.items():
    assert m.get(k) == v, "%s: %r, wanted %r (%s)" % (k, m.get(k), v, labels)
assert float(value) > 0, value
' "$NAME" "$exe" "$bid" "$cg" || fail "labels of $p"
done
pass "PromQL: each victim's allocated bytes, labelled comm, pid, exe, build_id ($bid), cgroup"

# The hostile name: escaped in the file (a byte not UTF-8 becomes '?'),
# read by node_exporter without a scrape error, and its comm label is
# the name as escaped.
until_query "jemalloc_allocated_bytes{pid=\"$h\"}" "$h" "the hostile name"
python3 "$WORK/q.py" "$pport" "jemalloc_allocated_bytes{pid=\"$h\"}" | python3 -c '
import json, sys
m = json.loads(sys.stdin.read().split(" ", 2)[2])
assert m["comm"] == "q\"\\?" + sys.argv[1], m
' "$$" || fail "hostile comm: $(python3 "$WORK/q.py" "$pport" "jemalloc_allocated_bytes{pid=\"$h\"}")"
until_query 'node_textfile_scrape_error == 0' "-" "node_textfile_scrape_error 0"
pass "a hostile name (quote, backslash, not UTF-8): escaped, scraped without error"

# Started later: picked up; killed: gone from the query.
start_victim c "$WORK/$NAME" -b 2
want=$(printf '%s\n' "$a" "$b" "$c" | sort -n | tr '\n' ' ' | sed 's/ $//')
until_query "jemalloc_allocated_bytes{comm=\"$NAME\"}" "$want" "a victim started later"
kill -9 "$b"
want=$(printf '%s\n' "$a" "$c" | sort -n | tr '\n' ' ' | sed 's/ $//')
until_query "jemalloc_allocated_bytes{comm=\"$NAME\"}" "$want" "a victim killed"
until_query 'jeattach_targets == 3' "-" "jeattach_targets 3 (a, c, h)"
until_query "jeattach_refresh_held{comm=\"$NAME\"} == 1" "$want" "refresh_held 1"
kill -0 "$j" 2>/dev/null || fail "jeattach ended: $(cat "$WORK/j.err")"
pass "a victim started later appears, one killed disappears; jeattach goes on"

# The process without jemalloc: said once, not every interval.
n=$(grep -c "^jeattach: $nj: no jemalloc found.*not followed while this process runs$" "$WORK/j.err")
[ "$n" = 1 ] || fail "the process without jemalloc was said $n times: $(cat "$WORK/j.err")"
pass "a process without jemalloc: said once, skipped"

# A victim whose parent never reaps it (a shell that became sleep): killed,
# its zombie still matches the name; its end is said once, the zombie is
# not tried (nor said) again.
sh -c 'env MALLOC_CONF=prof:true,prof_active:false "$1" -b 0 >"$2" 2>&1 & echo $! >"$3"; exec sleep 600' \
	_ "$WORK/$NAME" "$WORK/z.out" "$WORK/z.pid" &
track $!
i=0
until grep -q '^ready' "$WORK/z.out" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt "$(slow 200)" ] && fail "the unreaped victim did not start"
	sleep 0.05
done
z=$(cat "$WORK/z.pid")
track "$z"
want=$(printf '%s\n' "$a" "$c" "$z" | sort -n | tr '\n' ' ' | sed 's/ $//')
until_query "jemalloc_allocated_bytes{comm=\"$NAME\"}" "$want" "the unreaped victim"
kill -9 "$z"
want=$(printf '%s\n' "$a" "$c" | sort -n | tr '\n' ' ' | sed 's/ $//')
until_query "jemalloc_allocated_bytes{comm=\"$NAME\"}" "$want" "the unreaped victim killed"
sleep 2 # two more refreshes
[ "$(cut -d' ' -f3 "/proc/$z/stat")" = Z ] || fail "$z is not a zombie: the check would prove nothing"
[ "$(grep -c "^jeattach: $z: " "$WORK/j.err")" = 1 ] && grep -q "^jeattach: $z: .*its series leave" "$WORK/j.err" ||
	fail "the zombie: $(grep "$z" "$WORK/j.err")"
pass "a killed process's end said once; its zombie, still of the name, not tried again"

# Nothing scraped from any other address; both servers on 127.0.0.1 only.
python3 - "$pport" "$nport" <<'PY' || fail "targets: $(cat "$WORK/targets.json" 2>/dev/null)"
import json, sys, urllib.request
r = json.load(urllib.request.urlopen("http://127.0.0.1:%s/api/v1/targets" % sys.argv[1], timeout=3))
urls = [t["scrapeUrl"] for t in r["data"]["activeTargets"]]
assert urls == ["http://127.0.0.1:%s/metrics" % sys.argv[2]], urls
PY
for port in "$nport" "$pport"; do
	addrs=$(ss -Hltn "sport = :$port" | awk '{ print $4 }')
	[ "$addrs" = "127.0.0.1:$port" ] || fail "port $port listens on: $addrs"
done
for p in "$ne" "$pr"; do
	other=$(ss -Hltnp | grep "pid=$p," | awk '{ print $4 }' | grep -v '^127\.0\.0\.1:')
	[ -z "$other" ] || fail "process $p also listens on $other"
done
pass "only 127.0.0.1 scraped; node_exporter and prometheus bound to 127.0.0.1 only"

# SIGTERM (systemctl stop): the loop ends, the file goes with it.
kill -TERM "$j"
exit_of "$j" "$(slow 20)"
rc=$?
[ "$rc" = 143 ] || fail "SIGTERM: exit $rc: $(cat "$WORK/j.err")"
[ ! -e "$FILE" ] || fail "SIGTERM: the file stayed"
until_query "jemalloc_allocated_bytes{comm=\"$NAME\"}" "" "series gone with the file"
pass "SIGTERM: exit 143, the file removed, the series gone"

finish_victim a
finish_victim c
finish_victim h
