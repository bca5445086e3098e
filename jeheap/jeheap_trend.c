/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap trend: each dump's time, the trend, its writer. A dump's time is
 * jeattach's dump-time stamp; a dump without one (not made by jeattach, or
 * by one from before the stamp) falls back to its file's mtime, with a
 * warning, since a copy that did not keep times moves it; --times gives
 * every time by hand instead. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap_trend.h"

/* --times: n numbers of seconds, comma-separated, one per dump as given.
 * -1 with a message. */
static int parse_times(const char *text, size_t n, struct jeheap_trend_dump *d)
{
	const char *at = text;
	for (size_t i = 0; i < n; i++) {
		char *end;
		errno = 0;
		double v = strtod(at, &end);
		int last = i + 1 == n;
		if (end == at || errno || !isfinite(v) || (last ? *end != 0 : *end != ',')) {
			fprintf(stderr, "jeheap: --times '%s': expected %zu numbers of seconds "
					"separated by commas, one per dump in the order given\n",
				text, n);
			return -1;
		}
		d[i].time = v;
		at = end + 1;
	}
	return 0;
}

/* Each dump's time and where it came from. An exit code, or -1 to go on. */
static int dump_times(const struct args *a, size_t n, struct jeheap_trend_dump *d, int *source)
{
	if (a->trend.times)
		return parse_times(a->trend.times, n, d) ? EXIT_USAGE : -1;
	size_t unstamped = 0, first = 0;
	for (size_t i = 0; i < n; i++) {
		if (jeheap_profile_time(d[i].profile, &d[i].time, &source[i])) {
			fprintf(stderr, "jeheap: %s: no time for this dump (no dump-time stamp, no "
					"file time); give every dump's time with --times\n",
				d[i].name);
			return EXIT_INPUT;
		}
		if (source[i] == JEHEAP_TIME_FILE && !unstamped++)
			first = i;
	}
	if (unstamped)
		fprintf(stderr, "jeheap: warning: %s%s: no dump-time stamp (not dumped by jeattach, "
				"or by an older one): the file's modification time is used, right "
				"only if it was not copied or touched since; --times T,... gives "
				"the times\n",
			d[first].name, unstamped > 1 ? " and others" : "");
	return -1;
}

/* The trend of the dumps d, written as asked. */
static int write_trend(const struct args *a, const struct jeheap_trend_dump *d,
		       const int *source, size_t n, FILE *out)
{
	struct jeheap_query q = a->q;
	q.more = NULL;
	q.more_symbolizers = NULL;
	q.nmore = 0;
	struct jeheap_error_info ei;
	jeheap_trend *t = NULL;
	int e = jeheap_trend_new(d, n, &q, a->trend.min_fit, &t, &ei);
	if (e) {
		fprintf(stderr, "jeheap: trend: %s%s\n", ei.message,
			e == JEHEAP_EINVAL ? "; give each dump once, or their times with --times"
					   : "");
		return EXIT_INPUT;
	}
	if (n == 2)
		fprintf(stderr, "jeheap: warning: two dumps: a line fits any two points, so every "
				"fit is 1; take more dumps for a verdict\n");
	const struct trend_dumps td = { d, source };
	long top = a->trend.top ? a->trend.top : 10;
	if (a->trend.svg)
		e = jeheap_trend_svg(t, (size_t)top, a->flame.title, out);
	else if (a->trend.json)
		print_trend_json(out, t, &td, a);
	else
		print_trend_text(out, t, a->q.metric, top);
	jeheap_trend_free(t);
	return e ? EXIT_OUTPUT : 0;
}

int run_trend(const struct args *a, jeheap_profile *const *p, jeheap_symbolizer *const *s,
	      size_t n, FILE *out)
{
	struct jeheap_trend_dump *d = calloc(n, sizeof(*d));
	int *source = calloc(n, sizeof(*source)), rc;
	if (!d || !source) {
		fprintf(stderr, "jeheap: out of memory\n");
		rc = EXIT_INPUT;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		d[i].profile = p[i];
		d[i].symbolizer = s[i];
		d[i].name = a->profiles[i];
	}
	if ((rc = dump_times(a, n, d, source)) < 0)
		rc = write_trend(a, d, source, n, out);
out:
	free(d);
	free(source);
	return rc;
}

/* Does path end in ".svg"? */
static int svg_name(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n > 4 && !strcmp(path + n - 4, ".svg");
}

int trend_operands(struct args *a)
{
	struct trend_opts *to = &a->trend;
	/* trend's options given to another command, and --base given to
	 * trend, were refused with the command (jeheap_main.c) */
	if (a->cmd != CMD_TREND)
		return -1;
	if (a->nprofiles < 2) {
		fprintf(stderr, "jeheap: trend needs at least two dumps of one process (%s is "
				"one); take a series with jeattach -p PID --every 1m --count 30\n",
			a->profiles[0]);
		return EXIT_USAGE;
	}
	to->svg |= svg_name(a->outpath);
	if (to->svg && to->json) {
		fprintf(stderr, "jeheap: trend writes JSON or an SVG chart, not both; give one "
				"(-o FILE.svg means --svg)\n");
		return EXIT_USAGE;
	}
	if (!to->min_fit_given)
		to->min_fit = 0.9;
	return -1;
}
