/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_find: the processes --all NAME[,NAME...] names, read from /proc. A
 * process is its pid and its start time (field 22 of /proc/PID/stat,
 * proc(5)): a pid the kernel gave again is another process. The match is
 * pure (cli_find_match), so unit tests feed it names. */
#ifndef JEATTACH_CLI_FIND_H
#define JEATTACH_CLI_FIND_H

#include <stddef.h>
#include <sys/types.h>

#define CLI_FIND_MAX_NAMES 64

struct cli_found {
	pid_t pid;
	unsigned long long start; /* field 22 of its stat, clock ticks since boot */
};

/* Is a process of this comm and executable path one of names (a comma
 * list)? Its comm or its executable's basename must equal a name whole. */
int cli_find_match(const char *names, const char *comm, const char *exe);

/* Is names a usable list: 1 to CLI_FIND_MAX_NAMES names, none empty, none
 * with a '/'? 0, or -1 with the reason in err. */
int cli_find_check(const char *names, char *err, size_t len);

/* Every process of /proc but jeattach itself that names match, in /proc's
 * order, at most max: the count, or -errno when /proc cannot be listed.
 * *more is set when more matched than max. */
int cli_find_scan(const char *names, struct cli_found *out, int max, int *more);

/* pid's start time (field 22 of /proc/PID/stat), 0 when it is gone. */
unsigned long long cli_find_start(pid_t pid);

/* The message of a scan that found nothing. */
void cli_find_none(const char *names, char *err, size_t len);

/* The exporter's rescan (cli_export.c), decided purely: of the processes
 * found now (cand), those neither followed nor skipped go to out (at most
 * max; the count is returned). skipped (processes said once and not tried
 * again) keeps only those still among cand: a pid given again, with
 * another start time, is another process, tried afresh. */
int cli_find_new(const struct cli_found *cand, int ncand, const struct cli_found *followed,
		 int nfollowed, struct cli_found *skipped, int *nskipped, struct cli_found *out,
		 int max);

#endif
