/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof's command line, `jeheap jeprof [options] [PROGRAM] PROFILE...` or
 * `jeheap-jeprof ...`: jeprof's spellings (its Init and GetOptions:
 * --opt=value and --opt value, a single dash too, unique abbreviations)
 * translated into jeheap's struct args and run by jeheap's one runner.
 * The options it takes are jeheap's table's jeprof rows (jeheap_table.c),
 * so its --help and completion are drawn from there too; so are jeprof's
 * other options, each refused by name with what to use instead, never
 * silently ignored. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap_cli.h"
#include "jeheap_graphviz.h"
#include "jeheap_help.h"
#include "jeheap_mistake.h"
#include "jeheap_table.h"

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

/* One of jeprof's options that jeheap refuses (the table's refused rows). */
static int refuse(const char *name)
{
	const struct jh_option_row *r = jh_option_find(name, strlen(name), JH_ON(JH_JEPROF));
	fprintf(stderr, "jeheap: jeprof's --%s is not supported: %s\n", name,
		r && r->refused ? r->refused : "jeheap has no such output");
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
	case JO_BASE:
		a->basepath = v;
		break;
	case JO_FOCUS:
		a->q.focus = v;
		break;
	case JO_IGNORE:
		a->q.ignore = v;
		break;
	case JO_RETAIN:
		a->q.retain = v;
		break;
	case JO_EXCLUDE:
		a->q.exclude = v;
		break;
	case JO_ROOT:
		a->root = v;
		break;
	case JO_LIB_PREFIX:
		return lib_prefix(v, a) ? EXIT_USAGE : -1;
	case JO_LIST:
		a->jeprof.list_re = v;
		k->modes++;
		k->mode = c;
		break;
	case JO_NODECOUNT:
		if (number("nodecount", v, 1, &x))
			return EXIT_USAGE;
		k->nodecount = (long)x;
		break;
	case JO_NODEFRACTION:
	case JO_EDGEFRACTION:
		if (number(c == JO_NODEFRACTION ? "nodefraction" : "edgefraction", v, 0, &x))
			return EXIT_USAGE;
		*(c == JO_NODEFRACTION ? &a->jeprof.node_fraction : &a->jeprof.edge_fraction) = x;
		break;
	}
	return -1;
}

/* One option. -1 to go on, else an exit code. */
static int take(int c, const char *v, struct args *a, struct counts *k)
{
	switch (c) {
	case JO_HELP:
		jh_command_usage(stdout, JH_JEPROF);
		return 0;
	case JO_VERSION:
		printf("jeheap jeprof %s (jeprof's command line)\n", PACKAGE_VERSION);
		return 0;
	case JO_CUM:
		a->jeprof.by_cum = 1;
		break;
	case JO_SHOW_BYTES:
		a->jeprof.show_bytes = 1;
		break;
	case JO_DROP_NEGATIVE:
		a->q.drop_negative = 1;
		break;
	case JO_FUNCTIONS:
	case JO_LINES:
	case JO_ADDRESSES:
		a->q.granularity = c - JO_FUNCTIONS;
		k->grains++;
		break;
	case JO_INUSE_SPACE:
	case JO_INUSE_OBJECTS:
	case JO_ALLOC_SPACE:
	case JO_ALLOC_OBJECTS:
		a->q.metric = c - JO_INUSE_SPACE;
		k->metrics++;
		break;
	case JO_TEXT:
	case JO_DOT:
	case JO_JEPROF_SVG:
	case JO_PDF:
	case JO_RAW:
	case JO_COLLAPSED:
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
		{ JO_TEXT, CMD_TOP, "--text", NULL }, { JO_DOT, CMD_DOT, "--dot", NULL },
		{ JO_JEPROF_SVG, CMD_DOT, "--svg", "svg" },  { JO_PDF, CMD_DOT, "--pdf", "pdf" },
		{ JO_RAW, CMD_RAW, "--raw", NULL },   { JO_COLLAPSED, CMD_COLLAPSED, "--collapsed", NULL },
		{ JO_LIST, CMD_LIST, "--list", NULL },
	};
	int mode = k->modes ? k->mode : JO_TEXT; /* jeprof: --text unless a tty (interactive) */
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
	/* No letters: with one-dash long options, -h would be an
	 * abbreviation of two (--help, --heapcheck). */
	struct option o[JH_MAX_OPTIONS + 1];
	char letters[JH_MAX_SHORT];
	int c, rc = -1, at = 0;
	jh_getopt_spec(JH_ON(JH_JEPROF), o, letters);
	opterr = 0;
	optind = 1;
	while (rc < 0 && (c = getopt_long_only(argc, argv, ":", o, &at)) != -1) {
		if (c == JO_REFUSED) {
			rc = refuse(o[at].name);
		} else if (c == ':') {
			fprintf(stderr, "jeheap: option %s needs a value\n", argv[optind - 1]);
			rc = EXIT_USAGE;
		} else if (c == '?') {
			rc = jh_option_mistake(argv[optind - 1], JH_ON(JH_JEPROF));
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
