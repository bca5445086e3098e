/* SPDX-License-Identifier: BSD-2-Clause */
/* act_sample: --sample's sampler put in and taken out (act_sample.c), and
 * what earlier runs left (act_sample_left.c). */
#ifndef JEATTACH_ACT_SAMPLE_H
#define JEATTACH_ACT_SAMPLE_H

#include "act.h"

/* Table sizes: threads (4096: ample for a 1,000-thread server, probed 16
 * deep), sampled objects alive at once or freed during the window, and
 * ring records between two reads (a read every ACT_SAMPLE_TICK_US). Every run
 * uses these, so a later run knows an earlier one's layout. */
#define SAMPLE_THREADS 4096
#define SAMPLE_LIVE 65536
#define SAMPLE_RECS 64

/* Under the hold, before a sampler is put in: find what earlier runs left
 * in the process. A sampler still switched on (another jeattach's window,
 * or a dead one's before its deadline) is refused; one switched off but
 * still installed (its jeattach died: the hooks switch themselves off at
 * the deadline and stay installed, sampler_hooks.c) is removed and its
 * memory but the two kept pages unmapped, and every thread settled after
 * the hold (act.h pass_settle); the kept pages of runs that ended are
 * counted, and the first with this jeattach's code is offered for reuse
 * (*reuse: its page 0's address, or 0), so that runs after runs leave two
 * pages in all. JA_EXIT_OK, or the refusal in r. */
enum ja_exit act_sample_left(struct target *t, struct act_session *s, struct act_result *r,
			     uint64_t *reuse);

/* Every slot of the gate in page 0 at base empty: no thread is inside a
 * hook, and, with the switch off, none will go past it. */
int act_sample_gate_shut(struct target *t, uint64_t base);

#endif
