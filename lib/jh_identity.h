/* SPDX-License-Identifier: BSD-2-Clause */
/* Is the file on disk the one that was profiled? What the profile
 * recorded (jeattach's stamp lines: the boot and each object's build id)
 * against the file found now. Internal to libjeheap. */
#ifndef JH_IDENTITY_H
#define JH_IDENTITY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include "core_open.h"
#include "jh_names.h"

struct jh_stamped {
	const char *path, *build_id;
};

/* The stamps of one profile. */
struct jh_recorded {
	int same_boot; /* the profile was dumped on this machine since it booted */
	struct jh_stamped *ids;
	size_t n;
	struct jh_pool pool;
};

/* Read the stamps out of a profile's maps text. -1 without memory. */
int jh_recorded_read(struct jh_recorded *r, const char *maps);
void jh_recorded_free(struct jh_recorded *r);

/* What the profile knew of the file it mapped at path. */
struct jh_expected {
	const char *build_id;       /* recorded, or NULL */
	struct core_file_id mapped; /* as its maps line names it */
	int same_boot;              /* inode and device decide (0: they say nothing) */
	int64_t profile_written;    /* the profile file's mtime, 0: unknown or moot */
};
/* The verdict on the file found (st; its build id, "" if none): an enum
 * jh_object_problem. */
int jh_identity_verdict(const struct jh_expected *x, const struct stat *st, const char *build_id);
/* The recorded build id for path, or NULL. */
const char *jh_recorded_build_id(const struct jh_recorded *r, const char *path);

#endif
