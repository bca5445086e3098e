/* SPDX-License-Identifier: BSD-2-Clause */
/* The two hash indexes libjeheap uses, both open addressing with linear
 * probing and a load under 1/2. Internal. */
#ifndef JH_INDEX_H
#define JH_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* An open-addressing index of strings kept elsewhere (an array): slots
 * hold the element's index + 1, 0 is empty; the load stays under 1/2. */
typedef const char *(*jh_key_fn)(const void *arg, size_t i);
struct jh_strindex {
	uint32_t *slots;
	size_t cap;
};
uint64_t jh_hash_str(const char *s);
/* Room for one more key; rebuilds from key(arg, 0..n-1) when it grows. */
int jh_strindex_reserve(struct jh_strindex *x, size_t n, jh_key_fn key, const void *arg);
/* The slot of s: holding the index + 1 of an equal key, or 0 (free). */
uint32_t *jh_strindex_slot(const struct jh_strindex *x, const char *s, jh_key_fn key,
			   const void *arg);

/* 64-bit keys -> 32-bit values (UINT32_MAX: none). */
struct jh_u64map {
	uint64_t *keys;
	uint32_t *vals;
	size_t cap, n;
};
/* The value of key, made room for: UINT32_MAX when key is new (then the
 * caller stores the value). NULL without memory. */
uint32_t *jh_u64map_slot(struct jh_u64map *m, uint64_t key);
/* The value of key, or UINT32_MAX: a lookup that adds nothing. */
uint32_t jh_u64map_get(const struct jh_u64map *m, uint64_t key);
/* Forget every key, keep the memory. */
void jh_u64map_clear(struct jh_u64map *m);
void jh_u64map_free(struct jh_u64map *m);

#endif
