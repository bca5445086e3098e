/* SPDX-License-Identifier: BSD-2-Clause */
/* Mistakes on jeheap's command lines, answered from its table: jeprof's
 * habits (its options given to jeheap's own commands), another command's
 * option (one the parser does not take, or one it takes for a command
 * other than the one given), typos (core_suggest's did-you-mean, shared
 * with jeattach), a profile where the command goes. Each is one line and
 * exit status 2, the usage error jeheap(1) documents. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "core_list.h"
#include "core_suggest.h"
#include "jeheap_cli.h"
#include "jeheap_mistake.h"
#include "jeheap_program.h"
#include "jeheap_table.h"

#define ALL_COMMANDS (JH_ON(JH_NCOMMANDS) - 1)

const char *jh_refused_word(int argc, char **argv, char *buf, size_t len)
{
	/* A long option: getopt_long has stepped past its word. */
	if (!optopt)
		return argv[optind - 1];
	/* A letter: getopt_long steps past its word after the word's last
	 * letter only. */
	const char *prev = argv[optind - 1], *w = optind < argc ? argv[optind] : prev;
	size_t n = strlen(prev);
	if (prev[0] == '-' && n > 1 && prev[1] != '-' && prev[n - 1] == optopt)
		w = prev;
	/* a word of one dash, whole: jeprof's way of writing --text */
	if (w[0] == '-' && w[1] != '-' && strlen(w) > 2 && strchr(w, optopt))
		return w;
	snprintf(buf, len, "-%c", optopt);
	return buf;
}

/* The option's name in word: past one dash or two, up to any '='. */
static const char *option_name(const char *word, size_t *len)
{
	const char *name = word + (word[0] == '-') + (word[0] == '-' && word[1] == '-');
	*len = strcspn(name, "=");
	return name;
}

/* "jeheap jeprof --nodecount=5 [PROGRAM] PROFILE...": how to call command
 * owner with r's option, spelt opt, its value as given ("=5", from the
 * word) or else r's metavar, the way owner's help writes one. Into buf. */
static void call(int owner, const struct jh_option_row *r, const char *opt, const char *given,
		 char *buf, size_t n)
{
	const struct jh_command_row *o = &jh_commands()[owner];
	char value[128] = "";
	if (given && *given)
		snprintf(value, sizeof(value), "%s", given);
	else if (r->arg == JH_ARG_REQUIRED)
		snprintf(value, sizeof(value), "%s%s", o->equals ? "=" : " ", r->metavar);
	snprintf(buf, n, "jeheap %s %s%s %s", o->name, opt, value, o->operands);
}

/* "jeheap: --nodecount belongs to jeheap jeprof, jeprof's command line:
 * jeheap jeprof --nodecount=5 [PROGRAM] PROFILE... (see jeheap jeprof
 * --help)". */
static int belongs(const char *name, size_t len, const struct jh_option_row *r, unsigned mask)
{
	int owner = __builtin_ctz(r->commands & ~mask);
	const char *cmd = jh_commands()[owner].name;
	char opt[64], how[512];
	snprintf(opt, sizeof(opt), "--%.*s", (int)len, name);
	call(owner, r, opt, name + len, how, sizeof(how));
	fprintf(stderr, "jeheap: %s belongs to jeheap %s%s: %s (see jeheap %s --help)\n", opt, cmd,
		owner == JH_JEPROF ? ", jeprof's command line" : "", how, cmd);
	return EXIT_USAGE;
}

int jh_unused_option(int cmd, const struct jh_option_row *r)
{
	const struct jh_command_row *c = jh_commands();
	/* never 0: r is some other command's, or it would not be refused */
	unsigned takers = jh_option_takers(r) & ~JH_ON(cmd);
	size_t k = (size_t)__builtin_popcount(takers), i = 0;
	char opt[64], who[256] = "", how[512] = "", named[256] = "";
	if (r->name)
		snprintf(opt, sizeof(opt), "--%s", r->name);
	else
		snprintf(opt, sizeof(opt), "-%c", r->letter);
	/* "top, collapsed and dot take it"; the one that does, how to call it */
	for (unsigned m = takers; m; m &= m - 1)
		core_list_add(who, sizeof(who), i++, k, " and ", c[__builtin_ctz(m)].name);
	if (k == 1) {
		char call_it[480];
		call(__builtin_ctz(takers), r, opt, NULL, call_it, sizeof(call_it));
		snprintf(how, sizeof(how), ": %s", call_it);
	}
	/* --json, --top: a command's name too, which may be what was meant */
	int command = r->name ? jh_command_find(r->name) : -1;
	if (command >= 0 && command != cmd)
		snprintf(named, sizeof(named), "; or the command: jeheap %s %s", c[command].name,
			 c[command].operands);
	fprintf(stderr, "jeheap: %s takes no %s; %s take%s it%s%s (see jeheap %s --help)\n",
		c[cmd].name, opt, who, k == 1 ? "s" : "", how, named, c[cmd].name);
	return EXIT_USAGE;
}

/* " (did you mean --nodecount, jeheap jeprof's?)": the nearest name of
 * another command's options, into buf. */
static void other_command(const char *name, size_t len, unsigned mask, char *buf, size_t n)
{
	const char *names[JH_MAX_OPTIONS], *near[1];
	int abbrev;
	size_t k = jh_option_names(ALL_COMMANDS & ~mask, names);
	if (!core_suggest(name, len, names, k, near, 1, &abbrev))
		return;
	const struct jh_option_row *r = jh_option_find(near[0], strlen(near[0]), ALL_COMMANDS & ~mask);
	if (!r)
		return;
	snprintf(buf, n, " (did you mean --%s, jeheap %s's?)", near[0],
		 jh_commands()[__builtin_ctz(r->commands & ~mask)].name);
}

/* No command line of jeheap's has it: a did-you-mean among this one's
 * names, else among the others'. */
static int unknown(const char *word, const char *name, size_t len, unsigned mask)
{
	const char *names[JH_MAX_OPTIONS], *near[CORE_SUGGEST_MAX];
	char head[512], mean[256] = "", tail[256] = "";
	int abbrev = 0, own = -1; /* a command of its own parser: its name in the message */
	if (mask == JH_ON(JH_JEPROF) || mask == JH_ON(JH_RECENT))
		own = __builtin_ctz(mask);
	size_t n = jh_option_names(mask, names);
	int letter = word[0] == '-' && word[1] != '-' && len == 1;
	size_t k = letter ? 0 : core_suggest(name, len, names, n, near, CORE_SUGGEST_MAX, &abbrev);
	if (own == JH_JEPROF) {
		if (k)
			core_suggest_text(name, len, names, n, "--", mean, sizeof(mean));
		snprintf(head, sizeof(head), "'%s' is not a jeprof option%s%s%s", word, k ? " (" : "",
			 mean, k ? ")" : "");
	} else {
		core_suggest_option(word, names, n, head, sizeof(head));
	}
	if (!k && !letter)
		other_command(name, len, mask, tail, sizeof(tail));
	fprintf(stderr, "jeheap: %s%s%s; see jeheap%s%s --help\n", own == JH_RECENT ? "recent: " : "",
		head, tail, own >= 0 ? " " : "", own >= 0 ? jh_commands()[own].name : "");
	return EXIT_USAGE;
}

int jh_option_mistake(const char *word, unsigned mask)
{
	size_t len;
	const char *name = option_name(word, &len);
	if (word[0] != '-' || len < 2)
		return unknown(word, name, len, mask);
	const struct jh_option_row *r = jh_option_find(name, len, ALL_COMMANDS & ~mask);
	if (r && r->refused) {
		fprintf(stderr, "jeheap: --%.*s is jeprof's, and jeheap jeprof refuses it: %s\n",
			(int)len, name, r->refused);
		return EXIT_USAGE;
	}
	if (r && !r->hidden)
		return belongs(name, len, r, mask);
	return unknown(word, name, len, mask);
}

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), e = strlen(end);
	return n > e && !strcmp(s + n - e, end);
}

int jh_command_mistake(const char *word)
{
	const struct jh_command_row *c = jh_commands();
	const char *names[JH_NCOMMANDS];
	char mean[256] = "", list[256] = "";
	struct stat st;
	if (strchr(word, '/') || strstr(word, ".heap") || ends_with(word, ".json") ||
	    !stat(word, &st)) {
		int program = is_program(word);
		fprintf(stderr, "jeheap: '%s' is a %s, not a command; put the command first: jeheap "
				"%s %s%s (jeheap --help lists the commands)\n",
			word, program ? "program" : "file", ends_with(word, ".json") ? "recent" : "top",
			word, program ? " PROFILE..." : "");
		return EXIT_USAGE;
	}
	for (int i = 0; i < JH_NCOMMANDS; i++) {
		size_t n = strlen(list);
		names[i] = c[i].name;
		snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "", c[i].name);
	}
	size_t k = core_suggest_text(word, strlen(word), names, JH_NCOMMANDS, "", mean, sizeof(mean));
	fprintf(stderr, "jeheap: unknown command '%s'%s%s%s; the commands are %s\n", word,
		k ? " (" : "", mean, k ? ")" : "", list);
	return EXIT_USAGE;
}

int jh_jeprof_habit(const char *word)
{
	size_t len;
	const char *name = option_name(word, &len);
	if (word[0] != '-' || len < 2 || jh_option_find(name, len, JH_PROFILE_COMMANDS))
		return 0; /* an option of jeheap's own keeps its meaning (--lines, --thread) */
	return jh_option_find(name, len, JH_ON(JH_JEPROF)) != NULL;
}
