/* SPDX-License-Identifier: BSD-2-Clause */
/* What the reducer asks the symbolizer beyond the public calls. Internal
 * to libjeheap. */
#ifndef JH_SYMBOLIZE_H
#define JH_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include "jeheap.h"

/* jeheap_symbolize_frames, and whether addr lies in the profile's shared
 * jemalloc (the library that defines mallctl under any prefix; by its
 * name, libjemalloc*, when its file is missing): *allocator, if given. */
size_t jh_symbolize_at(jeheap_symbolizer *s, uint64_t addr, struct jeheap_frame *out,
		       size_t max, int *allocator);

/* The build id of the file the profile mapped at path: as the profile
 * recorded it (jeattach's stamp), else the file's own when the symbolizer
 * read it and judged it the one profiled; NULL if unknown. */
const char *jh_symbolizer_build_id(const jeheap_symbolizer *s, const char *path);

#endif
