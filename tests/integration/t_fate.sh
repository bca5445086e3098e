#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Causes told truly: what became of a target that went away while one of
# its threads was held in a long dump. A process that replaced its program
# (execve from another thread: de_thread kills the held one, the pid lives
# on) is said to have done so, never to have exited; a process killed
# meanwhile is said to have been killed, by which signal (the held
# thread's exit status, which its tracer reads in waitpid). Never exit 0.
# A process that exec'd during a wait has no thread of its new program
# borrowed.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

n=$(stacks 131072)
CONF="MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:0"

# held VICTIM-PID: wait until jeattach holds the victim's main thread (its
# TracerPid is set), then a little longer (0.1 s): the dump of $n stacks takes
# seconds, so jemalloc is writing it.
held() {
	i=0
	while [ "$(sed -n 's/^TracerPid:\t//p' "/proc/$1/task/$1/status" 2>/dev/null)" = 0 ]; do
		i=$((i + 1)); [ $i -gt "$(slow 200)" ] && fail "jeattach never held $1: $(cat "$WORK/j.err")"
		sleep 0.05
	done
	sleep 0.1
}

# start_dump VICTIM-PID: jeattach dumps it in the background (main
# thread: --tid), its pid in jp.
start_dump() {
	"$JEATTACH" -p "$1" --tid "$1" --dump "$WORK/$1.heap" >"$WORK/j.out" 2>"$WORK/j.err" &
	jp=$!
	held "$1"
}

# The target execs /bin/sleep (SIGHUP: victim_bigprof -x) mid-dump.
START_SECONDS=60 start_victim_env x "$CONF" "$TARGETS/victim_bigprof" -n "$n" -x
start_dump "$x"
kill -HUP "$x"
wait $jp
rc=$?
i=0
until [ "$(basename "$(readlink "/proc/$x/exe")")" = sleep ]; do
	i=$((i + 1)); [ $i -gt 100 ] && fail "the victim did not exec: $(readlink "/proc/$x/exe")"
	sleep 0.05
done
err=$(cat "$WORK/j.err")
[ $rc = 3 ] || fail "exec: exit $rc (wanted 3): $err"
echo "$err" | grep -q "^jeattach: $x: .*the process replaced its program (execve" || fail "exec: $err"
echo "$err" | grep -q "exited" && fail "exec said 'exited' while pid $x lives: $err"
[ "$(printf '%s\n' "$err" | grep -vc '^jeattach: .*: dumping')" = 1 ] || fail "not one line: $err"
[ -e "$WORK/$x.heap" ] && fail "a profile was published"
kill -9 "$x"
pass "exec during a dump: \"$(echo "$err" | sed 's/^jeattach: [0-9]*: //')\", exit 3"

# The target execs during a --for wait, holding nothing: the closing
# hold borrows no thread of the new program (whose addresses are not
# jemalloc's), and says why.
# exec_in_wait NAME FLAG: victim_bigprof started as NAME with FLAG (-x:
# exec /bin/sleep on SIGHUP, -X: exec itself) gets its SIGHUP a second into
# jeattach's --for wait; rc and err are jeattach's exit code and message.
exec_in_wait() {
	START_SECONDS=60 start_victim_env "$1" "$CONF" "$TARGETS/victim_bigprof" -n 16 "$2"
	eval "vp=\$$1"
	"$JEATTACH" -p "$vp" --for "$(slow 2)s" --dump "$WORK/$1.heap" >"$WORK/j.out" 2>"$WORK/j.err" &
	jp=$!
	sleep "$(slow 1)"
	kill -HUP "$vp"
	wait $jp
	rc=$?
	err=$(cat "$WORK/j.err")
}
exec_in_wait w -x
[ $rc = 3 ] || fail "exec in a wait: exit $rc (wanted 3): $err"
echo "$err" | grep -q "^jeattach: $w: the process replaced its program (execve: now .*sleep) since jeattach located jemalloc; nothing was done in the new program" ||
	fail "exec in a wait: $err"
[ "$(basename "$(readlink "/proc/$w/exe")")" = sleep ] && [ "$(sed -n 's/^State:\t\(.\).*/\1/p' "/proc/$w/status")" = S ] ||
	fail "the new program is not asleep as it was: $(readlink "/proc/$w/exe") $(grep State "/proc/$w/status")"
[ "$(sed -n 's/^TracerPid:\t//p' "/proc/$w/status")" = 0 ] || fail "left traced"
kill -9 "$w"
pass "exec during a --for wait: no thread of the new program borrowed, exit 3"

# The same, the target exec'ing its own program again: the same file, a
# new image (ASLR: its code and stack lie elsewhere, stat's startcode and
# startstack), where the old addresses mean nothing.
exec_in_wait s -X
exe=$(readlink "/proc/$s/exe")
[ $rc = 3 ] || fail "self-exec in a wait: exit $rc (wanted 3): $err"
echo "$err" | grep -q "^jeattach: $s: the process replaced its program (execve: now $exe) since jeattach located jemalloc" ||
	fail "self-exec in a wait: $err"
[ "$(grep -c '^ready' "$s_out")" = 2 ] || fail "the victim did not exec itself: $(cat "$s_out")"
kill -USR1 "$s" # the new image's self-check: frees all, exits 0
i=0
while kill -0 "$s" 2>/dev/null && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
grep -q '^report ok' "$s_out" || fail "the new image did not end cleanly: $(cat "$s_out")"
pass "self-exec during a --for wait: told, nothing done in the new image, which exits cleanly"

# The target is killed (SIGKILL, as the OOM killer does) mid-dump.
START_SECONDS=60 start_victim_env k "$CONF" "$TARGETS/victim_bigprof" -n "$n"
start_dump "$k"
kill -KILL "$k"
wait $jp
rc=$?
err=$(cat "$WORK/j.err")
[ $rc = 3 ] || fail "kill: exit $rc (wanted 3): $err"
echo "$err" | grep -q "^jeattach: $k: .*the process was killed by signal 9 (SIGKILL" || fail "kill: $err"
[ -e "$WORK/$k.heap" ] && fail "a profile was published"
pass "killed during a dump: \"$(echo "$err" | sed 's/^jeattach: [0-9]*: //')\", exit 3"

# Ended by a signal jeattach could have caused: SIGXFSZ (a dump's write
# past RLIMIT_FSIZE is the case the issue names) sent here instead.
START_SECONDS=60 start_victim_env f "$CONF" "$TARGETS/victim_bigprof" -n "$n"
start_dump "$f"
kill -XFSZ "$f"
wait $jp
rc=$?
err=$(cat "$WORK/j.err")
[ $rc = 3 ] || fail "SIGXFSZ: exit $rc (wanted 3): $err"
echo "$err" | grep -q "^jeattach: $f: .*the process was killed by signal 25 (SIGXFSZ" || fail "SIGXFSZ: $err"
pass "SIGXFSZ during a dump: \"$(echo "$err" | sed 's/^jeattach: [0-9]*: //')\", exit 3"
