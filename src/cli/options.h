/* SPDX-License-Identifier: BSD-2-Clause */
/* The command line, parsed and validated before any target is touched. */
#ifndef JEATTACH_OPTIONS_H
#define JEATTACH_OPTIONS_H

#include <stdio.h>
#include <sys/types.h>
#include "act.h"

#define OPT_MAX_ACTIONS 64 /* as given on the command line */
#define OPT_MAX_COUNT 1000 /* --count */
#define OPT_MAX_PIDS 4096
/* Processes one --prometheus follows (cli_export.c): each costs a hold and
 * a /proc scan of its threads per interval. */
#define OPT_MAX_EXPORT 256
#define OPT_MAX_FRAG_OUT 2 /* --frag-out: one .json, one .svg */
#define OPT_MAX_RECENT ACT_RECENT_MAX /* --recent N */
#define OPT_DEFAULT_MAX_DUMP ACT_DEFAULT_MAX_DUMP /* --max-dump */
#define OPT_MAX_KEEP 1000000               /* --keep N */
#define OPT_MAX_KEEP_BYTES (1ULL << 50)    /* --keep-bytes: 1024T */

struct options {
	pid_t pids[OPT_MAX_PIDS];
	int npids;
	const char *all_name; /* --all NAME: the CLI fills pids */
	/* The actions as given, in order; plan_build expands them (--for,
	 * --every) into the steps jeattach runs. */
	struct act *actions;
	int nactions;
	int64_t for_us, every_us; /* --for, --every; 0 if not given */
	long count;               /* --count */
	int baseline;             /* --baseline */
	int symbolize;            /* --symbolize */
	int force;                /* --force: a dump may replace a file */
	/* --dump DIR/ (keep.dir, NULL if none), --keep N, --keep-bytes SIZE;
	 * the dump steps point at it */
	struct act_keep keep;
	long recent;              /* --recent N: 0 if not given */
	const char *recent_out;   /* --recent-out FILE, or NULL: an automatic name */
	int sample;               /* --sample */
	uint64_t sample_rate;     /* --sample-rate BYTES: 0 if not given */
	enum act_rearm rearm;     /* --no-rearm, --discard-samples */
	const char *prefix; /* --prefix, or NULL: try the known ones */
	pid_t tid;          /* --tid: borrow this thread (0: any at a safe point) */
	double timeout_s;   /* --timeout, per target */
	uint64_t max_dump;  /* --max-dump: the largest profile accepted, bytes */
	/* --top, --prometheus FILE, --interval: a live view (cli_top.c) */
	int top;
	const char *prometheus;
	int64_t interval_us;
	/* --frag's heap profile (--frag-profile) and files (--frag-out,
	 * FILE.json or FILE.svg, each at most once per kind) */
	const char *frag_profile;
	const char *frag_out[OPT_MAX_FRAG_OUT];
	int nfrag_out;
	int json, verbose, quiet;
	int help, version;
	int list_options; /* --list-options: what bash completion reads */
	int list_controls; /* --list-controls: the completions' mallctl names */
};

/* 0, or -1 with a one-line message (no program name) in err. */
int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen);
void options_free(struct options *o);
/* "30s", "5m", "1h", "250ms", or plain seconds; -1 if not a duration. */
int64_t options_duration_us(const char *text);
/* "512M", "8G", "4096" (bytes; K M G T are powers of 1024); 0 if not a
 * size or 0. */
uint64_t options_size(const char *text);

/* The option table. One row per option; the getopt_long spec, --help and
 * --list-options (for bash completion) are all drawn from it. */
enum options_arg {
	OPTIONS_ARG_NONE,
	OPTIONS_ARG_REQUIRED,      /* --name VALUE, --name=VALUE */
	OPTIONS_ARG_OPTIONAL,      /* --name, --name=VALUE */
	OPTIONS_ARG_OPTIONAL_NEXT, /* also --name VALUE if VALUE is no option (--dump FILE) */
};

enum options_section { /* in --help's order */
	OPTIONS_SEC_ACTIONS,
	OPTIONS_SEC_OVER_TIME,
	OPTIONS_SEC_OPTIONS,
	OPTIONS_SEC_HIDDEN, /* not in --help (--list-options) */
};

/* How the row's name sits in --help. */
enum options_line {
	OPTIONS_LINE_OWN,  /* a line of its own, with its help */
	OPTIONS_LINE_OR,   /* on the line above, an alternative ("--purge, --decay") */
	OPTIONS_LINE_WITH, /* on the line above, used with it ("--every INTERVAL --count N") */
};

/* What completes the value. */
enum options_value {
	OPTIONS_VALUE_NONE,    /* no value, or one nothing can suggest (a duration) */
	OPTIONS_VALUE_PID,     /* pids of processes that map jemalloc, comma-separated */
	OPTIONS_VALUE_PROCESS, /* names of such processes */
	OPTIONS_VALUE_PROFILE, /* heap profile files */
	OPTIONS_VALUE_CONTROL, /* mallctl names */
	OPTIONS_VALUE_WORDS,   /* one of the row's words */
	OPTIONS_VALUE_PROM,    /* a node_exporter textfile (*.prom) */
};

struct options_parse_state;

struct options_row {
	const char *name;          /* the long name, without "--" */
	char letter;               /* the short option, or 0 */
	int id;                    /* what getopt_long returns for it */
	enum options_arg arg;
	const char *metavar;       /* the value in --help ("FILE") unless words are shown */
	const char *words;         /* the values it takes, space-separated ("on off"), or NULL */
	enum options_section section;
	enum options_line line;
	const char *help;          /* its --help text, lines separated by '\n' */
	enum options_value value;
	/* What it does: 0, -1 with the message set, or 1 to end the parse
	 * there (--help, --version, --list-options). */
	int (*take)(struct options *o, int id, const char *arg, struct options_parse_state *ps);
};

const struct options_row *options_table(size_t *nrows);
void options_usage(FILE *f);
/* --list-options: one line per option --help lists, for bash completion:
 * "--NAME -L|- none|required|optional|optional-next VALUE [WORD...]",
 * VALUE one of none, pid, process, profile, control, words, prom. */
void options_list(FILE *f);
/* --list-controls: the mallctl names --get and --set take, one a line,
 * from rctl's table (what the completions offer after --get, --set). */
void options_list_controls(FILE *f);

#endif
