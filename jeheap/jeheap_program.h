/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof's PROGRAM operand: an executable named before the profiles. */
#ifndef JEHEAP_PROGRAM_H
#define JEHEAP_PROGRAM_H

#include "jeheap.h"

/* Is path an ELF file (its first four bytes), so a program, not a profile? */
int is_program(const char *path);
/* Symbolize s's main executable from path: 0, or an exit code after a
 * message. */
int use_program(jeheap_symbolizer *s, const char *path);

#endif
