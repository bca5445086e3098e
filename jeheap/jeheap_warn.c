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

/* jemalloc samples one allocation per 2^lg_prof_sample bytes allocated on
 * average, and only while prof.active is on: a short window, or one while
 * profiling was off, samples nothing. */
void warn_no_samples(jeheap_profile *const *p, char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct jeheap_counts c;
		if (!p[i] || jeheap_profile_totals(p[i], JEHEAP_RAW, &c) || c.inuse_objects ||
		    c.alloc_objects)
			continue;
		uint64_t period = jeheap_profile_sample_period(p[i]);
		if (jeheap_profile_from_sampler(p[i])) {
			fprintf(stderr, "jeheap: note: %s holds no sample: no object the sampler "
					"sampled (one per %llu bytes allocated, on average) was still "
					"live at the end of its window; take a longer window (jeattach "
					"--sample --for) or a smaller --sample-rate\n",
				paths[i], (unsigned long long)period);
			continue;
		}
		int lg = 0;
		while (lg < 63 && (period >> (lg + 1)))
			lg++;
		char smaller[120] = ""; /* a sixteenth of the period, not below 1 KiB */
		if (lg >= 14)
			snprintf(smaller, sizeof(smaller), ", or start the process with a smaller "
				 "lg_prof_sample (MALLOC_CONF=...,lg_prof_sample:%d)", lg - 4);
		fprintf(stderr, "jeheap: note: %s holds no sample: profiling was off or too short to "
				"sample an allocation (one per %llu bytes allocated, on average); take a "
				"longer window (jeattach --for)%s\n",
			paths[i], (unsigned long long)period, smaller);
	}
}
