/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof --raw: a profile written in jeprof's symbolized form. */
#ifndef JEHEAP_RAW_H
#define JEHEAP_RAW_H

#include <stdio.h>
#include "jeheap.h"

/* The profile read from path (p, its symbolizer s) with its symbols, the
 * binary named program or the main executable its maps name. 0, or an
 * exit code after a message. */
int write_raw(const char *path, const jeheap_profile *p, jeheap_symbolizer *s,
	      const char *program, FILE *out);

#endif
