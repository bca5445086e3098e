/* SPDX-License-Identifier: BSD-2-Clause */
/* Exit codes: a contract with scripts, documented in jeattach(1). Never
 * renumber; add at the end. */
#ifndef JEATTACH_EXITCODE_H
#define JEATTACH_EXITCODE_H

enum ja_exit {
	JA_EXIT_OK = 0,
	JA_EXIT_INTERNAL = 1,   /* a bug or an unexpected system error */
	JA_EXIT_USAGE = 2,      /* bad command line */
	JA_EXIT_GONE = 3,       /* no such process, or it exited meanwhile */
	JA_EXIT_PERM = 4,       /* not allowed to ptrace it */
	JA_EXIT_NOJEMALLOC = 5, /* no (usable) jemalloc in the target */
	JA_EXIT_NOPROF = 6,     /* profiling not built in or not enabled at start-up */
	JA_EXIT_MALLCTL = 7,    /* jemalloc refused the control */
	JA_EXIT_OUTPUT = 8,     /* the output file could not be written */
	JA_EXIT_TIMEOUT = 9,    /* --timeout passed */
	JA_EXIT_UNSAFE = 10,    /* the target's state forbids a safe injection */
	JA_EXIT_PARTIAL = 11,   /* several targets: some succeeded, some failed */
};

#endif
