/* SPDX-License-Identifier: BSD-2-Clause */
/* Threads' thread pointers from glibc's list of thread descriptors, no
 * thread stopped (act_tplist.c, tplist.c). */
#ifndef JEATTACH_ACT_TPLIST_H
#define JEATTACH_ACT_TPLIST_H

#include <sys/types.h>
#include "act_counters.h"
#include "target.h"
#include "tplist.h"

/* Once the counters are known (state 1), after the release: find the list
 * node of the thread they were learnt from (k->list 1), or leave k->list 0
 * (not glibc's layout: callers do as before). */
void act_tplist_learn(struct act_counters *k, struct target *t);
/* The threads of tids[0..n) (the process's, listed now) found in the list,
 * into out[] (room for n), in tid order; alt_tp (or 0): a thread pointer
 * to walk from if the usual start finds nothing. How many, or -1 when the
 * list is not known. */
int act_tplist_locate(struct act_counters *k, struct target *t, const pid_t *tids, int n,
		      uint64_t alt_tp, struct tplist_thread *out);
/* tid's thread pointer in v[0..n) (act_tplist_locate's), or 0. */
uint64_t act_tplist_tp(const struct tplist_thread *v, int n, pid_t tid);

#endif
