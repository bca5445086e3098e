/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap: the command over libjeheap: options, command, then read,
 * analyse, write. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jeheap.h"
#include "jeheap_text.h"
#include "jeheap_warn.h"

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

enum { EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_OUTPUT = 4 };
enum { O_INUSE_SPACE = 256, O_INUSE_OBJECTS, O_ALLOC_SPACE, O_ALLOC_OBJECTS, O_ROOT, O_VERSION,
       O_BASE, O_FOCUS, O_IGNORE, O_THREAD, O_FUNCTIONS, O_LINES, O_ADDRESSES,
       O_TITLE, O_SUBTITLE, O_INVERTED };

static void usage(FILE *f)
{
	fputs("Usage: jeheap top|collapsed|flame|dot|pprof|json [OPTION...] PROFILE [PROFILE...]\n"
	      "Analyse jemalloc heap profiles (jemalloc 4+ heap_v2, 3.x/gperftools one-line,\n"
	      "jeprof's symbolized form). Several profiles are added together.\n"
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
	      "  --title TEXT          flame: the title (default: the profiled program)\n"
	      "  --subtitle TEXT       flame: the subtitle (default: the profile, the metric,\n"
	      "                        the total)\n"
	      "  --inverted            flame: an icicle graph, the root on top\n"
	      "  -n N                  print the first N lines only (dot: at most N nodes;\n"
	      "                        flame and pprof keep everything)\n"
	      "  --root DIR            find the profiled binaries under DIR (a sysroot)\n"
	      "  -o FILE               write to FILE instead of standard output\n"
	      "  -h, --help            this text\n"
	      "      --version         version\n"
	      "Exit codes: 0 ok, 2 usage, 3 unreadable or malformed profile, 4 output error.\n",
	      f);
}

static int read_profile(const char *path, jeheap_profile **p)
{
	struct jeheap_error_info ei;
	if (!jeheap_profile_read_file(path, p, &ei))
		return 0;
	if (ei.line)
		fprintf(stderr, "jeheap: %s:%lu:%lu: %s\n", path, ei.line, ei.column, ei.message);
	else if (!strncmp(ei.message, path, strlen(path))) /* the library named the file */
		fprintf(stderr, "jeheap: %s\n", ei.message);
	else
		fprintf(stderr, "jeheap: %s: %s\n", path, ei.message);
	return -1;
}

enum command { CMD_TOP, CMD_COLLAPSED, CMD_FLAME, CMD_DOT, CMD_PPROF, CMD_JSON };
static const char *const commands[] = { "top", "collapsed", "flame", "dot", "pprof", "json" };

/* The profiles named on the command line, each with its symbolizer. */
struct inputs {
	jeheap_profile **p;
	jeheap_symbolizer **s;
	size_t n;
	jeheap_profile *base;
	jeheap_symbolizer *base_s;
};

static int load_inputs(struct inputs *in, char **paths, size_t n, const char *basepath,
		       const char *root)
{
	in->p = calloc(n, sizeof(*in->p));
	in->s = calloc(n, sizeof(*in->s));
	if (!in->p || !in->s) {
		fprintf(stderr, "jeheap: out of memory\n");
		return -1;
	}
	in->n = n;
	for (size_t i = 0; i < n; i++)
		if (read_profile(paths[i], &in->p[i]))
			return -1;
	if (basepath && read_profile(basepath, &in->base))
		return -1;
	int e = 0;
	for (size_t i = 0; i < n && !e; i++)
		e = jeheap_symbolizer_new(in->p[i], root, &in->s[i]);
	if (!e && in->base)
		e = jeheap_symbolizer_new(in->base, root, &in->base_s);
	if (e) {
		fprintf(stderr, "jeheap: %s\n", jeheap_strerror(e));
		return -1;
	}
	return 0;
}

static void free_inputs(struct inputs *in)
{
	for (size_t i = 0; i < in->n; i++) {
		jeheap_symbolizer_free(in->s[i]);
		jeheap_profile_free(in->p[i]);
	}
	free(in->s);
	free(in->p);
	jeheap_symbolizer_free(in->base_s);
	jeheap_profile_free(in->base);
}

/* A library error as a message and an exit code. */
static int analysis_failed(int e)
{
	fprintf(stderr, "jeheap: %s%s\n", jeheap_strerror(e),
		e == JEHEAP_EINVAL ? " (is the --focus/--ignore regex valid?)" : "");
	return e == JEHEAP_EINVAL ? EXIT_USAGE : e == JEHEAP_EIO ? EXIT_OUTPUT : EXIT_INPUT;
}

static int run(int cmd, const struct inputs *in, const struct jeheap_query *q, long limit,
	       const char *title, const struct jeheap_flame_options *flame, FILE *out)
{
	jeheap_profile *p = in->p[0];
	jeheap_symbolizer *s = in->s[0];
	jeheap_top *t = NULL;
	int e = 0;
	switch (cmd) {
	case CMD_TOP:
	case CMD_JSON:
		if ((e = jeheap_top_query(p, s, q, &t)))
			break;
		if (cmd == CMD_JSON)
			print_json(out, p, t, q, limit);
		else
			print_top(out, t, q->metric, limit);
		jeheap_top_free(t);
		break;
	case CMD_COLLAPSED: {
		struct fold_out fo = { out, in->base != NULL, limit };
		if ((e = jeheap_collapsed(p, s, q, print_folded, &fo)) == FOLD_DONE)
			e = 0;
		break;
	}
	case CMD_FLAME:
		e = jeheap_flamegraph_svg_opts(p, s, q, flame, out);
		break;
	case CMD_DOT:
		e = jeheap_dot(p, s, q, title, limit > 0 ? (size_t)limit : 0, out);
		break;
	case CMD_PPROF:
		e = jeheap_pprof(p, s, q, out);
		break;
	}
	return e ? analysis_failed(e) : 0;
}

/* The command line, parsed. */
struct args {
	int cmd;             /* enum command */
	const char *name;    /* as given */
	char **profiles;
	size_t nprofiles;
	long limit;          /* -n, or -1 */
	const char *root, *outpath, *basepath;
	const char *thread_name; /* --thread NAME, resolved in the first profile */
	struct jeheap_query q;
	struct jeheap_flame_options flame; /* --title, --subtitle, --inverted */
};

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

/* --thread NAME: the number of the thread with that name in p. */
static int resolve_thread(struct args *a, const jeheap_profile *p, const char *path)
{
	if (!a->thread_name || !jeheap_profile_thread_by_name(p, a->thread_name, &a->q.thread))
		return 0;
	fprintf(stderr,
		"jeheap: --thread '%s': no thread of %s has that name; name threads with "
		"jeattach --name-threads before dumping, or give jemalloc's thread number\n",
		a->thread_name, path);
	return -1;
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

/* Options, up to the command. Returns -1 to go on, else an exit code
 * (0 after --help or --version). */
static int parse_options(int argc, char **argv, struct args *a)
{
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
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
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
			fprintf(stderr, "jeheap: unknown option '%s'; see jeheap --help\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* The command and its profiles, and every check that needs no file: the
 * regexes (as libjeheap compiles them) before any profile is read or the
 * output file created. Returns -1 to go on, else an exit code. */
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
	if (a->cmd < 0) {
		fprintf(stderr, "jeheap: unknown command '%s'; the commands are top, collapsed, "
				"flame, dot, pprof, json\n",
			a->name);
		return EXIT_USAGE;
	}
	if (optind >= argc) {
		fprintf(stderr, "jeheap: %s needs a PROFILE (a file jeattach --dump or "
				"jemalloc's prof.dump wrote)\n",
			a->name);
		return EXIT_USAGE;
	}
	a->profiles = argv + optind;
	a->nprofiles = (size_t)(argc - optind);
	const char *res[2] = { a->q.focus, a->q.ignore };
	for (int i = 0; i < 2; i++) {
		regex_t re;
		if (!res[i])
			continue;
		if (regcomp(&re, res[i], REG_EXTENDED | REG_NOSUB)) {
			fprintf(stderr, "jeheap: --%s '%s': not a POSIX extended regular expression\n",
				i ? "ignore" : "focus", res[i]);
			return EXIT_USAGE;
		}
		regfree(&re);
	}
	if (a->cmd == CMD_PPROF && !a->outpath && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "jeheap: pprof writes gzipped binary; give -o FILE or a pipe\n");
		return EXIT_USAGE;
	}
	return -1;
}

/* Read, analyse, write. */
static int execute(struct args *a)
{
	struct inputs in = { 0 };
	FILE *out = NULL;
	int rc = 0;
	if (load_inputs(&in, a->profiles, a->nprofiles, a->basepath, a->root)) {
		rc = EXIT_INPUT;
		goto out;
	}
	if (resolve_thread(a, in.p[0], a->profiles[0])) {
		rc = EXIT_USAGE;
		goto out;
	}
	a->q.base = in.base;
	a->q.base_symbolizer = in.base_s;
	a->q.more = (const jeheap_profile *const *)in.p + 1;
	a->q.more_symbolizers = in.s + 1;
	a->q.nmore = in.n - 1;
	out = a->outpath ? fopen(a->outpath, "we") : stdout;
	if (!out) {
		fprintf(stderr, "jeheap: cannot write %s: %s\n", a->outpath, strerror(errno));
		rc = EXIT_OUTPUT;
		goto out;
	}
	a->flame.source = a->profiles[0];
	a->flame.base_source = a->basepath;
	rc = run(a->cmd, &in, &a->q, a->limit, a->profiles[0], &a->flame, out);
	warn_objects(in.s, in.n);
	warn_objects(&in.base_s, 1);
	if (ferror(out) || (a->outpath ? fclose(out) : fflush(out))) {
		fprintf(stderr, "jeheap: cannot write %s: %s\n", a->outpath ? a->outpath : "output",
			strerror(errno));
		rc = EXIT_OUTPUT;
	}
	out = NULL;
out:
	if (out && out != stdout)
		fclose(out);
	free_inputs(&in);
	return rc;
}

int main(int argc, char **argv)
{
	struct args a = { .limit = -1 };
	int rc = parse_options(argc, argv, &a);
	if (rc < 0)
		rc = parse_command(argc, argv, &a);
	return rc < 0 ? execute(&a) : rc;
}
