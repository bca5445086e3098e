/* SPDX-License-Identifier: BSD-2-Clause */
/* What jeattach's option table (options.c) tells a reader: --help, and
 * the --list-options bash completion reads. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "options.h"

static const char usage_head[] =
	"Usage: jeattach (-p PID[,PID...] | --all NAME[,NAME...]) ACTION... [OPTION...]\n"
	"Control jemalloc heap profiling in a running process, from outside.\n";

static const char *const section_titles[] = {
	[OPTIONS_SEC_ACTIONS] = "Actions (run in the order given, under one attach):",
	[OPTIONS_SEC_OVER_TIME] = "Over time (the target is not held while jeattach waits):",
	[OPTIONS_SEC_OPTIONS] = "Options:",
};

static const char usage_tail[] =
	"The target must have been started with MALLOC_CONF=prof:true,prof_active:false\n"
	"for profiling (--stats and other controls work without it).\n"
	"Exit codes: 0 ok, 1 internal, 2 usage, 3 no such process, 4 permission,\n"
	"5 no jemalloc, 6 profiling not enabled, 7 mallctl refused, 8 output file,\n"
	"9 timeout, 10 unsafe target state, 11 some targets failed. See jeattach(1).\n";

/* Help text starts in this column. A name too long for it pushes its help
 * to a second column, two after the longest such name, shared by all of
 * them (the layout the hand-written text had, kept byte for byte). */
#define HELP_COLUMN 24

/* "--gdump=on|off", "--stats[=full]", "--dump [FILE]", "--get NAME". */
static void synopsis(const struct options_row *r, char *buf, size_t len)
{
	char value[64];
	snprintf(value, sizeof(value), "%s", r->words ? r->words : r->metavar ? r->metavar : "");
	for (char *p = value; *p; p++)
		if (*p == ' ')
			*p = '|';
	static const char *const forms[][2] = {
		[OPTIONS_ARG_NONE] = { "", "" },
		[OPTIONS_ARG_REQUIRED] = { " ", "" },
		[OPTIONS_ARG_OPTIONAL] = { "[=", "]" },
		[OPTIONS_ARG_OPTIONAL_NEXT] = { " [", "]" },
	};
	const char *open = forms[r->arg][0];
	if (r->arg == OPTIONS_ARG_REQUIRED && r->words)
		open = "="; /* a choice reads as an assignment */
	snprintf(buf, len, "--%s%s%s%s", r->name, open, r->arg ? value : "", forms[r->arg][1]);
}

static int section_has_letters(const struct options_row *rows, size_t nrows, enum options_section s)
{
	for (size_t i = 0; i < nrows; i++)
		if (rows[i].section == s && rows[i].letter)
			return 1;
	return 0;
}

/* Row i's left column: its letter (in a section that has letters), its
 * synopsis, and those of the rows shown on its line. */
static void left_column(const struct options_row *rows, size_t nrows, size_t i, char *buf,
			size_t len)
{
	const struct options_row *r = &rows[i];
	char syn[128];
	synopsis(r, syn, sizeof(syn));
	if (!section_has_letters(rows, nrows, r->section))
		snprintf(buf, len, "  %s", syn);
	else if (r->letter)
		snprintf(buf, len, "  -%c, %s", r->letter, syn);
	else
		snprintf(buf, len, "      %s", syn);
	for (size_t k = i + 1; k < nrows && rows[k].line != OPTIONS_LINE_OWN; k++) {
		size_t n = strlen(buf);
		synopsis(&rows[k], syn, sizeof(syn));
		const char *sep = rows[k].line == OPTIONS_LINE_OR ? ", " : " ";
		snprintf(buf + n, len - n, "%s%s", sep, syn);
	}
}

static int second_column(const struct options_row *rows, size_t nrows)
{
	size_t col = 0;
	char left[256];
	for (size_t i = 0; i < nrows; i++) {
		if (rows[i].section == OPTIONS_SEC_HIDDEN || rows[i].line != OPTIONS_LINE_OWN)
			continue;
		left_column(rows, nrows, i, left, sizeof(left));
		if (strlen(left) >= HELP_COLUMN && strlen(left) + 2 > col)
			col = strlen(left) + 2;
	}
	return (int)col;
}

static void help_row(FILE *f, const struct options_row *rows, size_t nrows, size_t i, int col2)
{
	char left[256];
	left_column(rows, nrows, i, left, sizeof(left));
	int len = (int)strlen(left);
	int col = len < HELP_COLUMN ? HELP_COLUMN : col2;
	fprintf(f, "%-*s", col, left);
	const char *line = rows[i].help;
	for (;;) {
		size_t n = strcspn(line, "\n");
		fprintf(f, "%.*s\n", (int)n, line);
		if (!line[n])
			break;
		line += n + 1;
		fprintf(f, "%*s", HELP_COLUMN, ""); /* a continuation line */
	}
}

void options_usage(FILE *f)
{
	size_t nrows;
	const struct options_row *rows = options_table(&nrows);
	int col2 = second_column(rows, nrows);
	fputs(usage_head, f);
	for (enum options_section s = OPTIONS_SEC_ACTIONS; s < OPTIONS_SEC_HIDDEN; s++) {
		fprintf(f, "\n%s\n", section_titles[s]);
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].section == s && rows[i].line == OPTIONS_LINE_OWN)
				help_row(f, rows, nrows, i, col2);
	}
	fputc('\n', f);
	fputs(usage_tail, f);
}

void options_list(FILE *f)
{
	static const char *const args[] = { "none", "required", "optional", "optional-next" };
	static const char *const values[] = { "none", "pid", "process", "profile", "control",
					      "words", "prom" };
	size_t nrows;
	const struct options_row *rows = options_table(&nrows);
	for (size_t i = 0; i < nrows; i++) {
		const struct options_row *r = &rows[i];
		char letter[3] = "-";
		if (r->section == OPTIONS_SEC_HIDDEN)
			continue;
		if (r->letter)
			snprintf(letter, sizeof(letter), "-%c", r->letter);
		fprintf(f, "--%s %s %s %s%s%s\n", r->name, letter, args[r->arg], values[r->value],
			r->words ? " " : "", r->words ? r->words : "");
	}
}

/* A control --get or --set takes (options.c's check_get, check_set):
 * readable without effect, or writable, and not prof.dump (--dump's). */
static void list_control(const char *name, enum rctl_type type, enum rctl_access access, void *arg)
{
	(void)type;
	if (((access & RCTL_R) && !(access & RCTL_EFFECT)) ||
	    ((access & RCTL_W) && strcmp(name, "prof.dump")))
		fprintf(arg, "%s\n", name);
}

void options_list_controls(FILE *f)
{
	rctl_foreach(list_control, f);
}
