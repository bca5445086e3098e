/* SPDX-License-Identifier: BSD-2-Clause */
/* Telling the user which binaries could not be trusted or found. */
#ifndef JEHEAP_WARN_H
#define JEHEAP_WARN_H

#include <stddef.h>
#include "jeheap.h"

/* One warning line on stderr per object any of the n symbolizers could not
 * name addresses from (NULL entries are skipped), each path once. */
void warn_objects(jeheap_symbolizer *const *s, size_t n);

/* One note line on stderr per profile that holds no sample at all (paths
 * name them): an empty table would say nothing of why. */
void warn_no_samples(jeheap_profile *const *p, char *const *paths, size_t n);

#endif
