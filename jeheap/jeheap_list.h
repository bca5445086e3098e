/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof --list=RE: annotated source of the matching functions. */
#ifndef JEHEAP_LIST_H
#define JEHEAP_LIST_H

#include <stdio.h>
#include "jeheap.h"

/* Each function of the profile matching re (POSIX extended), as jeprof's
 * PrintListing and PrintSource print it: 0, or an exit code. */
int print_listing(FILE *out, const jeheap_profile *p, jeheap_symbolizer *s,
		  const struct jeheap_query *q, const char *re, int show_bytes);

#endif
