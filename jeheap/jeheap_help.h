/* SPDX-License-Identifier: BSD-2-Clause */
/* What jeheap's table tells (jeheap_table.h): the help a reader asks for,
 * and the lists bash completion reads. */
#ifndef JEHEAP_HELP_H
#define JEHEAP_HELP_H

#include <stdio.h>

/* jeheap --help: every command, the profile commands' options. */
void jh_usage(FILE *f);
/* jeheap COMMAND --help, jeheap help COMMAND: its operands and options. */
void jh_command_usage(FILE *f, int cmd);
/* jeheap help [COMMAND] (argv[0] "help"): an exit code. */
int jh_help_main(int argc, char **argv);

/* --list-commands: a line per command, "NAME OPERAND SCOPE JOIN":
 * OPERAND what its operands are (profile, record, command), SCOPE shared
 * (the options of every profile command, before or after it) or own (its
 * own, after it), JOIN how its help writes a value (space, equals). */
void jh_list_commands(FILE *f);
/* --list-options: a line per option any help lists,
 * "--NAME|- -L|- none|required|optional VALUE COMMAND[,COMMAND...]",
 * VALUE one of none, profile, record, dir, file, command (jeattach
 * --list-options' form, with the commands that take it). */
void jh_list_options(FILE *f);

#endif
