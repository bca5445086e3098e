/* SPDX-License-Identifier: BSD-2-Clause */
/* What jeheap's two command lines (its own in jeheap_main.c, jeprof's in
 * jeheap_jeprof.c) parse into, and the one runner both hand it to
 * (jeheap_run.c). */
#ifndef JEHEAP_CLI_H
#define JEHEAP_CLI_H

#include <stddef.h>
#include "jeheap.h"

enum { EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_OUTPUT = 4 };

/* The profile commands in jeheap_table.h's order (enum jh_command's
 * first seven), then what jeprof's --raw and --list run. */
enum command { CMD_TOP, CMD_COLLAPSED, CMD_FLAME, CMD_DOT, CMD_PPROF, CMD_JSON, CMD_TREND,
	       CMD_RAW, CMD_LIST };

/* trend's own options. */
struct trend_opts {
	int json, svg;      /* --json; --svg (or -o FILE.svg) */
	long top;           /* --top N, or 0: text and SVG 10, JSON all */
	double min_fit;     /* --min-fit, once trend_operands set its default */
	int min_fit_given;
	const char *times;  /* --times T,T,...: one per dump, in seconds */
};

/* How the jeprof mode differs in what it writes. */
struct jeprof_style {
	int on;         /* --text as jeprof: "Total:" of the whole, none at 0 */
	int by_cum;     /* --cum */
	int show_bytes; /* --show_bytes */
	const char *graphviz; /* "svg" or "pdf": dot through graphviz; NULL: text */
	const char *list_re;  /* --list */
	double node_fraction, edge_fraction;
};

/* The command line, parsed. */
struct args {
	int cmd;             /* enum command */
	const char *name;    /* as given */
	char **profiles;
	size_t nprofiles;
	long limit;          /* -n, or -1 */
	const char *root, *outpath, *basepath;
	const char *thread_name; /* --thread NAME, resolved in the first profile */
	const char *program; /* an ELF file to read the main executable from */
	struct jeheap_query q;
	struct jeheap_flame_options flame; /* --title, --subtitle, --inverted */
	struct jeprof_style jeprof;
	struct trend_opts trend;
};

/* The operands from argv[i] on: a leading PROGRAM (an ELF file, by its
 * magic), then the profiles; the regexes checked. -1 to go on, else an
 * exit code. */
int jeheap_operands(int argc, char **argv, int i, struct args *a);
/* Read, analyse, write: an exit code. */
int jeheap_execute(struct args *a);
/* jeprof's command line (jeheap_jeprof.c), argv[0] its name: an exit
 * code. */
int jeheap_jeprof_main(int argc, char **argv);

#endif
