/* SPDX-License-Identifier: BSD-2-Clause */
/* A set of sequences (arrays of fixed-size elements), each stored once and
 * named by an id: the record of recent allocations repeats a few stacks
 * thousands of times, so each distinct one is symbolized and counted once.
 * Internal to libjeheap. */
#ifndef JH_SEQSET_H
#define JH_SEQSET_H

#include <stddef.h>
#include <stdint.h>

struct jh_seq {
	size_t off; /* in elements, into data */
	uint32_t n;
};

struct jh_seqset {
	size_t elem; /* bytes per element */
	unsigned char *data;
	size_t len, cap; /* in elements */
	struct jh_seq *seqs;
	size_t n, seqs_cap;
	uint32_t *slots; /* open addressing: id + 1, 0 empty; load under 1/2 */
	size_t nslots;
};

void jh_seqset_init(struct jh_seqset *s, size_t elem);
void jh_seqset_free(struct jh_seqset *s);
/* The id of v[0..n), added if new: 0 and *id, or -1 without memory (or
 * past UINT32_MAX - 1 sequences). */
int jh_seqset_add(struct jh_seqset *s, const void *v, uint32_t n, uint32_t *id);
/* Sequence id's elements, *n of them. */
const void *jh_seqset_get(const struct jh_seqset *s, uint32_t id, uint32_t *n);

#endif
