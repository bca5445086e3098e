# SPDX-License-Identifier: BSD-2-Clause
# Shared by the integration tests: start victims, finish them, clean up.
# Every test runs under a watchdog and kills what it started, also on failure.
set -u
: "${top_builddir:?run through make check}"
JEATTACH="$top_builddir/src/jeattach"
JEHEAP="$top_builddir/jeheap/jeheap"
TARGETS="$top_builddir/tests/targets"
WORK=$(mktemp -d /tmp/jeattach-test.XXXXXX)
chmod 755 "$WORK"
STARTED=""
WATCHDOG_SECONDS=${WATCHDOG_SECONDS:-240}

# A process is its pid and its start time (field 22 of /proc/PID/stat): a
# victim that ended long ago was reaped, and its pid may name another test's
# process by cleanup time (pid_max is 32768 here, and make check runs tests
# in parallel); only what is still the very process we started is killed.
starttime() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20; }
track() { STARTED="$STARTED $1:$(starttime "$1")"; }

# TEST_KEEP=DIR: a failed test's work directory (its profiles, outputs) is
# copied into DIR first, for a machine whose /tmp is gone after the run
# (tests/arm64/vm.sh xcheck sets it).
cleanup() {
	rc=$?
	trap '' USR2
	[ "$rc" != 0 ] && [ "$rc" != 77 ] && [ -n "${TEST_KEEP:-}" ] && mkdir -p "$TEST_KEEP" &&
		cp -R "$WORK" "$TEST_KEEP/" 2>/dev/null
	for e in $STARTED; do
		p=${e%%:*} st=${e#*:}
		[ -n "$st" ] && [ "$(starttime "$p")" = "$st" ] && kill -9 "$p" 2>/dev/null
	done
	if [ -n "${WATCHDOG:-}" ]; then
		pkill -P "$WATCHDOG" 2>/dev/null
		kill "$WATCHDOG" 2>/dev/null
	fi
	[ -n "${MOUNTED:-}" ] && umount "$MOUNTED" 2>/dev/null
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "FAIL: killed by the watchdog after ${WATCHDOG_SECONDS}s"; cat "$WORK/hang.txt" 2>/dev/null; exit 1' USR2

# descendants PID: every process below PID, one per line, parents first.
descendants() {
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}
# hang_report PID...: what each process and each of its threads was doing
# (state, wait channel, system call, kernel stack), written before
# anything is killed: a hang's evidence dies with it, and CI keeps the log.
hang_report() {
	for p in "$@"; do
		ps -o pid=,ppid=,stat=,etimes=,args= -p "$p" 2>/dev/null | sed 's/^/process /'
		for t in /proc/"$p"/task/*; do
			[ -d "$t" ] || continue
			echo "  thread ${t##*/} $(cut -d' ' -f3 "$t/stat" 2>/dev/null) wchan=$(cat "$t/wchan" 2>/dev/null) syscall=$(cat "$t/syscall" 2>/dev/null)"
			sed 's/^/    /' "$t/stack" 2>/dev/null
		done
	done
}
# The test's own log, kept for reports written while a command's output
# is redirected elsewhere.
exec 7>&1
# bounded SECONDS COMMAND...: COMMAND's exit status, or 124 when it ran
# SECONDS: then what every process of the test was doing goes to the log
# (hang_report), before COMMAND is ended (TERM, KILL 5 s later: a jeattach
# that defers TERM while a call runs in the target must not hold the test).
bounded() {
	b_end=$(($(date +%s) + $1)); shift
	"$@" &
	b_pid=$!
	while kill -0 "$b_pid" 2>/dev/null; do
		if [ "$(date +%s)" -ge "$b_end" ]; then
			# To the test's log (fd 7), not to the command's redirection.
			echo "hung: $*" >&7
			# shellcheck disable=SC2046
			hang_report $(descendants $$) >&7 2>&1
			kill "$b_pid" $(descendants "$b_pid") 2>/dev/null
			sleep 5
			kill -9 "$b_pid" $(descendants "$b_pid") 2>/dev/null
			wait "$b_pid"
			return 124
		fi
		sleep 0.05
	done
	wait "$b_pid"
}
# The watchdog keeps none of our output open, or the harness waits for it.
# A shell runs a trap only between commands (POSIX, "Signals and Error
# Handling"): a foreground command that hangs (jeattach under timeout(1)
# ignoring the TERM it defers, say) holds the USR2 back, so the watchdog
# then ends the test's own processes itself: TERM, and KILL 10 s later.
(
	sleep "$WATCHDOG_SECONDS"
	mine=$(exec sh -c 'echo $PPID')
	them=$(for c in $(ps -o pid= --ppid $$); do
		[ "$c" = "$mine" ] || { echo "$c"; descendants "$c"; }
	done)
	# shellcheck disable=SC2086
	hang_report $them >"$WORK/hang.txt" 2>&1
	kill -USR2 $$
	# Each by itself (kill stops at the first pid already gone) and only
	# if still the process it was (pid_max is 32768 here).
	stamped=""
	for p in $them; do stamped="$stamped $p:$(starttime "$p")"; done
	sleep 1
	for e in $stamped; do [ "$(starttime "${e%%:*}")" = "${e#*:}" ] && kill "${e%%:*}"; done
	sleep 10
	for e in $stamped; do [ "$(starttime "${e%%:*}")" = "${e#*:}" ] && kill -9 "${e%%:*}"; done
) </dev/null >/dev/null 2>&1 &
WATCHDOG=$!

# TEST_SLOWDOWN: how many times slower than real hardware this machine
# runs (an emulated one: tests/arm64/vm.sh sets it). Only bounds that
# catch a hang or a wait jeattach must not cause are scaled by it, with
# the durations they are measured against; never a jeattach figure.
SLOWDOWN=${TEST_SLOWDOWN:-1}
case $SLOWDOWN in '' | *[!0-9]* | 0) echo "FAIL: TEST_SLOWDOWN=$SLOWDOWN: a positive integer"; exit 1 ;; esac
slow() { echo $(($1 * SLOWDOWN)); }
# stacks N: how many sampled stacks a victim_bigprof makes for a dump that
# must take seconds: an emulated machine builds them about SLOWDOWN^2 times
# slower (each sampled allocation is unwound), and dumps them as slowly.
stacks() { echo $(($1 / SLOWDOWN / SLOWDOWN)); }

fail() { echo "FAIL: $*"; exit 1; }
# jeattach's per-thread pass (--name-threads, the 5.2 re-arm) borrows only
# threads at least a second old (cli_each.c, CLI_EACH_MIN_AGE_S): a victim's
# threads are let age before one.
age_threads() { sleep 1.1; }
skip() { echo "SKIP: $*"; exit 77; }
pass() { echo "ok: $*"; }

# start_victim_env NAME "VAR=VALUE ..." BINARY [ARGS...]: runs the victim
# with MALLOC_CONF=prof:true,prof_active:false and the given variables
# (which may override it), waits for its "ready" line, sets $NAME to its
# pid and ${NAME}_out to its output file.
start_victim_env() {
	name=$1; venv=$2; bin=$3; shift 3
	out="$WORK/$name.out"
	# Emptied here, not by the background shell's redirection, which may
	# run after the wait below has read a previous victim's "ready" (a
	# loaded machine: t_coro took a finished victim's thread for the new
	# one's).
	: >"$out"
	# shellcheck disable=SC2086
	env MALLOC_CONF=prof:true,prof_active:false $venv "$bin" "$@" >>"$out" 2>&1 &
	pid=$!
	track "$pid"
	i=0
	while ! grep -q '^ready' "$out" 2>/dev/null; do
		i=$((i + 1))
		# START_SECONDS: a victim that builds a large heap first.
		[ $i -gt $(($(slow "${START_SECONDS:-10}") * 20)) ] && fail "victim $name did not start: $(cat "$out")"
		sleep 0.05
	done
	eval "$name=$pid"
	eval "${name}_out=$out"
}

start_victim() {
	n=$1; shift
	start_victim_env "$n" "" "$@"
}

# victim_tid NAME ROLE: the thread id of a victim's reader/poller/... thread.
victim_tid() {
	eval "out=\$${1}_out"
	sed -n "s/.* $2=\([0-9]*\).*/\1/p" "$out"
}

# finish_victim NAME [FIELD...]: ask the victim to check itself; fail unless
# clean. FIELDs name counters that something other than jeattach was
# allowed to disturb (the rest must still be zero).
finish_victim() {
	v_name=$1; shift
	allowed="$* rt"
	set -- "$v_name"
	eval "pid=\$$1; out=\$${1}_out"
	kill -USR1 "$pid" || fail "victim $1 ($pid) is gone"
	i=0
	while kill -0 "$pid" 2>/dev/null && ! grep -q '^report' "$out"; do
		i=$((i + 1))
		[ $i -gt 200 ] && fail "victim $1 did not report"
		sleep 0.05
	done
	wait "$pid" 2>/dev/null
	rc=$?
	report=$(grep '^report' "$out")
	# Not our child (started through unshare --fork): its report decides.
	[ "$rc" = 127 ] && { echo "$report" | grep -qE '=[0-9]*[1-9]' && rc=1 || rc=0; }
	[ -n "$report" ] || fail "victim $1 died without a report (exit $rc): $(cat "$out")"
	if [ "$allowed" != " rt" ]; then
		rest=$report
		for f in $allowed; do rest=$(echo "$rest" | sed "s/ $f=[0-9]*//"); done
		echo "$rest" | grep -qE '=[0-9]*[1-9]' && fail "victim $1 was harmed: $report"
		rc=0
	fi
	[ "$rc" = 0 ] || fail "victim $1 was harmed: $report"
	pass "victim $1 unharmed: $report"
}

# arm64_feature VICTIM FEATURE WHY: skip unless this is arm64 and VICTIM
# (built there only) finds the CPU feature it needs: it prints "ready ..."
# where it does, "no..." and exits where the CPU or kernel lacks it (then
# the skip says WHY). The probe is killed; the test starts its own.
arm64_feature() {
	[ "$(uname -m)" = aarch64 ] || skip "$2 is arm64's; this machine is $(uname -m) (tests/arm64/vm.sh xcheck runs this test)"
	[ -x "$TARGETS/$1" ] || fail "$1 was not built on aarch64"
	"$TARGETS/$1" >"$WORK/probe.out" 2>&1 &
	probe=$!
	track "$probe"
	i=0
	until grep -qE '^(ready|no)' "$WORK/probe.out"; do
		i=$((i + 1)); [ $i -gt "$(slow 200)" ] && fail "$1 said nothing: $(cat "$WORK/probe.out")"
		sleep 0.05
	done
	grep -q '^no' "$WORK/probe.out" && skip "$3"
	kill -9 "$probe" 2>/dev/null
}

# await_line FILE REGEX PID WHAT: wait until FILE (a running jeattach's -v
# output) has a line matching REGEX, failing if PID (that jeattach) ends
# first or none comes within slow(30) seconds; WHAT names it in the failure.
await_line() {
	i=0
	until grep -q "$2" "$1"; do
		i=$((i + 1)); [ $i -gt "$(slow 600)" ] && fail "$4 did not come: $(cat "$1")"
		kill -0 "$3" 2>/dev/null || fail "jeattach ended before $4: $(cat "$1")"
		sleep 0.05
	done
}

# expect_rc CODE CMD...: run, capture stdout/stderr in $OUT/$ERR, check the exit code.
expect_rc() {
	want=$1; shift
	"$@" >"$WORK/stdout" 2>"$WORK/stderr"
	got=$?
	OUT=$(cat "$WORK/stdout")
	ERR=$(cat "$WORK/stderr")
	[ "$got" = "$want" ] || fail "exit $got (wanted $want): $* -> $OUT $ERR"
}

# Tests that measure how late a victim's waits end (load_sensitive) and
# tests that load the machine (loads_machine: victim_fork copies 128 MiB of
# page tables at each fork) do not run side by side under make -j: one
# lock, shared by the first, exclusive for the second (t_reissue saw two
# sleeps 153 ms late, past its 150 ms slack, beside t_fork on 2 cores).
# Waited for at most 100 s, then the test runs anyway (and says so).
test_lock() {
	exec 9>>"$top_builddir/tests/test-lock"
	flock "$1" -w 100 9 || echo "note: ran without the test lock ($1) after 100 s"
}
load_sensitive() { test_lock -s; }
loads_machine() { test_lock -x; }

# Skip (77) where this machine forbids ptrace altogether.
require_ptrace() {
	if [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)" = 3 ]; then
		skip "kernel.yama.ptrace_scope is 3: ptrace is disabled on this machine"
	fi
	start_victim probe "$TARGETS/victim_dyn" -b 0
	"$JEATTACH" -p "$probe" --status >/dev/null 2>"$WORK/probe.err"
	rc=$?
	if [ $rc = 4 ]; then
		skip "ptrace is not permitted here: $(cat "$WORK/probe.err")"
	fi
	[ $rc = 0 ] || fail "cannot probe ptrace: exit $rc $(cat "$WORK/probe.err")"
	finish_victim probe
}

# scratch_maps PID: the anonymous mappings of the size of jeattach's scratch
# memory (rcall_scratch.c: 1 MiB + 64 KiB), as "start-end" lines.
# A process that is gone has none.
scratch_maps() {
	{ while read -r range perm off dev inode path; do
		# Private anonymous (no path), or shared anonymous (a shmem file:
		# mm/shmem.c shmem_zero_setup), as under RLIMIT_DATA.
		case $path in '' | '/dev/zero (deleted)') ;; *) continue ;; esac
		s=${range%-*} e=${range#*-}
		[ $((0x$e - 0x$s)) = 1114112 ] && echo "$range"
	done <"/proc/$1/maps"; } 2>/dev/null | sort
}

# scratch_labelled PID: those of scratch_maps PID that end in jeattach's
# label (rcall_label.c: "jeattach" 64 bytes before the end), read through
# /proc/PID/mem. A mapping a jeattach killed between its mmap and its label
# (tens of microseconds) has none.
scratch_labelled() {
	scratch_maps "$1" | python3 -c '
import sys
with open("/proc/%s/mem" % sys.argv[1], "rb", 0) as mem:
    for r in sys.stdin.read().split():
        end = int(r.split("-")[1], 16)
        try:
            mem.seek(end - 64)
            if mem.read(8) == b"jeattach":
                print(r)
        except OSError:
            pass
' "$1" 2>/dev/null
}

# jeprof prunes a jemalloc backtrace at the last frame named like an
# allocator entry (malloc, calloc, ...). Where jemalloc's malloc tail-calls
# its internals (clang's build, tests/arm64/jemalloc-prof.sh: "b
# je_malloc_default"), no frame has such a name and jemalloc's own frames
# (prof_backtrace_impl, je_prof_backtrace, ...) stay on top for jeprof,
# while jeheap prunes them by object (jeheap(1), ALLOCATOR FRAMES).
# jeprof_exclude JEPROF-TEXT-OUTPUT: prints the --exclude that takes them
# out of a jeprof comparison in that case, nothing otherwise.
JE_FRAMES='^(je_|prof_|imalloc|ialloc)'
jeprof_exclude() {
	top=$(awk '/^ *[0-9.]+ +[0-9.]+% / { print $NF; exit }' "$1")
	if printf '%s\n' "$top" | grep -Eq "$JE_FRAMES"; then
		echo "note: jeprof keeps $top (jemalloc's own frame) on top: --exclude='$JE_FRAMES' for it" >&2
		echo "--exclude=$JE_FRAMES"
	fi
}

# json_get JSON PYTHON-EXPR: evaluate an expression over the parsed object j
# (the per-target record: the event lines a run prints before it are left out).
json_get() {
	printf '%s\n' "$1" | grep -v '^{"event":' |
		python3 -c "import json,sys; j=json.loads(sys.stdin.read()); print($2)"
}

# json_events JSON: the event lines of a --json run, one per line.
json_events() {
	printf '%s\n' "$1" | grep '^{"event":'
}
