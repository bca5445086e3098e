/* SPDX-License-Identifier: BSD-2-Clause */
/* core_suggest: a did-you-mean for a word a command line did not know,
 * from the names its own table holds (jeattach's options, jeheap's
 * commands and options), so that both programs answer a typo the same way
 * and neither keeps an edit distance of its own. It finds and words; the
 * program prints. */
#ifndef CORE_SUGGEST_H
#define CORE_SUGGEST_H

#include <stddef.h>

/* At most this many names are suggested at once. */
#define CORE_SUGGEST_MAX 5

/* The names nearest word (its first len bytes), into out (at most max),
 * in the order names has them: those word begins, when it begins one
 * (an abbreviation: getopt_long refuses one that fits several, and a
 * command must be spelled whole); else those at the smallest edit distance
 * (a letter missing, added, changed, or two swapped), when that is small
 * for the word's length. Letters are compared without case. Their count;
 * *abbrev is set when they are names word begins. */
size_t core_suggest(const char *word, size_t len, const char *const *names, size_t n,
		    const char **out, size_t max, int *abbrev);

/* "did you mean --json?", "did you mean --status or --stats?", dash
 * ("--", or "" for commands) before each name, into buf; "" if no name is
 * near. The count of names suggested. */
size_t core_suggest_text(const char *word, size_t len, const char *const *names, size_t n,
			 const char *dash, char *buf, size_t buflen);

/* One line for an option a parser did not take, word as given ("--jsn",
 * "--stat=x", "-x"): "unknown option '--jsn' (did you mean --json?)" or
 * "option '--stat' is ambiguous (did you mean --status or --stats?)",
 * matched against names (long names, no dashes) by what precedes any
 * '='. Into buf. */
void core_suggest_option(const char *word, const char *const *names, size_t n, char *buf,
			 size_t buflen);

#endif
