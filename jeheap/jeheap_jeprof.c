/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof's command line, `jeheap jeprof [options] [PROGRAM] PROFILE...` or
 * `jeheap-jeprof ...`: jeprof's spellings (its Init and GetOptions:
 * --opt=value and --opt value, a single dash too, unique abbreviations)
 * translated into jeheap's struct args and run by jeheap's one runner.
 * Every other jeprof option is refused by name with what to use instead,
 * never silently ignored. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap_cli.h"
#include "jeheap_graphviz.h"

enum {
	J_HELP = 256, J_VERSION, J_CUM, J_BASE, J_LIB_PREFIX, J_FUNCTIONS, J_LINES, J_ADDRESSES,
	J_TEXT, J_DOT, J_SVG, J_PDF, J_RAW, J_COLLAPSED, J_LIST, J_NODECOUNT, J_NODEFRACTION,
	J_EDGEFRACTION, J_FOCUS, J_IGNORE, J_RETAIN, J_EXCLUDE, J_INUSE_SPACE, J_INUSE_OBJECTS,
	J_ALLOC_SPACE, J_ALLOC_OBJECTS, J_SHOW_BYTES, J_DROP_NEGATIVE, J_ROOT,
	J_UNSUPPORTED = 1000, /* + index into unsupported[] */
};

/* jeprof's other options, each with what to do instead. */
static const struct {
	const char *name;
	int has_arg;
	const char *instead;
} unsupported[] = {
	{ "web", no_argument, "use --svg > FILE.svg and open it in a browser" },
	{ "gv", no_argument, "use --pdf > FILE.pdf or --svg > FILE.svg and open it" },
	{ "evince", no_argument, "use --pdf > FILE.pdf and open it" },
	{ "ps", no_argument, "use --pdf, or --dot | dot -Tps" },
	{ "gif", no_argument, "use --dot | dot -Tgif" },
	{ "callgrind", no_argument, "use jeheap pprof -o FILE and go tool pprof -callgrind FILE" },
	{ "disasm", required_argument, "use --list=RE (source lines) or --addresses" },
	{ "symbols", no_argument, "use --addresses (jeheap top --addresses) for names of addresses" },
	{ "interactive", no_argument, "use --text, --list=RE or --svg (no interactive mode)" },
	{ "seconds", required_argument, "jeheap reads profile files, not URLs: take one with "
					 "jeattach -p PID --dump FILE" },
	{ "add_lib", required_argument, "put the library under a sysroot and give --root=DIR" },
	{ "files", no_argument, "use --lines (a row per source line)" },
	{ "maxdegree", required_argument, "use --nodecount=N and --edgefraction=F" },
	{ "scale", required_argument, "it scales --gv only; use --svg or --pdf" },
	{ "heapcheck", no_argument, "use --inuse_objects" },
	{ "thread", required_argument, "use jeheap top --thread N|NAME" },
	{ "total_delay", no_argument, "contention profiles are not heap profiles" },
	{ "contentions", no_argument, "contention profiles are not heap profiles" },
	{ "mean_delay", no_argument, "contention profiles are not heap profiles" },
	{ "tools", required_argument, "jeheap reads ELF and DWARF itself, without objdump, nm or "
				      "addr2line" },
	{ "test", no_argument, "jeheap's tests are make check" },
	{ "debug", no_argument, "jeheap has no debug output" },
	{ "debug-syms-by-id", no_argument, "jeheap always finds debug files by build id" },
	{ "test_stride", required_argument, "jeprof's own unit tests only" },
};
#define NUNSUPPORTED (sizeof(unsupported) / sizeof(unsupported[0]))

/* jeprof's usage, in jeheap's terms. */
static void usage(FILE *f)
{
	fputs("Usage: jeheap jeprof [OPTION...] [PROGRAM] PROFILE...   (or jeheap-jeprof ...)\n"
	      "jeprof's command line over jeheap: PROGRAM (an ELF file) symbolizes the\n"
	      "profile's main executable; without it the path the profile's maps name is read.\n"
	      "Output (one): --text (default) --dot --svg --pdf --collapsed --raw --list=RE\n"
	      "Rows: --functions (default) --lines --addresses\n"
	      "Values: --inuse_space (default) --inuse_objects --alloc_space --alloc_objects\n"
	      "        --show_bytes --cum --base=PROFILE --drop_negative\n"
	      "Stacks: --focus=RE --ignore=RE; frames: --exclude=RE --retain=RE\n"
	      "Graph: --nodecount=N --nodefraction=F --edgefraction=F\n"
	      "Files: --lib_prefix=DIR (a sysroot, as --root=DIR)\n"
	      "Regexes are POSIX extended. Other jeprof options are refused with what to use\n"
	      "instead (exit 2). Differences from jeprof: jeheap(1), JEPROF COMPATIBILITY.\n",
	      f);
}

static const struct option *options(void)
{
	static struct option o[64 + NUNSUPPORTED];
	static const struct option known[] = {
		{ "help", no_argument, NULL, J_HELP }, { "version", no_argument, NULL, J_VERSION },
		{ "cum", no_argument, NULL, J_CUM }, { "base", required_argument, NULL, J_BASE },
		{ "lib_prefix", required_argument, NULL, J_LIB_PREFIX },
		{ "functions", no_argument, NULL, J_FUNCTIONS }, { "lines", no_argument, NULL, J_LINES },
		{ "addresses", no_argument, NULL, J_ADDRESSES }, { "text", no_argument, NULL, J_TEXT },
		{ "dot", no_argument, NULL, J_DOT }, { "svg", no_argument, NULL, J_SVG },
		{ "pdf", no_argument, NULL, J_PDF }, { "raw", no_argument, NULL, J_RAW },
		{ "collapsed", no_argument, NULL, J_COLLAPSED },
		{ "list", required_argument, NULL, J_LIST },
		{ "nodecount", required_argument, NULL, J_NODECOUNT },
		{ "nodefraction", required_argument, NULL, J_NODEFRACTION },
		{ "edgefraction", required_argument, NULL, J_EDGEFRACTION },
		{ "focus", required_argument, NULL, J_FOCUS },
		{ "ignore", required_argument, NULL, J_IGNORE },
		{ "retain", required_argument, NULL, J_RETAIN },
		{ "exclude", required_argument, NULL, J_EXCLUDE },
		{ "inuse_space", no_argument, NULL, J_INUSE_SPACE },
		{ "inuse_objects", no_argument, NULL, J_INUSE_OBJECTS },
		{ "alloc_space", no_argument, NULL, J_ALLOC_SPACE },
		{ "alloc_objects", no_argument, NULL, J_ALLOC_OBJECTS },
		{ "show_bytes", no_argument, NULL, J_SHOW_BYTES },
		{ "drop_negative", no_argument, NULL, J_DROP_NEGATIVE },
		{ "root", required_argument, NULL, J_ROOT },
	};
	size_t n = 0;
	for (; n < sizeof(known) / sizeof(known[0]); n++)
		o[n] = known[n];
	for (size_t i = 0; i < NUNSUPPORTED; i++)
		o[n++] = (struct option){ unsupported[i].name, unsupported[i].has_arg, NULL,
					  J_UNSUPPORTED + (int)i };
	o[n] = (struct option){ NULL, 0, NULL, 0 };
	return o;
}

/* What jeprof's Init counts to refuse two output modes, two metrics or two
 * granularities ("Only specify one output mode", ...). */
struct counts {
	int modes, mode, metrics, grains;
	long nodecount;
};

/* jeprof's "nodecount=i" and "*fraction=f": 0, or an exit code. */
static int number(const char *opt, const char *v, int integer, double *out)
{
	char *end;
	errno = 0;
	*out = integer ? (double)strtol(v, &end, 10) : strtod(v, &end);
	if (!*v || *end || errno || *out < 0) {
		fprintf(stderr, "jeheap: --%s '%s': expected a %s\n", opt, v,
			integer ? "number" : "fraction (0.005)");
		return EXIT_USAGE;
	}
	return 0;
}

static int refuse(int i)
{
	fprintf(stderr, "jeheap: jeprof's --%s is not supported: %s\n", unsupported[i].name,
		unsupported[i].instead);
	return EXIT_USAGE;
}

/* --lib_prefix: jeprof's prefixes for library paths (FindLibrary). One
 * directory is jeheap's sysroot; several are refused, not half-applied. */
static int lib_prefix(const char *v, struct args *a)
{
	if (strchr(v, ',')) {
		fprintf(stderr, "jeheap: --lib_prefix '%s': jeheap takes one directory (a sysroot "
				"the profile's paths are found under), not a list\n",
			v);
		return EXIT_USAGE;
	}
	a->root = v;
	return 0;
}

/* The value options. -1 to go on, else an exit code. */
static int take_value(int c, const char *v, struct args *a, struct counts *k)
{
	double x;
	switch (c) {
	case J_BASE:
		a->basepath = v;
		break;
	case J_FOCUS:
		a->q.focus = v;
		break;
	case J_IGNORE:
		a->q.ignore = v;
		break;
	case J_RETAIN:
		a->q.retain = v;
		break;
	case J_EXCLUDE:
		a->q.exclude = v;
		break;
	case J_ROOT:
		a->root = v;
		break;
	case J_LIB_PREFIX:
		return lib_prefix(v, a) ? EXIT_USAGE : -1;
	case J_LIST:
		a->jeprof.list_re = v;
		k->modes++;
		k->mode = c;
		break;
	case J_NODECOUNT:
		if (number("nodecount", v, 1, &x))
			return EXIT_USAGE;
		k->nodecount = (long)x;
		break;
	case J_NODEFRACTION:
	case J_EDGEFRACTION:
		if (number(c == J_NODEFRACTION ? "nodefraction" : "edgefraction", v, 0, &x))
			return EXIT_USAGE;
		*(c == J_NODEFRACTION ? &a->jeprof.node_fraction : &a->jeprof.edge_fraction) = x;
		break;
	}
	return -1;
}

/* One option. -1 to go on, else an exit code. */
static int take(int c, const char *v, struct args *a, struct counts *k)
{
	if (c >= J_UNSUPPORTED)
		return refuse(c - J_UNSUPPORTED);
	switch (c) {
	case J_HELP:
		usage(stdout);
		return 0;
	case J_VERSION:
		printf("jeheap jeprof %s (jeprof's command line)\n", PACKAGE_VERSION);
		return 0;
	case J_CUM:
		a->jeprof.by_cum = 1;
		break;
	case J_SHOW_BYTES:
		a->jeprof.show_bytes = 1;
		break;
	case J_DROP_NEGATIVE:
		a->q.drop_negative = 1;
		break;
	case J_FUNCTIONS:
	case J_LINES:
	case J_ADDRESSES:
		a->q.granularity = c - J_FUNCTIONS;
		k->grains++;
		break;
	case J_INUSE_SPACE:
	case J_INUSE_OBJECTS:
	case J_ALLOC_SPACE:
	case J_ALLOC_OBJECTS:
		a->q.metric = c - J_INUSE_SPACE;
		k->metrics++;
		break;
	case J_TEXT:
	case J_DOT:
	case J_SVG:
	case J_PDF:
	case J_RAW:
	case J_COLLAPSED:
		k->modes++;
		k->mode = c;
		break;
	default:
		return take_value(c, v, a, k);
	}
	return -1;
}

/* jeprof's checks (Init's usage() calls), then the command to run. */
static int choose(struct args *a, const struct counts *k)
{
	const char *why = k->modes > 1 ? "Only specify one output mode" :
			  k->metrics > 1 ? "Specify at most one of --inuse/--alloc options" :
			  k->grains > 1 ? "Only specify one output granularity option" : NULL;
	if (why) {
		fprintf(stderr, "jeheap: %s\n", why);
		return EXIT_USAGE;
	}
	static const struct { int mode, cmd; const char *name, *graphviz; } modes[] = {
		{ J_TEXT, CMD_TOP, "--text", NULL }, { J_DOT, CMD_DOT, "--dot", NULL },
		{ J_SVG, CMD_DOT, "--svg", "svg" },  { J_PDF, CMD_DOT, "--pdf", "pdf" },
		{ J_RAW, CMD_RAW, "--raw", NULL },   { J_COLLAPSED, CMD_COLLAPSED, "--collapsed", NULL },
		{ J_LIST, CMD_LIST, "--list", NULL },
	};
	int mode = k->modes ? k->mode : J_TEXT; /* jeprof: --text unless a tty (interactive) */
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (modes[i].mode == mode) {
			a->cmd = modes[i].cmd;
			a->name = modes[i].name;
			a->jeprof.graphviz = modes[i].graphviz;
		}
	a->jeprof.on = a->cmd == CMD_TOP;
	/* --nodecount is the graph's (PrintDot); --text prints every row */
	a->limit = a->cmd == CMD_DOT ? k->nodecount : -1;
	if (a->jeprof.graphviz && !graphviz_find()) {
		fprintf(stderr, "jeheap: %s needs graphviz's dot, not found in $PATH (install "
				"graphviz), or use --dot and render it elsewhere\n",
			a->name);
		return EXIT_USAGE;
	}
	return -1;
}

int jeheap_jeprof_main(int argc, char **argv)
{
	struct args a = { .limit = -1 };
	struct counts k = { .nodecount = 80 };
	a.jeprof.node_fraction = 0.005;
	a.jeprof.edge_fraction = 0.001;
	const struct option *o = options();
	int c, rc = -1;
	opterr = 0;
	optind = 1;
	while (rc < 0 && (c = getopt_long_only(argc, argv, ":", o, NULL)) != -1) {
		if (c == ':') {
			fprintf(stderr, "jeheap: option %s needs a value\n", argv[optind - 1]);
			rc = EXIT_USAGE;
		} else if (c == '?') {
			fprintf(stderr, "jeheap: '%s' is not a jeprof option; see jeheap jeprof --help\n",
				argv[optind - 1]);
			rc = EXIT_USAGE;
		} else {
			rc = take(c, optarg, &a, &k);
		}
	}
	if (rc < 0)
		rc = choose(&a, &k);
	if (rc < 0)
		rc = jeheap_operands(argc, argv, optind, &a);
	return rc < 0 ? jeheap_execute(&a) : rc;
}
