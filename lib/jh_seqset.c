/* SPDX-License-Identifier: BSD-2-Clause */
/* The sequence set of jh_seqset.h: FNV-1a over the bytes, linear probing. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "jh_seqset.h"

void jh_seqset_init(struct jh_seqset *s, size_t elem)
{
	memset(s, 0, sizeof(*s));
	s->elem = elem;
}

void jh_seqset_free(struct jh_seqset *s)
{
	free(s->data);
	free(s->seqs);
	free(s->slots);
	jh_seqset_init(s, s->elem);
}

static uint64_t hash(const void *v, size_t bytes)
{
	const unsigned char *p = v;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < bytes; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	return h ^ bytes;
}

static uint32_t *slot_of(const struct jh_seqset *s, const void *v, uint32_t n)
{
	size_t mask = s->nslots - 1, bytes = (size_t)n * s->elem;
	for (size_t i = (size_t)hash(v, bytes) & mask;; i = (i + 1) & mask) {
		uint32_t *slot = &s->slots[i];
		if (!*slot)
			return slot;
		const struct jh_seq *q = &s->seqs[*slot - 1];
		if (q->n == n && !memcmp(s->data + q->off * s->elem, v, bytes))
			return slot;
	}
}

/* Twice the room, every sequence placed again. */
static int rehash(struct jh_seqset *s)
{
	size_t nslots = s->nslots ? s->nslots * 2 : 64;
	uint32_t *slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return -1;
	free(s->slots);
	s->slots = slots;
	s->nslots = nslots;
	for (size_t k = 0; k < s->n; k++) {
		const struct jh_seq *q = &s->seqs[k];
		*slot_of(s, s->data + q->off * s->elem, q->n) = (uint32_t)(k + 1);
	}
	return 0;
}

int jh_seqset_add(struct jh_seqset *s, const void *v, uint32_t n, uint32_t *id)
{
	if ((s->n + 1) * 2 > s->nslots && rehash(s))
		return -1;
	uint32_t *slot = slot_of(s, v, n);
	if (*slot) {
		*id = *slot - 1;
		return 0;
	}
	if (s->n >= UINT32_MAX - 1 || CORE_GROW(&s->seqs, &s->seqs_cap, s->n + 1) ||
	    core_grow((void **)&s->data, &s->cap, s->len + n + 1, s->elem))
		return -1;
	memcpy(s->data + s->len * s->elem, v, (size_t)n * s->elem);
	s->seqs[s->n] = (struct jh_seq){ s->len, n };
	s->len += n;
	*slot = (uint32_t)(s->n + 1);
	*id = (uint32_t)s->n++;
	return 0;
}

const void *jh_seqset_get(const struct jh_seqset *s, uint32_t id, uint32_t *n)
{
	*n = s->seqs[id].n;
	return s->data + s->seqs[id].off * s->elem;
}
