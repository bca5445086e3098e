/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof --raw writes PrintSymbolizedProfile's form: symbols, then the
 * profile as it was read (jeprof itself does so for remote profiles only
 * and dies on a local file, "--raw/http: jeprof can only dump remote
 * profiles for --raw"). The profile's bytes are copied, not rewritten: a
 * symbolized input gives its profile part only, under fresh symbols. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include "core_read.h"
#include "jeheap_cli.h"
#include "jeheap_raw.h"

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
	char *text;
	/* No bound: the profile was read whole already, by the parser. */
	int r = core_read_file(path, SIZE_MAX, &text, &len);
	if (r) {
		fprintf(stderr, "jeheap: cannot read %s: %s\n", path, strerror(-r));
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
