/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer harness: --frag's reading of a target's JSON report (libcore's
 * core_jtree, frag_read.c) and the analysis built on what it accepts
 * (frag_model.c): a target chooses every byte of that report. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "frag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[300];
	struct frag_stats st;
	if (frag_stats_read((const char *)data, size, &st, why, sizeof(why)))
		return 0;
	struct frag_report *r;
	if (frag_report_build(&st, &r))
		return 0;
	for (size_t i = 0; i < r->nclasses; i++)
		frag_class_of(&r->st, (double)r->classes[i].bin->size + 0.5);
	frag_report_free(r);
	return 0;
}
