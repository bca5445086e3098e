/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap's answers to a mistake on its command lines: one line on
 * standard error with the cause and the fix, from its table (jeheap
 * --help, jeheap(1): exit status 2). */
#ifndef JEHEAP_MISTAKE_H
#define JEHEAP_MISTAKE_H

#include <stddef.h>

struct jh_option_row;

/* The word getopt_long just refused ("--jsn", "-x"; a word of one dash,
 * "-text", whole): argv's, or buf's. */
const char *jh_refused_word(int argc, char **argv, char *buf, size_t len);

/* word, an option the parser of the commands in mask does not take:
 * another command's (jeprof's --nodecount given to top: which command,
 * and how to call it), one of jeprof's that jeheap refuses, or unknown
 * (with a did-you-mean). EXIT_USAGE. */
int jh_option_mistake(const char *word, unsigned mask);

/* The option of row r, given to command cmd, which does not take it
 * (jeheap top --inverted): which commands do, how to call the one that
 * does, and cmd's help. EXIT_USAGE. */
int jh_unused_option(int cmd, const struct jh_option_row *r);

/* word where a command goes: a file (which command reads it), a misspelt
 * command (did you mean), or none at all. EXIT_USAGE. */
int jh_command_mistake(const char *word);

/* Is word, jeheap's first, an option only jeprof's command line has
 * (jeheap --text PROGRAM PROFILE)? Then jeheap reads jeprof's. */
int jh_jeprof_habit(const char *word);

#endif
