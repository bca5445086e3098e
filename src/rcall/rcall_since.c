/* SPDX-License-Identifier: BSD-2-Clause */
/* When did a sleeping thread's wait begin? Interrupted, a wait whose
 * timeout the kernel does not shorten (epoll_wait's milliseconds, a
 * relative timespec rewound by the EINTR undo) is re-made with what is
 * left, which needs its start. Watching for the next wait to begin (the
 * old rule) took as long as the wait: a process idle in epoll_wait(10 s)
 * on every thread could not be attached within --timeout (3 of 4 --status
 * runs failed after 5.1 s).
 *
 * The scheduler knows: se.exec_start in /proc/PID/task/TID/sched is set
 * by update_curr() whenever the task's runtime is accounted, the last time
 * when it was dequeued to sleep, i.e. when its wait began (kernel/sched/
 * fair.c update_curr_se; kernel/sched/debug.c prints it in ms). It is on
 * its CPU's rq_clock_task, which leaves out IRQ and steal time and so
 * lags CLOCK_MONOTONIC by an offset of its own per CPU (6.43 s and 6.48 s
 * on the two CPUs here after 8 hours), growing slowly. That offset is
 * measured on the spot (rcall_reads.c, rcall_since_clock_offset): jeattach
 * moves itself to the thread's CPU, sleeps
 * a few microseconds so that it is put back on that CPU afresh (which
 * sets its own exec_start to that rq's clock_task: set_next_entity ->
 * update_stats_curr_start), reads its own exec_start and CLOCK_MONOTONIC,
 * and moves back. The estimate errs late, never early: the monotonic
 * reading comes after its own exec_start, and the thread's exec_start
 * after its call's entry, so a wait re-made from it ends no earlier than
 * it would have. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "rcall_internal.h"
#include "rcall_reads.h"
#include "target.h"

int rcall_wait_since(struct target *t, pid_t tid, core_usec_t *began)
{
	char *a = rcall_reads.task_file(t->io_pid, tid, "status");
	char *stat = rcall_reads.task_file(t->io_pid, tid, "stat");
	char *sched = rcall_reads.task_file(t->io_pid, tid, "sched");
	char *b = rcall_reads.task_file(t->io_pid, tid, "status");
	const char *va = a ? target_status_field(a, "voluntary_ctxt_switches") : NULL;
	const char *vb = b ? target_status_field(b, "voluntary_ctxt_switches") : NULL;
	/* Asleep in the same wait while exec_start was read. */
	int same = va && vb && strtoull(va, NULL, 10) == strtoull(vb, NULL, 10);
	int cpu = target_stat_cpu(stat);
	int64_t start = target_sched_exec_start_us(sched), offset = 0;
	free(a);
	free(stat);
	free(sched);
	free(b);
	if (!same || cpu < 0 || start < 0 || rcall_reads.clock_offset(cpu, &offset))
		return -1;
	core_usec_t at = start + offset, now = core_now_us();
	if (at > now || at < now - (core_usec_t)86400 * 1000000)
		return -1; /* not a start this clock can vouch for */
	*began = at;
	return 0;
}
