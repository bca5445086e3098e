/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <time.h>
#include "core_clock.h"

core_usec_t core_now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (core_usec_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}
