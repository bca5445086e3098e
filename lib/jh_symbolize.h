/* SPDX-License-Identifier: BSD-2-Clause */
/* What the reducer asks the symbolizer beyond the public calls. Internal
 * to libjeheap. */
#ifndef JH_SYMBOLIZE_H
#define JH_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include "jeheap.h"

/* What an object is to the pruner. */
enum jh_jemalloc {
	JH_JE_NONE = 0,     /* no jemalloc in it: jemalloc's names mean nothing here */
	JH_JE_SHARED = 1,   /* a shared libjemalloc (defines mallctl, named libjemalloc*):
			     * every frame in it is the allocator's */
	JH_JE_EMBEDDED = 2, /* jemalloc linked in with other code (a static build, a
			     * library embedding it): only jemalloc's names are its */
	JH_JE_UNKNOWN = 3,  /* no file says (missing, or a symbolized profile): the
			     * names decide */
};

/* jeheap_symbolize_frames, and what the object addr lies in is to the
 * pruner (enum jh_jemalloc): *jemalloc, if given. */
size_t jh_symbolize_at(jeheap_symbolizer *s, uint64_t addr, struct jeheap_frame *out,
		       size_t max, int *jemalloc);

/* The build id of the file the profile mapped at path: as the profile
 * recorded it (jeattach's stamp), else the file's own when the symbolizer
 * read it and judged it the one profiled; NULL if unknown. */
const char *jh_symbolizer_build_id(const jeheap_symbolizer *s, const char *path);

#endif
