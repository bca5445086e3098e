/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include "cli_scratch.h"
#include "errors.h"
#include "rcall.h"
#include "target.h"

int cli_scratch_drop(struct target *t, double timeout_s, char *why, size_t len)
{
	uint64_t addr;
	rcall_keep_scratch(t, 0);
	rcall_set_deadline(t, core_now_us() + (core_usec_t)(timeout_s * 1e6));
	int e = rcall_scratch_drop(t, &addr);
	/* A process gone (or another program now) took its mapping along. */
	char fate[300];
	if (!e || !addr || target_fate(t, fate, sizeof(fate)) != TARGET_AS_WAS)
		return 0;
	/* Labelled (rcall_label.c): the next attach finds and removes it. */
	snprintf(why, len,
		 "jeattach's scratch mapping at %#llx stays in the process: no thread could be "
		 "held to remove it (%s); the next attach removes it",
		 (unsigned long long)addr, ja_err_text(-e));
	return 1;
}
