/* SPDX-License-Identifier: BSD-2-Clause */
/* Whether a binary on disk is still the one profiled. A build id recorded
 * at dump time decides alone: equal, the names are right; different, the
 * file was rebuilt and every name it gives would be a guess. Without one,
 * on the boot that made the profile, device and inode decide (a rebuilt
 * file is a new inode: linkers write a new file and rename it; an
 * overwrite in place keeps the inode but then the mapping process would
 * have crashed). Without either, a file written after the profile is
 * suspect and said so, but still used: it may be the same build copied.
 * Under a sysroot (--root) only the build id counts: its files are copies. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include "core_grow.h"
#include "core_stamp.h"
#include "jh_identity.h"
#include "jh_object.h"

struct stamp_reading {
	struct jh_recorded *r;
	size_t cap;
	const char *boot; /* this machine's */
};

static int add_stamp(int kind, const char *v, size_t vl, const char *path, size_t pl, void *arg)
{
	struct stamp_reading *sr = arg;
	struct jh_recorded *r = sr->r;
	if (kind == CORE_STAMP_IS_BOOT) {
		r->same_boot = *sr->boot && vl == strlen(sr->boot) && !memcmp(v, sr->boot, vl);
		return 0;
	}
	if (kind != CORE_STAMP_IS_BUILD)
		return 0;
	if (CORE_GROW(&r->ids, &sr->cap, r->n + 1))
		return -1;
	struct jh_stamped *s = &r->ids[r->n];
	if (!(s->build_id = jh_pool_strndup(&r->pool, v, vl)) ||
	    !(s->path = jh_pool_strndup(&r->pool, path, pl)))
		return -1;
	r->n++;
	return 0;
}

int jh_recorded_read(struct jh_recorded *r, const char *maps)
{
	memset(r, 0, sizeof(*r));
	char boot[40];
	core_stamp_boot_id(boot);
	/* Only the block jeattach appended counts (core_stamp_foreach). */
	struct stamp_reading sr = { r, 0, boot };
	return core_stamp_foreach(maps, add_stamp, &sr) ? -1 : 0;
}

void jh_recorded_free(struct jh_recorded *r)
{
	free(r->ids);
	jh_pool_free(&r->pool);
	memset(r, 0, sizeof(*r));
}

const char *jh_recorded_build_id(const struct jh_recorded *r, const char *path)
{
	/* A few entries per profile (one per mapped file): a scan is enough. */
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->ids[i].path, path))
			return r->ids[i].build_id;
	return NULL;
}

int jh_identity_verdict(const struct jh_expected *x, const struct stat *st, const char *build_id)
{
	/* A file without a build id (stripped of its note) cannot be compared
	 * by it: the other evidence decides. */
	if (x->build_id && *build_id)
		return strcmp(x->build_id, build_id) ? JH_OBJ_REPLACED : JH_OBJ_OK;
	int same_file = st->st_ino == x->mapped.inode &&
			major(st->st_dev) == x->mapped.dev_major &&
			minor(st->st_dev) == x->mapped.dev_minor;
	if (same_file)
		return JH_OBJ_OK;
	if (x->same_boot)
		return JH_OBJ_REPLACED;
	if (x->profile_written && st->st_mtime > x->profile_written)
		return JH_OBJ_NEWER;
	return JH_OBJ_OK;
}
