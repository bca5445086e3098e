/* SPDX-License-Identifier: BSD-2-Clause */
/* cli_find_proc: the processes --all names, as /proc lists them now
 * (cli_find.c decides which names match). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli_find.h"
#include "target.h"

unsigned long long cli_find_start(pid_t pid)
{
	char comm[64];
	unsigned long long start = 0;
	/* The leader's stat: target_thread_stat reads field 22 past the
	 * comm's closing parenthesis (a comm may hold one). */
	if (target_thread_stat(pid, pid, comm, sizeof(comm), &start))
		return 0;
	return start;
}

int cli_find_scan(const char *names, struct cli_found *out, int max, int *more)
{
	DIR *d = opendir("/proc");
	if (!d)
		return -errno;
	*more = 0;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		char *end;
		long v = strtol(de->d_name, &end, 10);
		pid_t pid = (pid_t)v;
		if (*end || v <= 0 || pid == getpid())
			continue;
		char path[64], comm[64] = "", exe[4096];
		snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
		FILE *f = fopen(path, "re");
		if (f) {
			if (fgets(comm, sizeof(comm), f))
				comm[strcspn(comm, "\n")] = 0;
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
		ssize_t k = readlink(path, exe, sizeof(exe) - 1);
		exe[k > 0 ? k : 0] = 0;
		if (!cli_find_match(names, comm, exe))
			continue;
		unsigned long long start = cli_find_start(pid);
		if (!start) /* gone meanwhile */
			continue;
		if (n == max) {
			*more = 1;
			break;
		}
		out[n++] = (struct cli_found){ pid, start };
	}
	closedir(d);
	return n;
}

