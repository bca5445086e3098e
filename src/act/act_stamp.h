/* SPDX-License-Identifier: BSD-2-Clause */
/* act_stamp: what jeattach adds to a dump it publishes, so that a reader
 * can later tell whether the binaries on disk are the ones profiled. */
#ifndef JEATTACH_ACT_STAMP_H
#define JEATTACH_ACT_STAMP_H

#include <time.h>
#include "target.h"

/* Append to out (a profile just copied, at its end) the boot id, the time
 * of the dump (when, CLOCK_REALTIME) and the build id of each executable
 * file t maps (core_stamp.h's lines). Returns 0 or -errno; a file that
 * cannot be opened or has no build id is left out, not an error. */
int act_stamp(const struct target *t, int out, const struct timespec *when);

#endif
