/* SPDX-License-Identifier: BSD-2-Clause */
/* A dumped profile's totals, read from jeattach's own memfd, where the
 * pipe jemalloc wrote it into was drained (act_dump_pipe.c): its header "heap_v2/N\n  t*: C: B [AC: AB]" (prof_dump_header
 * in jemalloc 4.0 to 5.3: the totals come right after the first line).
 * Reading them costs the target nothing: the descriptor is jeattach's own. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "act.h"

int act_dump_totals(int fd, struct act_totals *tot)
{
	char head[512];
	ssize_t n = fd >= 0 ? pread(fd, head, sizeof(head) - 1, 0) : -1;
	head[n > 0 ? n : 0] = 0;
	const char *p = strstr(head, "t*:");
	memset(tot, 0, sizeof(*tot));
	if (!p || sscanf(p, "t*: %llu: %llu [%llu: %llu]", &tot->objs, &tot->bytes,
			 &tot->accum_objs, &tot->accum_bytes) != 4)
		return -1;
	return 0;
}
