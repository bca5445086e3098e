/* SPDX-License-Identifier: BSD-2-Clause */
/* Which Debian package installed a file, from dpkg's own database. */
#ifndef JEHEAP_DPKG_H
#define JEHEAP_DPKG_H

#include <stddef.h>

/* For each of the n paths (as a process mapped them), the package whose
 * file it is, into owner[i] (malloc'd, without ":ARCH"; NULL: none known),
 * from root's dpkg database (root NULL: "/"). 0, or -1 when the database
 * cannot be read (not a Debian system: every owner[i] NULL). */
int dpkg_owners(const char *root, const char *const *paths, size_t n, char **owner);

#endif
