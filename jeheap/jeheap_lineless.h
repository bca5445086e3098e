/* SPDX-License-Identifier: BSD-2-Clause */
/* Telling the user where the missing file:line would come from. */
#ifndef JEHEAP_LINELESS_H
#define JEHEAP_LINELESS_H

#include <stddef.h>
#include "jeheap.h"

/* One note line on stderr per object the n symbolizers (NULL entries
 * skipped) found without line data, each path once: the Debian package
 * whose -dbgsym would give them (from root's dpkg database), or the
 * build-id debug file looked for (under root: NULL for "/"). */
void note_lineless(jeheap_symbolizer *const *s, size_t n, const char *root);

#endif
