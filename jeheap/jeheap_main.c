/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap: the command over libjeheap. Which command line reads argv (the
 * profile commands' here, jeprof's in jeheap_jeprof.c, recent's in
 * jeheap_recent.c), then the profile commands' options and command, run
 * by jeheap_run.c. Their options, help and the answers to a mistake come
 * from jeheap's one table (jeheap_table.c). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap.h"
#include "jeheap_cli.h"
#include "jeheap_help.h"
#include "jeheap_mistake.h"
#include "jeheap_recent.h"
#include "jeheap_table.h"

#ifdef HAVE_LIBDW
#define HAVE_LIBDW_WORD "yes"
#else
#define HAVE_LIBDW_WORD "no (built without libdw)"
#endif
#ifdef HAVE_CXA_DEMANGLE
#define HAVE_DEMANGLE_WORD "yes"
#else
#define HAVE_DEMANGLE_WORD "no (built without libstdc++)"
#endif

_Static_assert((int)JH_TOP == (int)CMD_TOP && (int)JH_JSON == (int)CMD_JSON &&
		       (int)JH_TREND == (int)CMD_TREND,
	       "the table's profile commands are enum command's");

/* -1: not a number of lines. */
static long parse_limit(const char *text)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	return errno || *end || v < 0 ? -1 : v;
}

/* --thread: jemalloc's thread number, or a thread's name (looked up in
 * the first profile once it is read); -1 with a message. */
static int parse_thread(const char *text, struct args *a)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (!*text) {
		fprintf(stderr, "jeheap: --thread '': expected jemalloc's thread number or a "
				"thread's name\n");
		return -1;
	}
	a->q.per_thread = 1;
	if (errno || *end || *text == '-')
		a->thread_name = text;
	else
		a->q.thread = v;
	return 0;
}

static void version(void)
{
	printf("jeheap %s (libjeheap %s; DWARF lines and inlined frames: %s; "
	       "C++ demangling: %s)\n",
	       PACKAGE_VERSION, jeheap_version(), HAVE_LIBDW_WORD, HAVE_DEMANGLE_WORD);
}

/* flame's options (JO_TITLE...): 1 if c is one of them. */
static int flame_option(int c, const char *arg, struct jeheap_flame_options *fo)
{
	if (c == JO_TITLE)
		fo->title = arg;
	else if (c == JO_SUBTITLE)
		fo->subtitle = arg;
	else if (c == JO_INVERTED)
		fo->inverted = 1;
	return c == JO_TITLE || c == JO_SUBTITLE || c == JO_INVERTED;
}

/* trend's options (JO_JSON...): 1 if c is one of them, 0 if not, -1 with a
 * message. */
static int trend_option(int c, const char *arg, struct trend_opts *to)
{
	char *end;
	if (c < JO_JSON || c > JO_TIMES)
		return 0;
	errno = 0;
	if (c == JO_JSON)
		to->json = 1;
	else if (c == JO_SVG)
		to->svg = 1;
	else if (c == JO_TIMES)
		to->times = arg;
	else if (c == JO_TOP && (to->top = parse_limit(arg)) <= 0) {
		fprintf(stderr, "jeheap: --top '%s': expected a number of stacks\n", arg);
		return -1;
	} else if (c == JO_MIN_FIT) {
		to->min_fit = strtod(arg, &end);
		to->min_fit_given = 1;
		if (errno || end == arg || *end || !(to->min_fit >= 0 && to->min_fit <= 1)) {
			fprintf(stderr, "jeheap: --min-fit '%s': expected a fit (R^2) from 0 to 1\n",
				arg);
			return -1;
		}
	}
	return 1;
}

/* One option: -1 to go on, else an exit code (0 after --version). */
static int take(int c, const char *arg, struct args *a, int argc, char **argv)
{
	char word[8];
	switch (c) {
	case JO_INUSE_SPACE:
	case JO_INUSE_OBJECTS:
	case JO_ALLOC_SPACE:
	case JO_ALLOC_OBJECTS:
		a->q.metric = c - JO_INUSE_SPACE;
		return -1;
	case JO_FUNCTIONS:
	case JO_LINES:
	case JO_ADDRESSES:
		a->q.granularity = c - JO_FUNCTIONS;
		return -1;
	case JO_LIMIT:
		if ((a->limit = parse_limit(arg)) >= 0)
			return -1;
		fprintf(stderr, "jeheap: -n '%s': expected a number of lines\n", arg);
		return EXIT_USAGE;
	case JO_OUTPUT:
		a->outpath = arg;
		return -1;
	case JO_ROOT:
		a->root = arg;
		return -1;
	case JO_BASE:
		a->basepath = arg;
		return -1;
	case JO_FOCUS:
		a->q.focus = arg;
		return -1;
	case JO_IGNORE:
		a->q.ignore = arg;
		return -1;
	case JO_THREAD:
		return parse_thread(arg, a) ? EXIT_USAGE : -1;
	case JO_VERSION:
		version();
		return 0;
	case ':':
		fprintf(stderr, "jeheap: option %s needs a value\n", argv[optind - 1]);
		return EXIT_USAGE;
	case '?':
		return jh_option_mistake(jh_refused_word(argc, argv, word, sizeof(word)),
					 JH_PROFILE_COMMANDS);
	}
	if (flame_option(c, arg, &a->flame))
		return -1;
	return trend_option(c, arg, &a->trend) < 0 ? EXIT_USAGE : -1;
}

/* The options given, each row once: the parser reads every profile
 * command's, and which command they were given to is known only once
 * they are read (jeheap --lines top). */
struct given {
	const struct jh_option_row *rows[JH_MAX_OPTIONS];
	size_t n;
};

static void note(struct given *g, int c)
{
	const struct jh_option_row *r = jh_option_by_id(c, JH_PROFILE_COMMANDS);
	for (size_t i = 0; i < g->n; i++)
		if (g->rows[i] == r)
			return;
	if (r && g->n < JH_MAX_OPTIONS)
		g->rows[g->n++] = r;
}

/* Options, up to the command. Returns -1 to go on, else an exit code
 * (0 after --help or --version). */
static int parse_options(int argc, char **argv, struct args *a, struct given *g)
{
	struct option longopts[JH_MAX_OPTIONS + 1];
	char shortopts[JH_MAX_SHORT];
	int c, rc = -1, help = 0;
	jh_getopt_spec(JH_PROFILE_COMMANDS, longopts, shortopts);
	opterr = 0;
	while (rc < 0 && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		/* after --help the words are read only for the command it
		 * asks about: jeheap top --help */
		if (c == JO_HELP || help) {
			help = 1;
		} else {
			rc = take(c, optarg, a, argc, argv);
			note(g, c);
		}
	}
	if (!help)
		return rc;
	int cmd = optind < argc ? jh_command_find(argv[optind]) : -1;
	if (cmd < 0)
		jh_usage(stdout);
	else
		jh_command_usage(stdout, cmd);
	return 0;
}

/* The command and its operands. Returns -1 to go on, else an exit code. */
static int parse_command(int argc, char **argv, struct args *a, const struct given *g)
{
	if (optind >= argc) {
		fprintf(stderr, "jeheap: no command; see jeheap --help\n");
		return EXIT_USAGE;
	}
	a->name = argv[optind++];
	a->cmd = jh_command_find(a->name);
	if (a->cmd == JH_HELP)
		return jh_help_main(argc - optind + 1, argv + optind - 1);
	if (a->cmd < 0)
		return jh_command_mistake(a->name);
	if (jh_commands()[a->cmd].own_options) {
		fprintf(stderr, "jeheap: %s takes its options after it: jeheap %s [OPTION...] %s\n",
			a->name, a->name, jh_commands()[a->cmd].operands);
		return EXIT_USAGE;
	}
	/* an option the command does not use is refused, not ignored:
	 * jeheap top --inverted would otherwise print top as if it were
	 * not there */
	for (size_t i = 0; i < g->n; i++)
		if (!(g->rows[i]->commands & JH_ON(a->cmd)))
			return jh_unused_option(a->cmd, g->rows[i]);
	return jeheap_operands(argc, argv, optind, a);
}

/* --list-options, --list-commands (the table's hidden rows): what bash
 * completion asks, matched whole and only as the first word, so that no
 * abbreviation of a listed option (--l: --lines) becomes ambiguous.
 * -1 if word is neither. */
static int listing(const char *word)
{
	const struct jh_option_row *r =
		strncmp(word, "--", 2) ? NULL
				       : jh_option_find(word + 2, strlen(word + 2), JH_PROFILE_COMMANDS);
	if (!r || !r->hidden)
		return -1;
	if (r->id == JO_LIST_OPTIONS)
		jh_list_options(stdout);
	else
		jh_list_commands(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	/* jeheap-jeprof ARGS, or jeheap jeprof ARGS: jeprof's command line,
	 * so that a script switches from jeprof by one word */
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (!strcmp(base, "jeheap-jeprof"))
		return jeheap_jeprof_main(argc, argv);
	int cmd = argc > 1 ? jh_command_find(argv[1]) : -1;
	if (cmd == JH_JEPROF)
		return jeheap_jeprof_main(argc - 1, argv + 1);
	/* the record of recent allocations is not a heap profile: its own
	 * command line (jeheap_recent.c) */
	if (cmd == JH_RECENT)
		return jeheap_recent_main(argc - 1, argv + 1);
	if (cmd == JH_HELP)
		return jh_help_main(argc - 1, argv + 1);
	/* jeprof's habit, jeheap --text PROGRAM PROFILE: what jeprof would
	 * do, as jeheap jeprof does it */
	if (argc > 1 && jh_jeprof_habit(argv[1]))
		return jeheap_jeprof_main(argc, argv);
	int rc = argc > 1 ? listing(argv[1]) : -1;
	if (rc >= 0)
		return rc;
	struct args a = { .limit = -1 };
	a.jeprof.node_fraction = 0.005;
	a.jeprof.edge_fraction = 0.001;
	struct given g = { .n = 0 };
	rc = parse_options(argc, argv, &a, &g);
	if (rc < 0)
		rc = parse_command(argc, argv, &a, &g);
	return rc < 0 ? jeheap_execute(&a) : rc;
}
