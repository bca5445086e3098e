/* SPDX-License-Identifier: BSD-2-Clause */
/* target_cgroup: see target_cgroup.h. Used by target_frozen.c (is the
 * process frozen?) and target_limits.c (how much memory may it still be
 * charged?). Where the files cannot be found (another cgroup namespace,
 * nothing mounted) there is no answer: the callers say what that means. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_read.h"
#include "target_cgroup.h"

const char *target_cgroup_next_line(const char *p)
{
	const char *n = strchr(p, '\n');
	return n && n[1] ? n + 1 : NULL;
}

/* The mount point of a cgroup hierarchy mounted at its root: fstype
 * "cgroup2", or "cgroup" with controller among its super options. */
static int cgroup_mount(const char *text, const char *fstype, const char *controller, char *mp,
			size_t len)
{
	for (const char *line = text; line; line = target_cgroup_next_line(line)) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPEROPTS */
		char root[8], point[512], type[16], opts[512] = "";
		const char *end = strchr(line, '\n');
		const char *dash = strstr(line, " - ");
		if (!dash || (end && dash > end) ||
		    sscanf(line, "%*s %*s %*s %7s %511s", root, point) != 2 ||
		    sscanf(dash + 3, "%15s %*s %511s", type, opts) < 2 || strcmp(root, "/") ||
		    strcmp(type, fstype) || strchr(point, '\\'))
			continue;
		if (controller) {
			char want[40], have[516];
			snprintf(want, sizeof(want), ",%s,", controller);
			snprintf(have, sizeof(have), ",%s,", opts);
			if (!strstr(have, want))
				continue;
		}
		snprintf(mp, len, "%s", point);
		return 0;
	}
	return -1;
}

int target_cgroup_parse(const char *cgroups, const char *mountinfo, const char *controller,
			struct target_cgroup *cg)
{
	for (const char *line = cgroups; line; line = target_cgroup_next_line(line)) {
		/* "ID:CONTROLLERS:PATH"; v2 is "0::PATH". A path outside our
		 * cgroup namespace ("/../..") is not ours to resolve. */
		char ctl[256], path[600];
		if (sscanf(line, "%*[^:]:%255[^:]:%599[^\n]", ctl, path) != 2 &&
		    (ctl[0] = 0, sscanf(line, "%*[^:]::%599[^\n]", path) != 1))
			continue;
		if (path[0] != '/' || strstr(path, "/.."))
			continue;
		if (!controller != !ctl[0])
			continue;
		if (controller) {
			char list[260], want[40];
			snprintf(list, sizeof(list), ",%s,", ctl);
			snprintf(want, sizeof(want), ",%s,", controller);
			if (!strstr(list, want))
				continue;
		}
		if (cgroup_mount(mountinfo, controller ? "cgroup" : "cgroup2", controller, cg->mount,
				 sizeof(cg->mount)))
			return -1;
		snprintf(cg->path, sizeof(cg->path), "%s", path);
		return 0;
	}
	return -1;
}

int target_cgroup_find(pid_t pid, const char *controller, struct target_cgroup *cg)
{
	char path[64], *cgroups, *mounts;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (core_read_file(path, CORE_READ_PROC_MAX, &cgroups, NULL))
		return -1;
	if (core_read_file("/proc/self/mountinfo", CORE_READ_PROC_MAX, &mounts, NULL)) {
		free(cgroups);
		return -1;
	}
	int e = target_cgroup_parse(cgroups, mounts, controller, cg);
	free(mounts);
	free(cgroups);
	return e;
}

int target_cgroup_parent(struct target_cgroup *cg)
{
	char *slash = strrchr(cg->path, '/');
	if (!slash || !strcmp(cg->path, "/"))
		return -1;
	if (slash == cg->path)
		slash[1] = 0; /* "/a" -> "/" */
	else
		*slash = 0;
	return 0;
}

void target_cgroup_file(const struct target_cgroup *cg, const char *file, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s/%s", cg->mount, strcmp(cg->path, "/") ? cg->path : "", file);
}

void target_cgroup_first_line(const char *path, char *buf, size_t len)
{
	char *text;
	buf[0] = 0;
	if (core_read_file(path, 4096, &text, NULL))
		return;
	snprintf(buf, len, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
}
