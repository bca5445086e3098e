/* SPDX-License-Identifier: BSD-2-Clause */
/* Values as a reader takes them in: "1.50 MiB" rather than 1572864, in the
 * flame graph's titles, tooltips and info line (the script's human() says
 * the same for the search's matched share). */
#include "config.h"

#include <math.h>
#include "jh_flame.h"

const char *jh_flame_human(double v, int objects, int sign, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	const char *plus = sign && v >= 0 ? "+" : "";
	if (objects) {
		snprintf(buf, len, "%s%.0f objects", plus, v);
		return buf;
	}
	double a = fabs(v);
	size_t u = 0;
	while (a >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		a /= 1024;
		u++;
	}
	const char *minus = v < 0 ? "-" : "";
	if (u == 0)
		snprintf(buf, len, "%s%s%.0f B", plus, minus, a);
	else
		snprintf(buf, len, "%s%s%.2f %s", plus, minus, a, units[u]);
	return buf;
}
