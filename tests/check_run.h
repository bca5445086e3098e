/* SPDX-License-Identifier: BSD-2-Clause */
/* The one main() every Check suite here shares. */
#ifndef JEATTACH_CHECK_RUN_H
#define JEATTACH_CHECK_RUN_H

#include <check.h>
#include <stdlib.h>

/* Run the suite (CK_NORMAL prints Check's summary line) and turn its
 * result into an exit status for automake's test harness. */
static inline int check_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* A command line for the parsers: "jeattach", then args (NULL-ended; at
 * most 30). Returns argc; argv[argc] is NULL. */
static inline int check_argv(const char *const *args, char **argv)
{
	int argc = 0;
	argv[argc++] = (char *)"jeattach";
	for (; *args && argc < 31; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return argc;
}

#endif
