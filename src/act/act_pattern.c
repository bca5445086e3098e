/* SPDX-License-Identifier: BSD-2-Clause */
/* Dump file names: %n the sequence, %p the pid, %t the UTC time, %% a %. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "act.h"

int act_expand_pattern(const char *pattern, pid_t pid, unsigned seq, char *out, size_t len)
{
	size_t o = 0;
	for (const char *p = pattern; *p; p++) {
		char tmp[32];
		const char *add = tmp;
		if (*p != '%') {
			tmp[0] = *p;
			tmp[1] = 0;
		} else if (p[1] == 'n') {
			snprintf(tmp, sizeof(tmp), "%u", seq);
			p++;
		} else if (p[1] == 'p') {
			snprintf(tmp, sizeof(tmp), "%d", (int)pid);
			p++;
		} else if (p[1] == 't') {
			/* UTC, ISO 8601's basic form: names that sort by time and
			 * read as one (20261127T031500Z), whatever the zone. */
			struct tm tm;
			time_t now = time(NULL);
			if (!gmtime_r(&now, &tm) || !strftime(tmp, sizeof(tmp), "%Y%m%dT%H%M%SZ", &tm))
				return -EINVAL;
			p++;
		} else if (p[1] == '%') {
			add = "%";
			p++;
		} else {
			return -EINVAL;
		}
		size_t l = strlen(add);
		if (o + l + 1 > len)
			return -ENAMETOOLONG;
		memcpy(out + o, add, l);
		o += l;
	}
	out[o] = 0;
	return 0;
}

int act_pattern_varies(const char *pattern, int64_t interval_us)
{
	for (const char *p = pattern; *p; p++) {
		if (*p != '%' || !p[1])
			continue;
		p++; /* the escaped character: "%%n" is a '%' and an 'n' */
		if (*p == 'n' || (*p == 't' && interval_us >= 1000000))
			return 1;
	}
	return 0;
}
