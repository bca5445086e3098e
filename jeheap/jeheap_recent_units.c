/* SPDX-License-Identifier: BSD-2-Clause */
/* Durations and sizes as people write and read them. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_text.h"
#include "jeheap_recent.h"

int recent_parse_duration(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "µs", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		      { "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 } };
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !(v >= 0) || *s == '-' || *s == '+')
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit))
			continue;
		double x = v * units[i].ns;
		if (x >= 1.8e19)
			return -1;
		*ns = (uint64_t)(x + 0.5);
		return 0;
	}
	return -1;
}

const char *recent_ns(uint64_t ns, char *buf, size_t len)
{
	double v = (double)ns;
	if (ns < 1000)
		snprintf(buf, len, "%" PRIu64 " ns", ns);
	else if (ns < 1000000)
		snprintf(buf, len, "%.3g µs", v / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, len, "%.3g ms", v / 1e6);
	else
		snprintf(buf, len, "%.3g s", v / 1e9);
	return buf;
}

const char *recent_bytes(double bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	size_t k = 0;
	while (bytes >= 1024 && k + 1 < sizeof(unit) / sizeof(unit[0])) {
		bytes /= 1024;
		k++;
	}
	if (k == 0)
		snprintf(buf, len, "%.0f B", bytes);
	else
		snprintf(buf, len, "%.1f %s", bytes, unit[k]);
	return buf;
}

const char *recent_thread(uint64_t uid, const char *name, char *buf, size_t len)
{
	if (!name) {
		snprintf(buf, len, "t%" PRIu64, uid);
		return buf;
	}
	char safe[96];
	core_text_escape(name, safe, sizeof(safe));
	snprintf(buf, len, "%s (t%" PRIu64 ")", safe, uid);
	return buf;
}
