/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap's one table: its commands, and every option of its three command
 * lines (the profile commands' in jeheap_main.c, jeprof's in
 * jeheap_jeprof.c, recent's in jeheap_recent.c) with the commands that
 * take it. getopt_long's options, jeheap --help, each command's --help,
 * --list-commands and --list-options (what bash completion reads) and the
 * did-you-mean of a mistake are all drawn from it, so none can disagree
 * with another (tests/integration/t_jeheap_help.sh checks them). */
#ifndef JEHEAP_TABLE_H
#define JEHEAP_TABLE_H

#include <getopt.h>
#include <stddef.h>

/* The commands, in --help's order; the first seven are enum command's
 * (jeheap_cli.h), the profile commands one parser reads. */
enum jh_command {
	JH_TOP, JH_COLLAPSED, JH_FLAME, JH_DOT, JH_PPROF, JH_JSON, JH_TREND,
	JH_JEPROF, JH_RECENT, JH_HELP, JH_NCOMMANDS
};
#define JH_ON(c) (1u << (c))
#define JH_PROFILE_COMMANDS (JH_ON(JH_TREND + 1) - 1)

/* What a value or an operand is, for bash completion. */
enum jh_value { JH_VALUE_NONE, JH_VALUE_PROFILE, JH_VALUE_RECORD, JH_VALUE_DIR, JH_VALUE_FILE,
		JH_VALUE_COMMAND };

struct jh_command_row {
	const char *name;
	const char *operands; /* after "jeheap NAME [OPTION...]": "[PROGRAM] PROFILE..." */
	enum jh_value operand;
	int own_options;      /* its options follow it, read by its own parser */
	int equals;           /* its help writes a value --name=VALUE (jeprof's way) */
	const char *help;     /* what it does, for jeheap --help */
	const char *about;    /* more, for its own --help, or NULL */
	const char *exit3;    /* what exit status 3 means for it (NULL: it has none) */
};

enum jh_arg { JH_ARG_NONE, JH_ARG_REQUIRED, JH_ARG_OPTIONAL };

/* What getopt_long returns for each option; an option two command lines
 * share has one id, so each reads it the same way. The runs of metrics,
 * granularities and trend's options are in enum jeheap_metric's,
 * enum jeheap_granularity's and jeheap_main.c's order. */
enum jh_option_id {
	JO_HELP = 'h', JO_LIMIT = 'n', JO_OUTPUT = 'o',
	JO_INUSE_SPACE = 256, JO_INUSE_OBJECTS, JO_ALLOC_SPACE, JO_ALLOC_OBJECTS,
	JO_FUNCTIONS, JO_LINES, JO_ADDRESSES,
	JO_ROOT, JO_BASE, JO_FOCUS, JO_IGNORE, JO_THREAD, JO_VERSION,
	JO_TITLE, JO_SUBTITLE, JO_INVERTED,
	JO_JSON, JO_SVG, JO_TOP, JO_MIN_FIT, JO_TIMES,
	/* jeprof's own */
	JO_TEXT, JO_DOT, JO_JEPROF_SVG, JO_PDF, JO_RAW, JO_COLLAPSED, JO_LIST, JO_RETAIN,
	JO_EXCLUDE, JO_SHOW_BYTES, JO_CUM, JO_DROP_NEGATIVE, JO_NODECOUNT, JO_NODEFRACTION,
	JO_EDGEFRACTION, JO_LIB_PREFIX,
	/* recent's own */
	JO_RECENT_TOP, JO_LIVE, JO_BY_SIZE, JO_CROSS, JO_LIFETIMES, JO_PER_STACK, JO_DEPTH,
	/* asked for by bash completion, matched whole (jeheap_main.c) */
	JO_LIST_OPTIONS, JO_LIST_COMMANDS,
	/* jeprof's options that jeheap refuses, each with what to use */
	JO_REFUSED,
};

struct jh_option_row {
	const char *name;    /* the long name, without "--", or NULL (-n, -o) */
	char letter;         /* the short option, or 0 */
	int id;              /* enum jh_option_id */
	enum jh_arg arg;
	const char *metavar; /* its value in help ("FILE") */
	unsigned commands;   /* JH_ON() of each command that takes it */
	enum jh_value value;
	int hidden;          /* in no --help, not given to getopt_long */
	const char *help;    /* one line (help wraps it) */
	/* One of jeprof's options jeheap refuses: what to use instead. Given
	 * to getopt_long (its value, if any, is taken, not read as an
	 * operand), in no help, never suggested. */
	const char *refused;
};

/* Is r in help, in --list-options and among the names a did-you-mean
 * offers? */
static inline int jh_listed(const struct jh_option_row *r)
{
	return !r->hidden && !r->refused;
}

const struct jh_command_row *jh_commands(void);
const struct jh_option_row *jh_options(size_t *n);
/* The command named name (spelled whole), or -1. */
int jh_command_find(const char *name);
/* The row named name (long, spelled whole, without dashes; up to len
 * bytes) among the rows of the commands in mask (hidden and refused ones
 * too), or NULL. */
const struct jh_option_row *jh_option_find(const char *name, size_t len, unsigned mask);

/* The row getopt_long returned id for, among the rows of the commands in
 * mask given to it, or NULL. */
const struct jh_option_row *jh_option_by_id(int id, unsigned mask);
/* Every command that takes r's option, by any row of that name (or, with
 * no name, that letter), neither hidden nor refused: --svg is trend's and
 * jeprof's, -n top's, ... and recent's. JH_ON() of each. */
unsigned jh_option_takers(const struct jh_option_row *r);

/* Room for every row of the table, and for the letters with their ':'s. */
#define JH_MAX_OPTIONS 100
#define JH_MAX_SHORT 16
/* getopt_long's options for the commands in mask (the rows not hidden),
 * into longopts (room for JH_MAX_OPTIONS + 1, terminated) and shortopts
 * (":" then the letters). Their count. */
size_t jh_getopt_spec(unsigned mask, struct option *longopts, char *shortopts);
/* The long names of the commands in mask, neither hidden nor refused (for
 * a did-you-mean), into names (room for JH_MAX_OPTIONS). Their count. */
size_t jh_option_names(unsigned mask, const char **names);

#endif
