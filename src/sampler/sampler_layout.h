/* SPDX-License-Identifier: BSD-2-Clause */
/* sampler_layout: where each part of the sampler's mapping lies
 * (sampler_abi.h), and its first contents, computed from the sizes alone:
 * pure, shared by jeattach's loader and the unit tests that run the hooks
 * in their own process. */
#ifndef JEATTACH_SAMPLER_LAYOUT_H
#define JEATTACH_SAMPLER_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "sampler_abi.h"

struct sampler_layout {
	size_t page;
	uint64_t code_off, code_len;  /* page-aligned; read and execute */
	uint64_t keep_len;            /* page 0 and the code: what stays */
	uint64_t ctl_off;             /* the rest: wiped on fork, unmapped at the end */
	uint64_t threads_off, live_off, recs_off;
	uint64_t total;
	uint64_t rest_len;            /* total - ctl_off: the part unmapped at the end */
	uint32_t nthreads, nlive, nrecs;
};

/* The layout for these table sizes (each a power of two, within bounds):
 * 0, or -EINVAL. */
int sampler_layout_plan(struct sampler_layout *l, size_t page, size_t code_len,
			uint32_t nthreads, uint32_t nlive, uint32_t nrecs);

/* The rest made apart from page 0 and the code, delta bytes from where
 * the plan put it (kept pages an earlier run left, reused: the rest is a
 * mapping of its own). Offsets stay relative to page 0 (wrapping). */
void sampler_layout_move_rest(struct sampler_layout *l, uint64_t delta);

/* Page 0's first contents: off, jemalloc's mallctl at `mallctl`. */
void sampler_layout_keep(const struct sampler_layout *l, struct sampler_keep *k,
			 uint64_t mallctl);

/* struct sampler_ctl's first contents. */
void sampler_layout_ctl(const struct sampler_layout *l, struct sampler_ctl *c, int32_t pid,
			uint64_t mean, uint64_t seed, int64_t deadline_ns);

/* The hooks struct experimental.hooks.install takes (hooks_t: alloc,
 * dalloc and expand hooks, then extra), for the mapping at base. */
void sampler_layout_hooks(const struct sampler_layout *l, uint64_t base, uint64_t out[4]);

#endif
