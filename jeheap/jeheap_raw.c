/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof --raw writes PrintSymbolizedProfile's form: symbols, then the
 * profile as it was read (jeprof itself does so for remote profiles only
 * and dies on a local file, "--raw/http: jeprof can only dump remote
 * profiles for --raw"). The profile's bytes are copied, not rewritten: a
 * symbolized input gives its profile part only, under fresh symbols. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap_cli.h"
#include "jeheap_raw.h"

/* The whole file, or NULL (errno set). */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int bad = !f;
	while (!bad) {
		if (cap - n < 65536) {
			char *nb = realloc(buf, cap = cap * 2 + 65536);
			if (!(bad = !nb))
				buf = nb;
			continue;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (!got) {
			bad = ferror(f);
			break;
		}
	}
	if (f)
		fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	*len = n;
	return buf;
}

/* Past a symbolized profile's "--- symbol" section and its "--- heap"
 * line: the profile itself (the whole text if not symbolized). */
static const char *profile_part(const char *text, size_t *len)
{
	if (*len < 11 || memcmp(text, "--- symbol\n", 11))
		return text;
	const char *end = text + *len, *c = text;
	while (c < end) {
		const char *nl = memchr(c, '\n', (size_t)(end - c));
		const char *next = nl ? nl + 1 : end;
		if (next - c == 4 && !memcmp(c, "---\n", 4)) { /* end of the symbols */
			nl = memchr(next, '\n', (size_t)(end - next));
			c = nl ? nl + 1 : end; /* past "--- heap" */
			*len = (size_t)(end - c);
			return c;
		}
		c = next;
	}
	*len = 0;
	return end;
}

/* The first file the maps name: the main executable, as jeprof's
 * ParseLibraries takes the program's own mapping first. */
static char *main_executable(const jeheap_profile *p)
{
	for (const char *l = jeheap_profile_mappings(p); *l;) {
		size_t n = strcspn(l, "\n");
		const char *slash = memchr(l, '/', n);
		if (slash)
			return strndup(slash, n - (size_t)(slash - l));
		l += n + (l[n] == '\n');
	}
	return NULL;
}

int write_raw(const char *path, const jeheap_profile *p, jeheap_symbolizer *s,
	      const char *program, FILE *out)
{
	size_t len = 0;
	char *text = slurp(path, &len);
	if (!text) {
		fprintf(stderr, "jeheap: cannot read %s: %s\n", path, strerror(errno ? errno : EIO));
		return EXIT_INPUT;
	}
	const char *body = profile_part(text, &len);
	/* a symbolized input names its binary itself (the library keeps it) */
	char *exe = program || body != text ? NULL : main_executable(p);
	int e = jeheap_write_symbolized(p, s, program ? program : exe, body, len, out);
	free(exe);
	free(text);
	if (e)
		fprintf(stderr, "jeheap: %s\n", jeheap_strerror(e));
	return e == JEHEAP_EIO ? EXIT_OUTPUT : e ? EXIT_INPUT : 0;
}
