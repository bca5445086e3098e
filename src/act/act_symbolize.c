/* SPDX-License-Identifier: BSD-2-Clause */
/* --dump --symbolize: the profile in jeprof's symbolized form
 * (libjeheap's jeheap_write_symbolized), named from the target's own
 * binaries read through /proc/PID/map_files (the very files it mapped, even
 * if upgraded or deleted on disk since), else /proc/PID/root (its mount
 * namespace). Such a file can be analysed anywhere, by jeheap or by jeprof
 * itself, without the binaries. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "act.h"
#include "jeheap.h"

int act_write_symbolized(pid_t pid, const char *text, size_t len, FILE *out)
{
	jeheap_profile *p;
	struct jeheap_error_info ei;
	int e = jeheap_profile_read_memory(text, len, &p, &ei);
	if (e)
		return -EBADMSG;
	char exe[64];
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	char target[4096];
	ssize_t n = readlink(exe, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = 0;
	jeheap_symbolizer *s = NULL;
	e = jeheap_symbolizer_new_pid(p, (int)pid, &s);
	if (!e)
		e = jeheap_write_symbolized(p, s, target, text, len, out);
	jeheap_symbolizer_free(s);
	jeheap_profile_free(p);
	if (e)
		return e == JEHEAP_ENOMEM ? -ENOMEM : -EIO;
	return 0;
}
