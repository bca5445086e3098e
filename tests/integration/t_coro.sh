#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Nothing of a borrowed thread's stack is saved and written back: a
# coroutine whose stack is carved from a heap block next to a counter
# another thread updates (victim_coro) must not see that counter rewound;
# and the scratch memory jeattach maps in the target for its calls is gone
# when it has finished.
. "$top_srcdir/tests/integration/lib.sh"
require_ptrace

start_victim co "$TARGETS/victim_coro"
tid=$(victim_tid co coro)
[ -n "$tid" ] || fail "no coroutine thread: $(cat "$co_out")"
before=$(scratch_maps "$co")
for i in 1 2 3 4 5; do
	expect_rc 0 "$JEATTACH" -p "$co" --tid "$tid" --dump "$WORK/co$i.heap" --stats --json
done
after=$(scratch_maps "$co")
[ "$before" = "$after" ] || fail "scratch mappings left in the target: before [$before] after [$after]"
finish_victim co
pass "five dumps and stats through a coroutine on a heap-carved stack: nothing rewound, nothing left mapped"
