/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap recent [OPTION...] FILE: its command line, the record read and
 * named through the maps and stamps jeattach stored with it (the same
 * symbolizer and the same checks of the binaries as a heap profile's),
 * then the views asked for, as text or JSON. Its options are jeheap's
 * table's recent rows (jeheap_table.c), its --help drawn from them. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap_cli.h"
#include "jeheap_help.h"
#include "jeheap_mistake.h"
#include "jeheap_recent.h"
#include "jeheap_table.h"
#include "jeheap_lineless.h"
#include "jeheap_warn.h"

static int number(const char *opt, const char *text, long *v)
{
	char *end;
	errno = 0;
	*v = strtol(text, &end, 10);
	if (!errno && !*end && *text && *v >= 0)
		return 0;
	fprintf(stderr, "jeheap: recent: %s '%s': expected a count (0: all)\n", opt, text);
	return -1;
}

static int live_age(const char *text, struct recent_args *a)
{
	if (!recent_parse_duration(text, &a->live_max_age))
		return 0;
	fprintf(stderr, "jeheap: recent: --live '%s': expected a duration such as 500ms, 2s, 1m\n",
		text);
	return -1;
}

/* One option: 0, or -1 after a message. */
static int option(int c, const char *arg, struct recent_args *a)
{
	switch (c) {
	case JO_LIVE: /* 2: no value yet (one may follow as a word of its own) */
		a->live = arg ? 1 : 2;
		return arg ? live_age(arg, a) : 0;
	case JO_RECENT_TOP:
		a->top = arg ? 1 : 2;
		return arg ? number("--top", arg, &a->limit) : 0;
	case JO_CROSS:
		a->cross = 1;
		return 0;
	case JO_LIFETIMES:
		a->lifetimes = 1;
		return 0;
	case JO_BY_SIZE:
		a->live_order = JEHEAP_RECENT_BY_SIZE;
		return 0;
	case JO_PER_STACK:
		a->per_stack = 1;
		return 0;
	case JO_JSON:
		a->json = 1;
		return 0;
	case JO_DEPTH:
		return number("--depth", arg, &a->depth);
	case JO_ROOT:
		a->root = arg;
		return 0;
	case 'n':
		return number("-n", arg, &a->limit);
	case 'o':
		a->outpath = arg;
		return 0;
	default: /* JO_FUNCTIONS, JO_LINES, JO_ADDRESSES */
		a->granularity = c - JO_FUNCTIONS;
		return 0;
	}
}

/* The command line: -1 to go on, else an exit code. */
static int parse_args(int argc, char **argv, struct recent_args *a)
{
	struct option longopts[JH_MAX_OPTIONS + 1];
	char shortopts[JH_MAX_SHORT], word[8];
	int c;
	jh_getopt_spec(JH_ON(JH_RECENT), longopts, shortopts);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		if (c == 'h') {
			jh_command_usage(stdout, JH_RECENT);
			return 0;
		}
		if (c == ':') {
			fprintf(stderr, "jeheap: recent: option %s needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		}
		if (c == '?')
			return jh_option_mistake(jh_refused_word(argc, argv, word, sizeof(word)),
						 JH_ON(JH_RECENT));
		if (option(c, optarg, a))
			return EXIT_USAGE;
	}
	/* --live D and --top N as words of their own (getopt takes an
	 * optional value only as --live=D): the operand before the FILE */
	if (argc - optind == 2 && (a->live == 2 || a->top == 2)) {
		if (a->live == 2 ? live_age(argv[optind], a)
				 : number("--top", argv[optind], &a->limit))
			return EXIT_USAGE;
		optind++;
	}
	if (argc - optind != 1) {
		fprintf(stderr, "jeheap: recent: %s; see jeheap recent --help\n",
			optind >= argc ? "needs the FILE jeattach --recent wrote"
				       : "one FILE only");
		return EXIT_USAGE;
	}
	a->path = argv[optind];
	if (!a->live && !a->cross && !a->lifetimes)
		a->top = 1;
	return -1;
}

static int read_record(const char *path, jeheap_recent **r)
{
	struct jeheap_error_info ei;
	if (!jeheap_recent_read_file(path, r, &ei)) {
		if (jeheap_recent_count(*r))
			return 0;
		fprintf(stderr, "jeheap: %s: the record holds no allocations: none was sampled "
				"in its window; record a longer one (jeattach --for) or sample more "
				"often (MALLOC_CONF=lg_prof_sample:N, smaller N)\n",
			path);
		return -1;
	}
	if (ei.line)
		fprintf(stderr, "jeheap: %s:%lu:%lu: %s\n", path, ei.line, ei.column, ei.message);
	else if (!strncmp(ei.message, path, strlen(path)))
		fprintf(stderr, "jeheap: %s\n", ei.message);
	else
		fprintf(stderr, "jeheap: %s: %s\n", path, ei.message);
	return -1;
}

/* Read, name, write: an exit code. */
static int run(const struct recent_args *a, jeheap_recent *r, jeheap_symbolizer **s)
{
	struct jeheap_recent_info info;
	jeheap_recent_get_info(r, &info);
	if (!info.has_jeattach)
		fprintf(stderr, "jeheap: %s: jemalloc's record alone (no jeattach block): "
				"stacks stay addresses, ages count from the newest allocation; take "
				"it with jeattach --recent for names\n",
			a->path);
	int e = jeheap_symbolizer_new(jeheap_recent_profile(r), a->root, s);
	if (!e)
		e = jeheap_recent_symbolize(r, *s, a->granularity);
	if (e) {
		fprintf(stderr, "jeheap: %s: %s\n", a->path, jeheap_strerror(e));
		return EXIT_INPUT;
	}
	FILE *out = a->outpath ? fopen(a->outpath, "we") : stdout;
	if (!out) {
		fprintf(stderr, "jeheap: cannot write %s: %s\n", a->outpath, strerror(errno));
		return EXIT_OUTPUT;
	}
	e = a->json ? recent_print_json(out, r, a) : recent_print_text(out, r, a);
	if (e)
		fprintf(stderr, "jeheap: %s\n", jeheap_strerror(e));
	warn_objects(s, 1);
	if (a->granularity != JEHEAP_FUNCTIONS)
		note_lineless(s, 1, a->root);
	if (ferror(out) || (a->outpath ? fclose(out) : fflush(out))) {
		fprintf(stderr, "jeheap: cannot write %s: %s\n", a->outpath ? a->outpath : "output",
			strerror(errno));
		return EXIT_OUTPUT;
	}
	return e ? EXIT_INPUT : 0;
}

int jeheap_recent_main(int argc, char **argv)
{
	struct recent_args a = { .limit = 20, .depth = 6 };
	int rc = parse_args(argc, argv, &a);
	if (rc >= 0)
		return rc;
	jeheap_recent *r = NULL;
	jeheap_symbolizer *s = NULL;
	rc = read_record(a.path, &r) ? EXIT_INPUT : run(&a, r, &s);
	jeheap_symbolizer_free(s);
	jeheap_recent_free(r);
	return rc;
}
