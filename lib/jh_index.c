/* SPDX-License-Identifier: BSD-2-Clause */
/* Hash indexes: strings kept in the caller's array, and 64-bit keys. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "jeheap.h"
#include "jh_index.h"

static uint64_t hash64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

uint64_t jh_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

int jh_strindex_reserve(struct jh_strindex *x, size_t n, jh_key_fn key, const void *arg)
{
	if ((n + 1) * 2 <= x->cap)
		return 0;
	size_t cap = x->cap ? x->cap * 2 : 1024;
	uint32_t *slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return JEHEAP_ENOMEM;
	for (size_t i = 0; i < n; i++) {
		size_t j = jh_hash_str(key(arg, i)) & (cap - 1);
		while (slots[j])
			j = (j + 1) & (cap - 1);
		slots[j] = (uint32_t)(i + 1);
	}
	free(x->slots);
	x->slots = slots;
	x->cap = cap;
	return 0;
}

uint32_t *jh_strindex_slot(const struct jh_strindex *x, const char *s, jh_key_fn key,
			   const void *arg)
{
	size_t j = jh_hash_str(s) & (x->cap - 1);
	while (x->slots[j] && strcmp(key(arg, x->slots[j] - 1), s))
		j = (j + 1) & (x->cap - 1);
	return &x->slots[j];
}

static int u64map_grow(struct jh_u64map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 4096;
	uint64_t *keys = malloc(cap * sizeof(*keys));
	uint32_t *vals = malloc(cap * sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	memset(vals, 0xff, cap * sizeof(*vals));
	for (size_t i = 0; i < m->cap; i++) {
		if (m->vals[i] == UINT32_MAX)
			continue;
		size_t j = hash64(m->keys[i]) & (cap - 1);
		while (vals[j] != UINT32_MAX)
			j = (j + 1) & (cap - 1);
		keys[j] = m->keys[i];
		vals[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

uint32_t *jh_u64map_slot(struct jh_u64map *m, uint64_t key)
{
	if ((m->n + 1) * 2 > m->cap && u64map_grow(m))
		return NULL;
	size_t j = hash64(key) & (m->cap - 1);
	while (m->vals[j] != UINT32_MAX) {
		if (m->keys[j] == key)
			return &m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	/* A new key: counted now; its value is the caller's to store (a slot
	 * left at UINT32_MAX after a failure stays free). */
	m->keys[j] = key;
	m->n++;
	return &m->vals[j];
}

uint32_t jh_u64map_get(const struct jh_u64map *m, uint64_t key)
{
	if (!m->cap)
		return UINT32_MAX;
	size_t j = hash64(key) & (m->cap - 1);
	while (m->vals[j] != UINT32_MAX) {
		if (m->keys[j] == key)
			return m->vals[j];
		j = (j + 1) & (m->cap - 1);
	}
	return UINT32_MAX;
}

void jh_u64map_clear(struct jh_u64map *m)
{
	if (m->vals)
		memset(m->vals, 0xff, m->cap * sizeof(*m->vals));
	m->n = 0;
}

void jh_u64map_free(struct jh_u64map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
