/* SPDX-License-Identifier: BSD-2-Clause */
/* The sampler's hooks as bytes (made at build time from src/sampler/
 * parasite/ by blob2c.sh), and where each hook starts in them. */
#ifndef JEATTACH_SAMPLER_BLOB_H
#define JEATTACH_SAMPLER_BLOB_H

extern const unsigned char sampler_blob[];
extern const unsigned long sampler_blob_len;
extern const unsigned long sampler_blob_alloc, sampler_blob_dalloc, sampler_blob_expand;
/* Called by jeattach in the target (sampler_hooks.h). */
extern const unsigned long sampler_blob_install, sampler_blob_remove;

#endif
