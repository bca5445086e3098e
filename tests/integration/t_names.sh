#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Real thread names (this machine's jemalloc, Debian 12's 5.3.0):
# --name-threads borrows each thread that allocated, once, and sets thread.prof.name to
# comm/TID, so a profile's jemalloc thread numbers map to OS threads;
# jeheap shows them (--thread NAME, json, pprof's thread label). A name the
# program set itself is kept. On 5.3 activation needs no re-arm (one hold).
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim_env v "MALLOC_CONF=prof:true,prof_active:true,lg_prof_sample:10,prof_accum:true" \
	"$TARGETS/victim_dyn" -b 3
age_threads
expect_rc 0 "$JEATTACH" -p "$v" --status --json
ver=$(json_get "$OUT" "j['actions'][0]['version'].split('-')[0]")
case $ver in
5.3.*|5.4.*) ;;
*) skip "this test expects the system's jemalloc 5.3 (found $ver); t_jemalloc52.sh covers 5.2" ;;
esac
[ "$(json_get "$OUT" "j['actions'][0]['activation_reaches_existing_threads']")" = True ] || fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$v" --deactivate --activate --json
[ "$(json_get "$OUT" "j['actions'][1]['rearm']")" = not_needed ] || fail "$OUT"
[ "$(json_get "$OUT" "j['holds']")" = 1 ] || fail "5.3 activation borrowed more than one thread: $OUT"
pass "jemalloc $ver: activation alone reaches every thread, no per-thread pass"

nthreads=$(ls /proc/"$v"/task | wc -l)
expect_rc 0 "$JEATTACH" -p "$v" --name-threads --json
# main and the 3 busy threads allocate; the reader, poller, sleeper...
# never do: not borrowed (below)
[ "$(json_get "$OUT" "j['actions'][0]['threads_named'] + j['actions'][0]['threads_idle']")" = "$nthreads" ] ||
	fail "$OUT"
[ "$(json_get "$OUT" "j['actions'][0]['threads_named'] >= 4")" = True ] || fail "$OUT"
[ "$(json_get "$OUT" "j['actions'][0]['threads_missed']")" = 0 ] || fail "$OUT"
# A thread's hold is its hold (the run's longest is at least as long), the
# search before it apart.
[ "$(json_get "$OUT" "0 < j['actions'][0]['pass_hold_us_max'] <= j['hold_us_max']")" = True ] ||
	fail "pass_hold_us_max is not a hold: $OUT"
json_get "$OUT" "j['actions'][0]['pass_wait_us_max']" >/dev/null || fail "no pass_wait_us_max: $OUT"
expect_rc 0 "$JEATTACH" -p "$v" --name-threads --json
[ "$(json_get "$OUT" "j['actions'][0]['threads_named']")" = 0 ] || fail "names were set twice: $OUT"
sleep 0.5
expect_rc 0 "$JEATTACH" -p "$v" --dump "$WORK/n.heap"
# Every named header line is comm/TID of a thread of the victim.
sed -n '2,/^@/p' "$WORK/n.heap" | sed -n 's/^  t[0-9]*: .*\] //p' >"$WORK/names"
[ -s "$WORK/names" ] || fail "no thread name in the profile: $(head -6 "$WORK/n.heap")"
while read -r name; do
	tid=${name#victim_dyn/}
	[ "$tid" != "$name" ] && [ -d /proc/"$v"/task/"$tid" ] || fail "name '$name' is not comm/TID of the victim"
done <"$WORK/names"
pass "--name-threads: $(wc -l <"$WORK/names") threads named comm/TID"

# jeheap: the busiest named thread, by name.
busiest=$(sed -n '2,/^@/p' "$WORK/n.heap" | grep -E '^  t[0-9]+: ' | tr -d '[]' |
	sort -t' ' -k6,6nr | head -1 | sed 's/.* //')
expect_rc 0 "$JEHEAP" json --alloc_space --thread "$busiest" "$WORK/n.heap"
[ "$(json_get "$OUT" "j['thread']['name']")" = "$busiest" ] || fail "$OUT"
[ "$(json_get "$OUT" "j['total'] > 0")" = True ] || fail "thread $busiest holds nothing: $OUT"
[ "$(json_get "$OUT" "sum(1 for t in j['threads'] if t['name'])")" = "$(wc -l <"$WORK/names")" ] ||
	fail "json threads: $OUT"
expect_rc 0 "$JEHEAP" top --alloc_space --thread "$busiest" "$WORK/n.heap"
echo "$OUT" | grep -q ' busy$' || fail "top --thread NAME: $OUT"
expect_rc 2 "$JEHEAP" top --thread no/such "$WORK/n.heap"
echo "$ERR" | grep -q "no thread of .* has that name" || fail "$ERR"
pass "jeheap --thread NAME, json threads"
expect_rc 0 "$JEHEAP" pprof --alloc_space -o "$WORK/n.pb.gz" "$WORK/n.heap"
if command -v go >/dev/null; then
	export HOME="$WORK" GOCACHE="$WORK/gocache" GOFLAGS=-mod=mod GOTOOLCHAIN=local
	go tool pprof -tags "$WORK/n.pb.gz" >"$WORK/tags" 2>"$WORK/tags.err" || fail "$(cat "$WORK/tags.err")"
	grep -q "^ *thread: Total" "$WORK/tags" || fail "no thread label: $(cat "$WORK/tags")"
	grep -qF ": $busiest" "$WORK/tags" || fail "no label $busiest: $(cat "$WORK/tags")"
	pass "pprof: a thread label per sample"
else
	echo "note: no go (Debian's golang-go) to read pprof's labels back"
fi
finish_victim v

# Threads that never allocated are not borrowed: a mallctl would give each
# a tsd and a tcache (about 32 KiB, and one never freed on a thread caught
# as it ends: doc/robustness.md); their counters, located from their
# thread pointers, read 0. Young threads that allocated are named at once.
start_victim_env y "MALLOC_CONF=prof:true,prof_active:true" "$TARGETS/victim_dyn" -b 2 -i 80
expect_rc 0 "$JEATTACH" -p "$y" --stats --json
meta0=$(json_get "$OUT" "j['actions'][0]['metadata']")
nthreads=$(ls /proc/"$y"/task | wc -l)
expect_rc 0 "$JEATTACH" -p "$y" --name-threads --json
a="j['actions'][0]"
[ "$(json_get "$OUT" "$a['threads_idle'] >= 80")" = True ] || fail "idle threads borrowed: $OUT"
[ "$(json_get "$OUT" "$a['threads_missed']")" = 0 ] || fail "$OUT"
[ "$(json_get "$OUT" "$a['threads_named'] + $a['threads_idle']")" = "$nthreads" ] || fail "$OUT"
expect_rc 0 "$JEATTACH" -p "$y" --stats --json
meta1=$(json_get "$OUT" "j['actions'][0]['metadata']")
[ $((meta1 - meta0)) -lt 1048576 ] || fail "stats.metadata grew by $((meta1 - meta0)) bytes"
finish_victim y
pass "threads that never allocated: not borrowed, jemalloc's metadata unchanged"

# The pass's holds share one scratch mapping (rcall_keep_scratch): made by
# its first hold, removed by its last or by one more hold when the last
# thread was not held. Counted in the victim by the kernel's syscall
# tracepoints (perf stat, which traces nothing: jeattach stays the only
# tracer), counters enabled before jeattach starts (--control).
# scratch_calls PID [ARGS...]: jeattach ARGS (--name-threads --json by
# default) on PID (its output in OUT); calls gets "MMAPS MUNMAPS" of the
# scratch length the victim made meanwhile, or "" where perf cannot count.
scratch_calls() {
	sc_pid=$1
	shift
	[ $# -gt 0 ] || set -- --name-threads --json
	calls=""
	rm -f "$WORK/ctl" "$WORK/ack"
	mkfifo "$WORK/ctl" "$WORK/ack"
	perf stat -x, -o "$WORK/perf.out" --control "fifo:$WORK/ctl,$WORK/ack" -D -1 \
		-e syscalls:sys_enter_mmap --filter "len == 1114112" \
		-e syscalls:sys_enter_munmap --filter "len == 1114112" -p "$sc_pid" 2>"$WORK/perf.err" &
	perf_pid=$!
	exec 8>"$WORK/ctl" 9<"$WORK/ack"
	echo enable >&8
	if ! read -r _ack <&9; then
		exec 8>&- 9<&-
		kill "$perf_pid" 2>/dev/null
		echo "note: perf stat cannot count syscalls here: $(cat "$WORK/perf.err")"
		return
	fi
	expect_rc 0 "$JEATTACH" -p "$sc_pid" "$@"
	echo disable >&8
	read -r _ack <&9
	exec 8>&- 9<&-
	kill -INT "$perf_pid"
	wait "$perf_pid"
	count() { awk -F, -v e="$1" '$3 == e { print ($1 ~ /^[0-9]+$/) ? $1 : 0 }' "$WORK/perf.out"; }
	calls="$(count syscalls:sys_enter_mmap) $(count syscalls:sys_enter_munmap)"
}
if ! command -v perf >/dev/null; then
	echo "note: no perf (Debian's linux-perf): the pass's scratch mappings are not counted"
else
	start_victim_env k "MALLOC_CONF=prof:true,prof_active:true" "$TARGETS/victim_dyn" -b 6
	age_threads
	scratch_calls "$k"
	if [ -n "$calls" ]; then
		named=$(json_get "$OUT" "j['actions'][0]['threads_named']")
		[ "$named" -ge 3 ] || fail "fewer than 3 threads held: $OUT"
		[ "$calls" = "1 1" ] ||
			fail "$named holds made and removed '$calls' scratch mappings: $(cat "$WORK/perf.out")"
		[ -z "$(scratch_maps "$k")" ] || fail "a scratch mapping stayed: $(scratch_maps "$k")"
		pass "the pass: $named threads named in holds that shared one scratch mapping"
	fi
	# A series at a short interval keeps its mapping across the waits
	# (rcall_keep_scratch: RCALL_KEEP_ACROSS_US), one at a long interval
	# makes one per hold: neither leaves one.
	scratch_calls "$k" --stats --every 0.2s --count 5 --dump "$WORK/e%n.heap" --json
	if [ -n "$calls" ]; then
		[ "$(json_get "$OUT" "j['holds']")" = 5 ] || fail "5 holds expected: $OUT"
		[ "$calls" = "1 1" ] || fail "--every 0.2s: 5 holds made and removed '$calls' scratch mappings"
		[ -z "$(scratch_maps "$k")" ] || fail "a scratch mapping stayed: $(scratch_maps "$k")"
		scratch_calls "$k" --stats --every 2.5s --count 2 --dump "$WORK/f%n.heap" --json
		[ "$calls" = "2 2" ] || fail "--every 2.5s: 2 holds made and removed '$calls' scratch mappings"
		pass "--every: one scratch mapping for holds 0.2 s apart, one per hold 2.5 s apart"
	fi
	finish_victim k
	# Beside a program that keeps making mappings just like it (MAP_NORESERVE,
	# MADV_DONTFORK: RDMA buffers), the kept mapping merges with one into
	# a single area between two holds: still found, used and removed (it
	# was forgotten, and left in the process for good).
	start_victim n "$TARGETS/victim_neighbour"
	age_threads
	scratch_calls "$n"
	if [ -n "$calls" ]; then
		[ "$(json_get "$OUT" "j['actions'][0]['threads_named'] >= 4")" = True ] || fail "$OUT"
		[ "$calls" = "1 1" ] ||
			fail "beside look-alike mappings, the pass made and removed '$calls': $(cat "$WORK/perf.out")"
		pass "the pass beside look-alike mappings: its scratch mapping made once, removed"
	fi
	finish_victim n made
fi

# jemalloc naming threads itself (5.3's prof_sys_thread_name): not ours.
start_victim_env s "MALLOC_CONF=prof:true,prof_sys_thread_name:true" "$TARGETS/victim_dyn" -b 1
age_threads
expect_rc 7 "$JEATTACH" -p "$s" --name-threads
echo "$ERR" | grep -q "opt.prof_sys_thread_name is on" || fail "$ERR"
finish_victim s
pass "prof_sys_thread_name: --name-threads explains, exit 7"
