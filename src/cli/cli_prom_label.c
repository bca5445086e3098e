/* SPDX-License-Identifier: BSD-2-Clause */
/* A label value of Prometheus' text exposition format (version 0.0.4,
 * prometheus.io/docs/instrumenting/exposition_formats): backslash, double
 * quote and line feed escaped as \\ \" \n. The value must also be valid
 * UTF-8: the text parser node_exporter's textfile collector uses
 * (prometheus/common expfmt) refuses the whole file otherwise ("text format
 * parsing error in line 2: invalid label value", and
 * node_textfile_scrape_error 1: seen with Debian 12's
 * prometheus-node-exporter, tests/integration/t_exporter.sh). A thread's
 * name is cut by the kernel at 15 bytes (proc(5), /proc/PID/comm), in the
 * middle of a character as easily as not, and a process chooses its name,
 * its path and its cgroup's: every byte that is not part of a well-formed
 * UTF-8 sequence (RFC 3629: no overlong form, no surrogate, nothing past
 * U+10FFFF) becomes '?', as do the other control bytes, which no
 * exposition reader needs. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "cli_prom.h"

/* The length of the well-formed UTF-8 sequence at s (1 to 4), 0 if none. */
static int utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	if (c < 0x80)
		return 1;
	int n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
	if (!n || c > 0xf4)
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80) /* a NUL ends it too */
			return 0;
	/* The second byte's range rules out overlong forms, surrogates
	 * (U+D800..DFFF) and code points past U+10FFFF (RFC 3629, section 4). */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] > 0x9f) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

size_t cli_prom_escape(const char *in, char *out, size_t len)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;
	if (!len)
		return 0;
	while (*s) {
		char piece[4];
		size_t k = 1;
		int n = utf8_len(s);
		if (*s == '\\' || *s == '"')
			piece[0] = '\\', piece[1] = (char)*s, k = 2;
		else if (*s == '\n')
			piece[0] = '\\', piece[1] = 'n', k = 2;
		else if (!n || *s < 0x20 || *s == 0x7f)
			piece[0] = '?', n = 1;
		else
			memcpy(piece, s, (size_t)n), k = (size_t)n;
		if (o + k >= len) /* cut whole: never half a character or escape */
			break;
		memcpy(out + o, piece, k);
		o += k;
		s += n ? n : 1;
	}
	out[o] = 0;
	return o;
}

void cli_prom_label(FILE *f, const char *s)
{
	/* A byte of input makes at most two of output (an escape). */
	char buf[2 * CLI_PROM_LABEL_MAX + 1];
	cli_prom_escape(s, buf, sizeof(buf));
	fputs(buf, f);
}
