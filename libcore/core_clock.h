/* SPDX-License-Identifier: BSD-2-Clause */
/* core_clock: the one clock every layer measures and bounds waits with,
 * CLOCK_MONOTONIC in microseconds (never set back, unlike the wall clock;
 * clock_gettime(2)). */
#ifndef CORE_CLOCK_H
#define CORE_CLOCK_H

#include <stdint.h>

typedef int64_t core_usec_t;
core_usec_t core_now_us(void);

#endif
