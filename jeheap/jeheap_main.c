/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap: the command over libjeheap: its options and command, or jeprof's
 * command line (jeheap_jeprof.c); both run by jeheap_run.c. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap.h"
#include "jeheap_cli.h"
#include "jeheap_recent.h"

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

enum { O_INUSE_SPACE = 256, O_INUSE_OBJECTS, O_ALLOC_SPACE, O_ALLOC_OBJECTS, O_ROOT, O_VERSION,
       O_BASE, O_FOCUS, O_IGNORE, O_THREAD, O_FUNCTIONS, O_LINES, O_ADDRESSES,
       O_TITLE, O_SUBTITLE, O_INVERTED, O_JSON, O_SVG, O_TOP, O_MIN_FIT, O_TIMES };

static void usage(FILE *f)
{
	fputs("Usage: jeheap top|collapsed|flame|dot|pprof|json [OPTION...] [PROGRAM] PROFILE...\n"
	      "       jeheap trend [OPTION...] [PROGRAM] DUMP DUMP...\n"
	      "       jeheap jeprof [JEPROF-OPTION...] [PROGRAM] PROFILE...   (or as jeheap-jeprof)\n"
	      "       jeheap recent [OPTION...] FILE   (jeattach --recent's record; see\n"
	      "                                       jeheap recent --help)\n"
	      "Analyse jemalloc heap profiles (jemalloc 4+ heap_v2, 3.x/gperftools one-line,\n"
	      "jeprof's symbolized form). Several profiles are added together. PROGRAM, an\n"
	      "ELF file before the profiles (as jeprof takes one), is read for the main\n"
	      "executable's symbols instead of the path the profile's maps name.\n"
	      "\n"
	      "Commands:\n"
	      "  top                   functions by memory, as `jeprof --text` prints them\n"
	      "  collapsed             folded stacks for flamegraph.pl, speedscope, inferno\n"
	      "                        (with --base: flamegraph's difffolded form)\n"
	      "  flame                 a self-contained interactive SVG flame graph: click to\n"
	      "                        zoom, search (regex) for the share of matching frames\n"
	      "                        (with --base: a differential one, each frame coloured\n"
	      "                        by its own change, red grew, blue shrank)\n"
	      "  dot                   a graphviz call graph (as jeprof --dot; -n: nodes, default 80)\n"
	      "  pprof                 pprof's profile.proto, gzipped, for go tool pprof,\n"
	      "                        Pyroscope, ... (binary: needs -o or a pipe)\n"
	      "  json                  top as one JSON object (values un-sampled, not rounded)\n"
	      "  trend                 what keeps growing over a series of dumps of one process\n"
	      "                        (jeattach --every): per stack, a least-squares line\n"
	      "                        through its values over time, its slope and fit (R^2);\n"
	      "                        steady growth (slope > 0, fit >= --min-fit: \"likely\n"
	      "                        leak\") first, by rate; then the rest, shrinking last.\n"
	      "                        Times: jeattach's dump-time stamps, else each file's\n"
	      "                        mtime (with a warning), or --times\n"
	      "  jeprof                jeprof's own command line: --text, --svg, --raw, --list=RE,\n"
	      "                        ... (see jeheap(1), JEPROF COMPATIBILITY; jeheap jeprof --help)\n"
	      "\n"
	      "Options:\n"
	      "  --base FILE           subtract this earlier profile (what grew since)\n"
	      "  --focus RE            only stacks through a function matching RE\n"
	      "  --ignore RE           drop stacks through a function matching RE\n"
	      "  --thread N|NAME       only what jemalloc's thread N holds (its tN: lines),\n"
	      "                        or the thread named NAME (jeattach --name-threads:\n"
	      "                        comm/TID)\n"
	      "  --functions           a row per function (default; inlined ones marked)\n"
	      "  --lines               a row per source line (needs DWARF debug info)\n"
	      "  --addresses           a row per instruction address\n"
	      "  --inuse_space         bytes in use (default)\n"
	      "  --inuse_objects       objects in use\n"
	      "  --alloc_space         bytes allocated over time (needs prof_accum)\n"
	      "  --alloc_objects       objects allocated over time (needs prof_accum)\n"
	      "  --title TEXT          flame, trend's chart: the title (default: the profiled\n"
	      "                        program; the metric and the number of dumps)\n"
	      "  --subtitle TEXT       flame: the subtitle (default: the profile, the metric,\n"
	      "                        the total)\n"
	      "  --inverted            flame: an icicle graph, the root on top\n"
	      "  --json                trend: one JSON object, stacks ranked first to last\n"
	      "  --svg                 trend: an SVG chart, the total and the top stacks over\n"
	      "                        time (implied by -o FILE.svg)\n"
	      "  --top N               trend: N stacks (text and SVG default 10; JSON: all)\n"
	      "  --min-fit R           trend: the fit (0 to 1) steady growth needs (default 0.9)\n"
	      "  --times T,T,...       trend: each dump's time in seconds, in the order given,\n"
	      "                        instead of its stamp or its file's mtime\n"
	      "  -n N                  print the first N lines only (dot: at most N nodes;\n"
	      "                        flame and pprof keep everything)\n"
	      "  --root DIR            find the profiled binaries under DIR (a sysroot)\n"
	      "  -o FILE               write to FILE instead of standard output\n"
	      "  -h, --help            this text\n"
	      "      --version         version\n"
	      "Exit codes: 0 ok, 2 usage, 3 unreadable or malformed profile (trend: also\n"
	      "dumps whose times are equal or unknown), 4 output error.\n",
	      f);
}

static const char *const commands[] = { "top",   "collapsed", "flame", "dot",
					"pprof", "json",      "trend" };

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

/* flame's options (O_TITLE...): 1 if c is one of them. */
static int flame_option(int c, const char *arg, struct jeheap_flame_options *fo)
{
	if (c == O_TITLE)
		fo->title = arg;
	else if (c == O_SUBTITLE)
		fo->subtitle = arg;
	else if (c == O_INVERTED)
		fo->inverted = 1;
	return c == O_TITLE || c == O_SUBTITLE || c == O_INVERTED;
}

/* trend's options (O_JSON...): 1 if c is one of them, 0 if not, -1 with a
 * message. */
static int trend_option(int c, const char *arg, struct trend_opts *to)
{
	char *end;
	if (c < O_JSON || c > O_TIMES)
		return 0;
	errno = 0;
	to->set = 1;
	if (c == O_JSON)
		to->json = 1;
	else if (c == O_SVG)
		to->svg = 1;
	else if (c == O_TIMES)
		to->times = arg;
	else if (c == O_TOP && (to->top = parse_limit(arg)) <= 0) {
		fprintf(stderr, "jeheap: --top '%s': expected a number of stacks\n", arg);
		return -1;
	} else if (c == O_MIN_FIT) {
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

/* getopt_long's table for the plain command line (jeheap_jeprof.c has
 * jeprof's). */
static const struct option longopts[] = {
	{ "inuse_space", no_argument, NULL, O_INUSE_SPACE },
	{ "inuse_objects", no_argument, NULL, O_INUSE_OBJECTS },
	{ "alloc_space", no_argument, NULL, O_ALLOC_SPACE },
	{ "alloc_objects", no_argument, NULL, O_ALLOC_OBJECTS },
	{ "functions", no_argument, NULL, O_FUNCTIONS },
	{ "lines", no_argument, NULL, O_LINES },
	{ "addresses", no_argument, NULL, O_ADDRESSES },
	{ "root", required_argument, NULL, O_ROOT },
	{ "base", required_argument, NULL, O_BASE },
	{ "focus", required_argument, NULL, O_FOCUS },
	{ "ignore", required_argument, NULL, O_IGNORE },
	{ "thread", required_argument, NULL, O_THREAD },
	{ "title", required_argument, NULL, O_TITLE },
	{ "subtitle", required_argument, NULL, O_SUBTITLE },
	{ "inverted", no_argument, NULL, O_INVERTED },
	{ "json", no_argument, NULL, O_JSON },
	{ "svg", no_argument, NULL, O_SVG },
	{ "top", required_argument, NULL, O_TOP },
	{ "min-fit", required_argument, NULL, O_MIN_FIT },
	{ "times", required_argument, NULL, O_TIMES },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, O_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* Options, up to the command. Returns -1 to go on, else an exit code
 * (0 after --help or --version). */
static int parse_options(int argc, char **argv, struct args *a)
{
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case O_INUSE_SPACE:
		case O_INUSE_OBJECTS:
		case O_ALLOC_SPACE:
		case O_ALLOC_OBJECTS:
			a->q.metric = c - O_INUSE_SPACE;
			break;
		case O_FUNCTIONS:
		case O_LINES:
		case O_ADDRESSES:
			a->q.granularity = c - O_FUNCTIONS;
			break;
		case 'n':
			if ((a->limit = parse_limit(optarg)) < 0) {
				fprintf(stderr, "jeheap: -n '%s': expected a number of lines\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'o':
			a->outpath = optarg;
			break;
		case O_ROOT:
			a->root = optarg;
			break;
		case O_BASE:
			a->basepath = optarg;
			break;
		case O_FOCUS:
			a->q.focus = optarg;
			break;
		case O_IGNORE:
			a->q.ignore = optarg;
			break;
		case O_THREAD:
			if (parse_thread(optarg, a))
				return EXIT_USAGE;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case O_VERSION:
			version();
			return 0;
		case ':':
			fprintf(stderr, "jeheap: option %s needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			if (flame_option(c, optarg, &a->flame))
				break;
			int trend = trend_option(c, optarg, &a->trend);
			if (trend < 0)
				return EXIT_USAGE;
			if (trend)
				break;
			fprintf(stderr, "jeheap: unknown option '%s'; see jeheap --help\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* The command and its operands. Returns -1 to go on, else an exit code. */
static int parse_command(int argc, char **argv, struct args *a)
{
	if (optind >= argc) {
		fprintf(stderr, "jeheap: no command; see jeheap --help\n");
		return EXIT_USAGE;
	}
	a->name = argv[optind++];
	a->cmd = -1;
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(a->name, commands[i]))
			a->cmd = (int)i;
	if (a->cmd < 0 && !strcmp(a->name, "recent")) {
		fprintf(stderr, "jeheap: recent takes its options after it: jeheap recent "
				"[OPTION...] FILE\n");
		return EXIT_USAGE;
	}
	if (a->cmd < 0) {
		fprintf(stderr, "jeheap: unknown command '%s'; the commands are top, collapsed, "
				"flame, dot, pprof, json, trend, jeprof, recent\n",
			a->name);
		return EXIT_USAGE;
	}
	return jeheap_operands(argc, argv, optind, a);
}

int main(int argc, char **argv)
{
	/* jeheap-jeprof ARGS, or jeheap jeprof ARGS: jeprof's command line,
	 * so that a script switches from jeprof by one word */
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (!strcmp(base, "jeheap-jeprof"))
		return jeheap_jeprof_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "jeprof"))
		return jeheap_jeprof_main(argc - 1, argv + 1);
	/* the record of recent allocations is not a heap profile: its own
	 * command line (jeheap_recent.c) */
	if (argc > 1 && !strcmp(argv[1], "recent"))
		return jeheap_recent_main(argc - 1, argv + 1);
	struct args a = { .limit = -1 };
	a.jeprof.node_fraction = 0.005;
	a.jeprof.edge_fraction = 0.001;
	int rc = parse_options(argc, argv, &a);
	if (rc < 0)
		rc = parse_command(argc, argv, &a);
	return rc < 0 ? jeheap_execute(&a) : rc;
}
