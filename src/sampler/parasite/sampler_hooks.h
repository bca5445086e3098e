/* SPDX-License-Identifier: BSD-2-Clause */
/* The hooks' pure parts, for tests/check_sampler.c, which also builds
 * sampler_hooks.c into itself to check them against jemalloc. */
#ifndef JEATTACH_SAMPLER_HOOKS_H
#define JEATTACH_SAMPLER_HOOKS_H

#include <stddef.h>
#include <stdint.h>

/* jemalloc's hook_alloc, hook_dalloc and hook_expand (hook.h), the alloc
 * one behind sampler_alloc_entry, which adds the registers. */
void sampler_alloc(void *extra, int type, void *result, uintptr_t result_raw, uintptr_t *args,
		   const uint64_t *regs);
void sampler_dalloc(void *extra, int type, void *address, uintptr_t *args);
/* Called by jeattach in the target: install (0 or mallctl's error) and
 * remove, once (0, SAMPLER_NOT_CLAIMED, or mallctl's error). */
struct sampler_keep;
uint64_t sampler_install(struct sampler_keep *k, void *hooks);
uint64_t sampler_remove(struct sampler_keep *k);
void sampler_expand(void *extra, int type, void *address, size_t old_usize, size_t new_usize,
		    uintptr_t result_raw, uintptr_t *args);

/* The bytes an allocation of n holds: jemalloc's size class. */
uint64_t sampler_usize(uint64_t n);
/* Bytes until the next sample, exponential with this mean. */
int64_t sampler_interval(uint64_t *rng, uint64_t mean);

#endif
