/* SPDX-License-Identifier: BSD-2-Clause */
/* Display names. jeprof gets names from `nm -C` and `addr2line -C`
 * (demangled) and shortens each with ShortFunctionName:
 *   s/\([^()]*\)(\s*const)?//g   until nothing changes (argument types)
 *   s/<[^<>]*>//g                until nothing changes (template arguments)
 *   s/^.*\s+(\w+::)/$1/          (a leading return type)
 * The same here, so that C++ rows and totals per function agree with it. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "core_grow.h"
#include "jh_names.h"

#ifdef HAVE_CXA_DEMANGLE
/* libstdc++'s demangler (the Itanium C++ ABI's), callable from C. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);
#endif

const char *jh_pool_strndup(struct jh_pool *pool, const char *s, size_t len)
{
	if (pool->used + len + 1 > pool->cap) {
		size_t cap = len + 1 > 65536 ? len + 1 : 65536;
		char *c = malloc(cap);
		if (!c || CORE_GROW(&pool->old, &pool->old_cap, pool->nold + 1)) {
			free(c);
			return NULL;
		}
		if (pool->chunk)
			pool->old[pool->nold++] = pool->chunk;
		pool->chunk = c;
		pool->used = 0;
		pool->cap = cap;
	}
	char *d = pool->chunk + pool->used;
	memcpy(d, s, len);
	d[len] = 0;
	pool->used += len + 1;
	return d;
}

void jh_pool_free(struct jh_pool *pool)
{
	for (size_t i = 0; i < pool->nold; i++)
		free(pool->old[i]);
	free(pool->old);
	free(pool->chunk);
	memset(pool, 0, sizeof(*pool));
}

/* Remove every innermost "(...)" (with a following "\s*const") or "<...>"
 * once; returns whether something was removed. In place. */
static int strip_innermost(char *s, char open, char close, int with_const)
{
	int changed = 0;
	char *w = s;
	for (char *r = s; *r;) {
		if (*r == open) {
			char *e = r + 1;
			while (*e && *e != open && *e != close)
				e++;
			if (*e == close) {
				r = e + 1;
				if (with_const) {
					char *c = r;
					while (isspace((unsigned char)*c))
						c++;
					if (!strncmp(c, "const", 5))
						r = c + 5;
				}
				changed = 1;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = 0;
	return changed;
}

/* s/^.*\s+(\w+::)/$1/: the last whitespace followed by an identifier and
 * "::" (greedy .* takes the last such place). */
static void strip_return_type(char *s)
{
	char *keep = NULL;
	for (char *p = s; *p; p++) {
		if (!isspace((unsigned char)*p))
			continue;
		char *q = p;
		while (isspace((unsigned char)*q))
			q++;
		char *id = q;
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		if (q > id && q[0] == ':' && q[1] == ':')
			keep = id;
	}
	if (keep)
		memmove(s, keep, strlen(keep) + 1);
}

const char *jh_display_name(struct jh_pool *pool, const char *name)
{
	char *dem = NULL;
#ifdef HAVE_CXA_DEMANGLE
	if (name[0] == '_' && name[1] == 'Z') {
		int status = -1;
		dem = __cxa_demangle(name, NULL, NULL, &status);
		if (status != 0) {
			free(dem);
			dem = NULL;
		}
	}
#endif
	const char *src = dem ? dem : name;
	if (!dem && !strpbrk(name, "(< \t"))
		return name; /* a plain C name: nothing to do */
	char *s = strdup(src);
	free(dem);
	if (!s)
		return NULL;
	while (strip_innermost(s, '(', ')', 1))
		;
	while (strip_innermost(s, '<', '>', 0))
		;
	strip_return_type(s);
	const char *r = strcmp(s, name) ? jh_pool_strndup(pool, s, strlen(s)) : name;
	free(s);
	return r;
}
