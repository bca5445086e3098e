/* SPDX-License-Identifier: BSD-2-Clause */
/* sampler_profile: the sampler's live objects as a heap_v2 profile, the
 * format jemalloc's prof.dump writes (src/prof_data.c prof_dump_header and
 * prof_dump_gctx): a header with the mean bytes between samples, then one
 * record per distinct stack with how many sampled objects it holds and
 * their bytes. jeprof and jeheap scale each record back by the sampling
 * law, 1 / (1 - exp(-avg / mean)) (jeprof's AdjustSamples for heap_v2):
 * right here because the sampler draws its intervals the way jemalloc's
 * prof_sample_next does, exponentially over each object's size class.
 * Pure: no target, the caller appends MAPPED_LIBRARIES and the stamps. */
#ifndef JEATTACH_SAMPLER_PROFILE_H
#define JEATTACH_SAMPLER_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SAMPLER_MAX_FRAMES 128

struct sampler_sample {
	uint64_t usize;
	int nframes;
	uint64_t ips[SAMPLER_MAX_FRAMES];
};

/* Write the header and one record per distinct stack of v[0..n) (sorted
 * in place), heaviest first. 0, or -EIO when f failed. */
int sampler_profile_write(FILE *f, struct sampler_sample *v, size_t n, uint64_t mean);

#endif
