/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer harness: jeattach's parsers of outside input other than
 * profiles: /proc/PID/maps text, the command line (NUL-separated words)
 * and the plan built from it, dump file patterns, durations, mallctl
 * values and text made safe for a terminal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core_text.h"
#include "options.h"
#include "plan.h"
#include "sym_maps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	struct sym_maps m;
	size_t bad;
	if (!sym_maps_parse(text, &m, &bad)) {
		for (size_t i = 0; i < m.n; i++)
			sym_maps_find(&m, m.v[i].start);
		sym_maps_free(&m);
	}
	/* Text for a terminal (a target's JSON report: fuzz_json). */
	char esc[256];
	core_text_escape(text, esc, sizeof(esc));
	/* The same bytes as argv: words separated by NUL. */
	char *argv[64];
	int argc = 0;
	argv[argc++] = (char *)"jeattach";
	for (size_t i = 0; i < size && argc < 63;) {
		argv[argc++] = text + i;
		i += strlen(text + i) + 1;
	}
	argv[argc] = NULL;
	struct options o;
	struct plan plan;
	char err[512];
	if (!options_parse(argc, argv, &o, err, sizeof(err))) {
		plan_build(&plan, &o, err, sizeof(err));
		plan_free(&plan);
	}
	options_free(&o);
	char out[4096];
	act_expand_pattern(text, 1, 2, out, sizeof(out));
	options_duration_us(text);
	struct rctl_value v;
	for (int ty = RCTL_VOID; ty <= RCTL_STRING; ty++)
		rctl_parse((enum rctl_type)ty, text, &v);
	free(text);
	return 0;
}
