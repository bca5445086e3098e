/* SPDX-License-Identifier: BSD-2-Clause */
/* The symbolizer's object problems, as one warning line each. Printed after
 * the analysis: an object is only opened when one of its addresses is
 * looked up, so only objects the output depends on are named. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap_warn.h"

struct seen {
	char **paths;
	size_t n;
};

static int warn_one(const char *path, int state, void *arg)
{
	struct seen *w = arg;
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->paths[i], path))
			return 0;
	char **grown = realloc(w->paths, (w->n + 1) * sizeof(*grown));
	if (grown && (grown[w->n] = strdup(path))) {
		w->paths = grown;
		w->n++;
	} else if (grown) {
		w->paths = grown;
	}
	if (state == JEHEAP_OBJECT_MISSING)
		fprintf(stderr, "jeheap: warning: %s: no such file here; its addresses are shown "
				"raw; dump with jeattach --symbolize (names resolved where the process "
				"runs), or give --root DIR where its files are (/proc/PID/root: a "
				"running container's)\n", path);
	else if (state == JEHEAP_OBJECT_REPLACED)
		fprintf(stderr, "jeheap: warning: %s is not the file that was profiled (rebuilt or "
				"replaced since: another build id or inode); its addresses are shown "
				"raw; give the original (--root DIR)\n", path);
	else
		fprintf(stderr, "jeheap: warning: %s was written after the profile and may not be "
				"the binary that was profiled: names from it may be wrong\n", path);
	return 0;
}

void warn_objects(jeheap_symbolizer *const *s, size_t n)
{
	struct seen w = { NULL, 0 };
	for (size_t i = 0; i < n; i++)
		if (s[i])
			jeheap_symbolizer_foreach_problem(s[i], warn_one, &w);
	for (size_t i = 0; i < w.n; i++)
		free(w.paths[i]);
	free(w.paths);
}
