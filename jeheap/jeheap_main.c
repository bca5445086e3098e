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
#include "jeheap_cli.h"
#include "jeheap_graphviz.h"
#include "jeheap_list.h"
#include "jeheap_program.h"
#include "jeheap_raw.h"
#include "jeheap_text.h"

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
       O_BASE, O_FOCUS, O_IGNORE, O_THREAD, O_FUNCTIONS, O_LINES, O_ADDRESSES };

void jeheap_usage(FILE *f)
{
	fputs("Usage: jeheap top|collapsed|flame|dot|pprof|json [OPTION...] [PROGRAM] PROFILE...\n"
	      "       jeheap jeprof [JEPROF-OPTION...] [PROGRAM] PROFILE...   (or as jeheap-jeprof)\n"
	      "Analyse jemalloc heap profiles (jemalloc 4+ heap_v2, 3.x/gperftools one-line,\n"
	      "jeprof's symbolized form). Several profiles are added together. PROGRAM, an\n"
	      "ELF file before the profiles (as jeprof takes one), is read for the main\n"
	      "executable's symbols instead of the path the profile's maps name.\n"
	      "\n"
	      "Commands:\n"
	      "  top                   functions by memory, as `jeprof --text` prints them\n"
	      "  collapsed             folded stacks for flamegraph.pl, speedscope, inferno\n"
	      "                        (with --base: flamegraph's difffolded form)\n"
	      "  flame                 a self-contained interactive SVG flame graph\n"
	      "                        (with --base: a differential one, red grew, blue shrank)\n"
	      "  dot                   a graphviz call graph (as jeprof --dot; -n: nodes, default 80)\n"
	      "  pprof                 pprof's profile.proto, gzipped, for go tool pprof,\n"
	      "                        Pyroscope, ... (binary: needs -o or a pipe)\n"
	      "  json                  top as one JSON object (values un-sampled, not rounded)\n"
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

static const char *const commands[] = { "top", "collapsed", "flame", "dot", "pprof", "json" };

/* The profiles named on the command line, each with its symbolizer. */
struct inputs {
	jeheap_profile **p;
	jeheap_symbolizer **s;
	size_t n;
	jeheap_profile *base;
	jeheap_symbolizer *base_s;
};

static int load_inputs(struct inputs *in, const struct args *a)
{
	char **paths = a->profiles;
	size_t n = a->nprofiles;
	const char *basepath = a->basepath, *root = a->root;
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
	/* jeprof reads every profile's (and the base's) main executable from
	 * its one PROGRAM */
	for (size_t i = 0; a->program && i < n; i++)
		if (use_program(in->s[i], a->program))
			return -1;
	if (a->program && in->base_s && use_program(in->base_s, a->program))
		return -1;
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

/* top and json, and jeprof --text: the table. */
static int run_top(const struct args *a, const struct inputs *in, FILE *out)
{
	jeheap_top *t = NULL;
	int e = jeheap_top_query(in->p[0], in->s[0], &a->q, &t);
	struct top_style st = { a->q.metric, a->jeprof.show_bytes, a->jeprof.by_cum, a->limit,
				a->jeprof.on, 0 };
	if (!e && a->jeprof.on)
		e = jeheap_query_total(in->p[0], &a->q, &st.whole_total);
	if (!e && a->cmd == CMD_JSON)
		print_json(out, in->p[0], t, &a->q, a->limit);
	else if (!e && print_top(out, t, &st))
		e = JEHEAP_ENOMEM;
	jeheap_top_free(t);
	return e ? analysis_failed(e) : 0;
}

/* dot, and jeprof --svg/--pdf through graphviz. */
static int run_dot(const struct args *a, const struct inputs *in, FILE *out)
{
	const struct jeheap_dot_options o = { a->limit > 0 ? (size_t)a->limit : 0,
					      a->jeprof.node_fraction, a->jeprof.edge_fraction };
	struct graphviz g;
	int rc = 0;
	if (a->jeprof.graphviz && (rc = graphviz_start(&g, a->jeprof.graphviz, out)))
		return rc;
	int e = jeheap_dot_opts(in->p[0], in->s[0], &a->q, a->profiles[0], &o,
				a->jeprof.graphviz ? g.in : out);
	if (a->jeprof.graphviz)
		rc = graphviz_finish(&g);
	return e ? analysis_failed(e) : rc;
}

static int run(const struct args *a, const struct inputs *in, FILE *out)
{
	jeheap_profile *p = in->p[0];
	jeheap_symbolizer *s = in->s[0];
	const struct jeheap_query *q = &a->q;
	int e = 0;
	switch (a->cmd) {
	case CMD_TOP:
	case CMD_JSON:
		return run_top(a, in, out);
	case CMD_DOT:
		return run_dot(a, in, out);
	case CMD_RAW:
		return write_raw(a->profiles[0], p, s, a->program, out);
	case CMD_LIST:
		return print_listing(out, p, s, q, a->jeprof.list_re, a->jeprof.show_bytes);
	case CMD_COLLAPSED: {
		struct fold_out fo = { out, in->base != NULL, a->limit };
		if ((e = jeheap_collapsed(p, s, q, print_folded, &fo)) == FOLD_DONE)
			e = 0;
		break;
	}
	case CMD_FLAME:
		e = jeheap_flamegraph_svg(p, s, q, a->profiles[0], out);
		break;
	case CMD_PPROF:
		e = jeheap_pprof(p, s, q, out);
		break;
	}
	return e ? analysis_failed(e) : 0;
}

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
			jeheap_usage(stdout);
			return 0;
		case O_VERSION:
			printf("jeheap %s (libjeheap %s; DWARF lines and inlined frames: %s; "
			       "C++ demangling: %s)\n",
			       PACKAGE_VERSION, jeheap_version(), HAVE_LIBDW_WORD, HAVE_DEMANGLE_WORD);
			return 0;
		case ':':
			fprintf(stderr, "jeheap: option %s needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "jeheap: unknown option '%s'; see jeheap --help\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	return -1;
}

/* The operands: a leading PROGRAM, the profiles; then every check that
 * needs no file: the regexes (as libjeheap compiles them) before any
 * profile is read or the output file created. */
int jeheap_operands(int argc, char **argv, int i, struct args *a)
{
	/* jeprof's PROGRAM PROFILE...: an ELF file first, profiles after */
	if (argc - i >= 2 && is_program(argv[i]))
		a->program = argv[i++];
	if (i >= argc) {
		fprintf(stderr, "jeheap: %s needs a PROFILE (a file jeattach --dump or "
				"jemalloc's prof.dump wrote)\n",
			a->name);
		return EXIT_USAGE;
	}
	a->profiles = argv + i;
	a->nprofiles = (size_t)(argc - i);
	static const char *const what[] = { "focus", "ignore", "exclude", "retain", "list" };
	const char *res[] = { a->q.focus, a->q.ignore, a->q.exclude, a->q.retain,
			      a->jeprof.list_re };
	for (size_t k = 0; k < sizeof(res) / sizeof(res[0]); k++) {
		regex_t re;
		if (!res[k])
			continue;
		if (regcomp(&re, res[k], REG_EXTENDED | REG_NOSUB)) {
			fprintf(stderr, "jeheap: --%s '%s': not a POSIX extended regular expression\n",
				what[k], res[k]);
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
	if (a->cmd < 0) {
		fprintf(stderr, "jeheap: unknown command '%s'; the commands are top, collapsed, "
				"flame, dot, pprof, json, jeprof\n",
			a->name);
		return EXIT_USAGE;
	}
	return jeheap_operands(argc, argv, optind, a);
}

/* Read, analyse, write. */
int jeheap_execute(struct args *a)
{
	struct inputs in = { 0 };
	FILE *out = NULL;
	int rc = 0;
	if (load_inputs(&in, a)) {
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
	rc = run(a, &in, out);
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
	/* jeheap-jeprof ARGS, or jeheap jeprof ARGS: jeprof's command line,
	 * so that a script switches from jeprof by one word */
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (!strcmp(base, "jeheap-jeprof"))
		return jeheap_jeprof_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "jeprof"))
		return jeheap_jeprof_main(argc - 1, argv + 1);
	struct args a = { .limit = -1 };
	a.jeprof.node_fraction = 0.005;
	a.jeprof.edge_fraction = 0.001;
	int rc = parse_options(argc, argv, &a);
	if (rc < 0)
		rc = parse_command(argc, argv, &a);
	return rc < 0 ? jeheap_execute(&a) : rc;
}
