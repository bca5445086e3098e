/* SPDX-License-Identifier: BSD-2-Clause */
/* Function names as jeprof prints them, and the memory they live in.
 * Internal to libjeheap. */
#ifndef JH_NAMES_H
#define JH_NAMES_H

#include <stddef.h>

/* Strings that live as long as the pool: chunks never move. */
struct jh_pool {
	char *chunk;
	size_t used, cap;
	char **old; /* full chunks, freed with the pool */
	size_t nold, old_cap;
};
/* A copy of s[0..len) NUL-terminated, or NULL without memory. */
const char *jh_pool_strndup(struct jh_pool *pool, const char *s, size_t len);
void jh_pool_free(struct jh_pool *pool);

/* name (a symbol, mangled or not) as jeprof shows it: demangled (when
 * libstdc++'s demangler is there) then jeprof's ShortFunctionName: argument
 * lists, template arguments and a leading return type removed. The result
 * is name itself when nothing changes, else a pool string; NULL without
 * memory. */
const char *jh_display_name(struct jh_pool *pool, const char *name);

#endif
