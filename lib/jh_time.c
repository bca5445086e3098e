/* SPDX-License-Identifier: BSD-2-Clause */
/* When a profile was dumped: jeattach's dump-time stamp, read from the
 * block it appended (core_stamp_foreach: only that block is believed, the
 * process's own text could hold anything), else the file's mtime, which
 * says when the file was last written: the dump for a file left where it
 * was written, a copy's time for one copied without keeping times. */
#include "config.h"

#include <string.h>

#include "core_stamp.h"
#include "jh_internal.h"

struct stamped_time {
	int64_t sec;
	uint32_t nsec;
	int found;
};

static int take_time(int kind, const char *v, size_t vl, const char *path, size_t pl, void *arg)
{
	struct stamped_time *st = arg;
	(void)path;
	(void)pl;
	/* The last one counts, as a reader of the block would take it;
	 * jeattach writes one. */
	if (kind == CORE_STAMP_IS_TIME && !core_stamp_time(v, vl, &st->sec, &st->nsec))
		st->found = 1;
	return 0;
}

JH_EXPORT int jeheap_profile_time(const jeheap_profile *p, double *seconds, int *source)
{
	if (!p || !seconds)
		return JEHEAP_EINVAL;
	struct stamped_time st = { 0, 0, 0 };
	core_stamp_foreach(p->maps ? p->maps : "", take_time, &st);
	int from = st.found ? JEHEAP_TIME_STAMP : p->written ? JEHEAP_TIME_FILE : 0;
	if (source)
		*source = from;
	if (st.found)
		*seconds = (double)st.sec + st.nsec / 1e9;
	else if (p->written)
		*seconds = (double)p->written + p->written_nsec / 1e9;
	else
		return JEHEAP_ENOENT;
	return 0;
}

/* The source stamp of the block jeattach appended: "sampler" for --sample's
 * profiles (core_stamp.h). */
static int take_source(int kind, const char *v, size_t vl, const char *path, size_t pl,
		       void *arg)
{
	(void)path;
	(void)pl;
	if (kind == CORE_STAMP_IS_SOURCE)
		*(int *)arg = vl == 7 && !memcmp(v, "sampler", 7);
	return 0;
}

JH_EXPORT int jeheap_profile_from_sampler(const jeheap_profile *p)
{
	int yes = 0;
	if (p)
		core_stamp_foreach(p->maps ? p->maps : "", take_source, &yes);
	return yes;
}
