/* SPDX-License-Identifier: BSD-2-Clause */
/* --thread NAME against the names a profile's threads have. */
#ifndef JEHEAP_THREAD_H
#define JEHEAP_THREAD_H

#include "jeheap.h"

/* The thread NAME means in p: its exact name, else the one name that is
 * NAME/TID (jeattach --name-threads writes comm/TID). 0 with *thread set;
 * -1 after one line on stderr saying which names p has (path names p). */
int thread_resolve(const jeheap_profile *p, const char *path, const char *name,
		   uint64_t *thread);

#endif
