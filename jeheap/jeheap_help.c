/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap's help and completion lists, drawn from its table: a command's
 * help lists the rows that name it, jeheap --help the profile commands'
 * (each marked with the commands it is for, when not all), so no help
 * text is written twice and none lists an option its parser lacks. Rows
 * hold one line of help each; it is wrapped here to 79 columns. */
#include "config.h"

#include <string.h>
#include "jeheap_cli.h"
#include "jeheap_help.h"
#include "jeheap_mistake.h"
#include "jeheap_table.h"

/* Help text starts in this column (the hand-written help's), unless the
 * option's synopsis is wider: then on the next line. */
#define HELP_COLUMN 24
#define WIDTH 79

static const char preamble[] =
	"Analyse jemalloc heap profiles (jemalloc 4+ heap_v2, 3.x/gperftools one-line, "
	"jeprof's symbolized form). Several profiles are added together. PROGRAM, an ELF "
	"file before the profiles (as jeprof takes one), is read for the main executable's "
	"symbols instead of the path the profile's maps name.";

/* text from column at (the cursor is there), wrapped, the lines after the
 * first indented by indent; then a newline. */
static void wrap(FILE *f, const char *text, int at, int indent)
{
	int first = 1;
	for (const char *p = text; *p;) {
		int w = (int)strcspn(p, " ");
		if (!first && at + 1 + w > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			at = indent;
		} else if (!first) {
			fputc(' ', f);
			at++;
		}
		fprintf(f, "%.*s", w, p);
		at += w;
		first = 0;
		for (p += w; *p == ' '; p++)
			;
	}
	fputc('\n', f);
}

/* "  NAME" then text in the help column. */
static void item(FILE *f, const char *left, const char *text)
{
	int n = fprintf(f, "  %s", left);
	if (n + 2 > HELP_COLUMN) {
		fprintf(f, "\n%*s", HELP_COLUMN, "");
		n = HELP_COLUMN;
	}
	fprintf(f, "%*s", HELP_COLUMN - n, "");
	wrap(f, text, HELP_COLUMN, HELP_COLUMN);
}

/* "-h, --help", "-n N", "--base FILE", "--list=RE" (equals), "--top [N]". */
static void synopsis(const struct jh_option_row *r, int equals, char *buf, size_t len)
{
	const char *sep = r->arg == JH_ARG_NONE ? "" : equals && r->name ? "=" : " ";
	int n;
	if (r->letter && r->name)
		n = snprintf(buf, len, "-%c, --%s", r->letter, r->name);
	else if (r->name)
		n = snprintf(buf, len, "--%s", r->name);
	else
		n = snprintf(buf, len, "-%c", r->letter);
	if (r->arg == JH_ARG_OPTIONAL)
		snprintf(buf + n, len - (size_t)n, " [%s]", r->metavar);
	else if (r->arg == JH_ARG_REQUIRED)
		snprintf(buf + n, len - (size_t)n, "%s%s", sep, r->metavar);
}

/* "trend: ", "flame, trend: ", "not trend: ", or "" when a row is for
 * every profile command. */
static void owners(unsigned commands, char *buf, size_t len)
{
	const struct jh_command_row *c = jh_commands();
	unsigned mine = commands & JH_PROFILE_COMMANDS;
	int k = __builtin_popcount(mine), negate = k > (JH_TREND + 1) / 2;
	*buf = 0;
	if (mine == JH_PROFILE_COMMANDS)
		return;
	for (int i = 0, said = 0; i <= JH_TREND; i++) {
		if (!(mine & JH_ON(i)) == !negate)
			continue;
		size_t n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s", said++ ? ", " : negate ? "not " : "", c[i].name);
	}
	size_t n = strlen(buf);
	snprintf(buf + n, len - n, ": ");
}

/* The rows of the commands in mask; marked with their commands (owners)
 * in jeheap --help. */
static void option_rows(FILE *f, unsigned mask, int equals, int mark)
{
	size_t n;
	const struct jh_option_row *r = jh_options(&n);
	char left[64], text[512], who[128] = "";
	for (size_t i = 0; i < n; i++) {
		if (!(r[i].commands & mask) || !jh_listed(&r[i]))
			continue;
		synopsis(&r[i], equals, left, sizeof(left));
		if (mark)
			owners(r[i].commands, who, sizeof(who));
		snprintf(text, sizeof(text), "%s%s", who, r[i].help);
		item(f, left, text);
	}
}

static int has_options(int cmd)
{
	size_t n;
	const struct jh_option_row *r = jh_options(&n);
	for (size_t i = 0; i < n; i++)
		if ((r[i].commands & JH_ON(cmd)) && jh_listed(&r[i]))
			return 1;
	return 0;
}

/* "Usage: jeheap top|collapsed|... [OPTION...] [PROGRAM] PROFILE...": the
 * commands from..to, alike, on one line. */
static void usage_line(FILE *f, const char *lead, int from, int to)
{
	const struct jh_command_row *c = jh_commands();
	char text[256] = "jeheap ";
	for (int i = from; i <= to; i++) {
		size_t n = strlen(text);
		snprintf(text + n, sizeof(text) - n, "%s%s", i > from ? "|" : "", c[i].name);
	}
	size_t n = strlen(text);
	snprintf(text + n, sizeof(text) - n, "%s %s", has_options(from) ? " [OPTION...]" : "",
		 c[from].operands);
	int at = fprintf(f, "%s", lead);
	wrap(f, text, at, at + (int)strlen("jeheap ") + 2);
}

/* "Exit codes: 0 ok, 2 usage, 3 WHAT, 4 output error." for the commands
 * in mask: WHAT the first's meaning of 3, the others' where they differ. */
static void exit_codes(FILE *f, unsigned mask)
{
	const struct jh_command_row *c = jh_commands();
	char text[1024], others[768] = "";
	const char *first = NULL;
	for (int i = 0; i < JH_NCOMMANDS; i++) {
		size_t n = strlen(others);
		if (!(mask & JH_ON(i)) || !c[i].exit3)
			continue;
		if (!first)
			first = c[i].exit3;
		else if (strcmp(first, c[i].exit3))
			snprintf(others + n, sizeof(others) - n, "%s%s: %s", n ? "; " : "", c[i].name,
				 c[i].exit3);
	}
	if (!first)
		snprintf(text, sizeof(text), "Exit codes: 0 ok, 2 usage.");
	else
		snprintf(text, sizeof(text), "Exit codes: 0 ok, 2 usage, 3 %s%s%s%s, 4 output error.",
			 first, *others ? " (" : "", others, *others ? ")" : "");
	wrap(f, text, 0, 0);
}

void jh_usage(FILE *f)
{
	const struct jh_command_row *c = jh_commands();
	for (int i = 0, j; i < JH_NCOMMANDS; i = j + 1) {
		for (j = i; j + 1 < JH_NCOMMANDS && !c[j + 1].own_options &&
			    !strcmp(c[j + 1].operands, c[i].operands);
		     j++)
			;
		usage_line(f, i ? "       " : "Usage: ", i, j);
	}
	wrap(f, preamble, 0, 0);
	fputs("\nCommands:\n", f);
	for (int i = 0; i < JH_NCOMMANDS; i++)
		item(f, c[i].name, c[i].help);
	fputs("\nOptions of the profile commands (a command's own: jeheap COMMAND --help):\n", f);
	option_rows(f, JH_PROFILE_COMMANDS, 0, 1);
	exit_codes(f, ~0u);
}

void jh_command_usage(FILE *f, int cmd)
{
	const struct jh_command_row *c = &jh_commands()[cmd];
	char text[1024];
	usage_line(f, "Usage: ", cmd, cmd);
	snprintf(text, sizeof(text), "jeheap %s: %s.", c->name, c->help);
	wrap(f, text, 0, 0);
	/* paragraphs apart: what it does, what it reads */
	if (c->about) {
		fputc('\n', f);
		wrap(f, c->about, 0, 0);
	}
	if (JH_ON(cmd) & JH_PROFILE_COMMANDS) {
		fputc('\n', f);
		wrap(f, preamble, 0, 0);
	}
	if (has_options(cmd)) {
		fputs("\nOptions:\n", f);
		option_rows(f, JH_ON(cmd), c->equals, 0);
	}
	exit_codes(f, JH_ON(cmd));
}

int jh_help_main(int argc, char **argv)
{
	if (argc < 2) {
		jh_usage(stdout);
		return 0;
	}
	int cmd = jh_command_find(argv[1]);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		cmd = JH_HELP;
	if (cmd < 0)
		return jh_command_mistake(argv[1]);
	if (argc > 2) {
		fprintf(stderr, "jeheap: help takes one COMMAND (%s is one too many)\n", argv[2]);
		return EXIT_USAGE;
	}
	jh_command_usage(stdout, cmd);
	return 0;
}

static const char *const value_words[] = { "none", "profile", "record", "dir", "file",
					    "command" };

void jh_list_commands(FILE *f)
{
	const struct jh_command_row *c = jh_commands();
	for (int i = 0; i < JH_NCOMMANDS; i++)
		fprintf(f, "%s %s %s %s\n", c[i].name, value_words[c[i].operand],
			c[i].own_options ? "own" : "shared", c[i].equals ? "equals" : "space");
}

void jh_list_options(FILE *f)
{
	static const char *const args[] = { "none", "required", "optional" };
	const struct jh_command_row *c = jh_commands();
	size_t n;
	const struct jh_option_row *r = jh_options(&n);
	for (size_t i = 0; i < n; i++) {
		if (!jh_listed(&r[i]))
			continue;
		char letter[3] = "-";
		if (r[i].letter)
			snprintf(letter, sizeof(letter), "-%c", r[i].letter);
		fprintf(f, "%s%s %s %s %s ", r[i].name ? "--" : "-", r[i].name ? r[i].name : "",
			letter, args[r[i].arg], value_words[r[i].value]);
		for (int k = 0, said = 0; k < JH_NCOMMANDS; k++)
			if (r[i].commands & JH_ON(k))
				fprintf(f, "%s%s", said++ ? "," : "", c[k].name);
		fputc('\n', f);
	}
}
