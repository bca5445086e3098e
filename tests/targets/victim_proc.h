/* SPDX-License-Identifier: BSD-2-Clause */
/* For victims: one of their own threads' /proc files, as text. */
#ifndef VICTIM_PROC_H
#define VICTIM_PROC_H

#include <stdio.h>

/* /proc/self/task/TID/NAME into buf (NUL-terminated, cut at len - 1);
 * 0, or -1 if it cannot be opened. */
static inline int victim_task_file(int tid, const char *name, char *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/task/%d/%s", tid, name);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	return 0;
}

#endif
