/* SPDX-License-Identifier: BSD-2-Clause */
/* --all NAME[,NAME...]: every process whose comm or executable basename is
 * one of the names. comm is what the kernel keeps of the name the program
 * was started by (15 bytes, proc(5) /proc/PID/comm), and a program may
 * rename itself (prctl PR_SET_NAME): the executable's basename
 * (/proc/PID/exe) finds it too. Both are the target's choice: they are
 * only compared here, never printed unescaped. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "cli_find.h"

/* Is the n bytes at s a name of the comma list? */
static int listed(const char *names, const char *s, size_t n)
{
	for (const char *p = names; *p;) {
		size_t k = strcspn(p, ",");
		if (k == n && n && !memcmp(p, s, n))
			return 1;
		p += k + (p[k] == ',');
	}
	return 0;
}

int cli_find_match(const char *names, const char *comm, const char *exe)
{
	const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
	return (*comm && listed(names, comm, strlen(comm))) ||
	       (*base && listed(names, base, strlen(base)));
}

int cli_find_check(const char *names, char *err, size_t len)
{
	int n = 0;
	for (const char *p = names;; n++) {
		size_t k = strcspn(p, ",");
		if (!k || memchr(p, '/', k)) {
			snprintf(err, len, "--all '%.200s': expected process names separated by "
				 "commas, such as redis-server,varnishd", names);
			return -1;
		}
		if (!p[k])
			break;
		p += k + 1;
	}
	if (n + 1 > CLI_FIND_MAX_NAMES) {
		snprintf(err, len, "--all: %d names, at most %d; run another jeattach for the rest",
			 n + 1, CLI_FIND_MAX_NAMES);
		return -1;
	}
	return 0;
}

void cli_find_none(const char *names, char *err, size_t len)
{
	snprintf(err, len, "no process named %s; check the name (ps -e)", names);
}

static int among(const struct cli_found *v, int n, const struct cli_found *p)
{
	for (int i = 0; i < n; i++)
		if (v[i].pid == p->pid && v[i].start == p->start)
			return 1;
	return 0;
}

int cli_find_new(const struct cli_found *cand, int ncand, const struct cli_found *followed,
		 int nfollowed, struct cli_found *skipped, int *nskipped, struct cli_found *out,
		 int max)
{
	int k = 0;
	for (int i = 0; i < *nskipped; i++)
		if (among(cand, ncand, &skipped[i]))
			skipped[k++] = skipped[i];
	*nskipped = k;
	int n = 0;
	for (int i = 0; i < ncand && n < max; i++)
		if (!among(followed, nfollowed, &cand[i]) && !among(skipped, *nskipped, &cand[i]))
			out[n++] = cand[i];
	return n;
}
