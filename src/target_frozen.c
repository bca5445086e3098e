/* SPDX-License-Identifier: BSD-2-Clause */
/* target_frozen: is the process frozen by a cgroup freezer?
 *
 * A frozen thread still stops for ptrace, but when let run it goes back
 * into the freezer (cgroup v2: do_freezer_trap from get_signal; v1: the
 * refrigerator, state D) before any of its own instructions: an injected
 * call would not start until the cgroup is thawed (jeattach waited for
 * ever), and threads interrupted there stop only once thawed. So the
 * freezer is asked first: cgroup v2's cgroup.freeze of the process's
 * cgroup and of each ancestor (a frozen parent freezes its children), v1's
 * freezer.state (FROZEN or FREEZING), found through /proc/PID/cgroup and
 * jeattach's own mounts. Where the files cannot be found (another cgroup
 * namespace, nothing mounted) there is no answer and the hold goes on. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_read.h"
#include "target.h"

static const char *next_line(const char *p)
{
	const char *n = strchr(p, '\n');
	return n && n[1] ? n + 1 : NULL;
}

/* The mount point of a cgroup hierarchy mounted at its root: fstype
 * "cgroup2", or "cgroup" with controller among its super options. */
static int cgroup_mount(const char *text, const char *fstype, const char *controller, char *mp,
			size_t len)
{
	for (const char *line = text; line; line = next_line(line)) {
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

/* The first line of a small kernel file, or "" if it cannot be read. */
static void first_line(const char *path, char *buf, size_t len)
{
	char *text;
	buf[0] = 0;
	if (core_read_file(path, 4096, &text, NULL))
		return;
	snprintf(buf, len, "%.*s", (int)strcspn(text, "\n"), text);
	free(text);
}

/* cgroup v2: this cgroup or an ancestor asked to freeze. */
static int frozen_v2(const char *mounts, const char *cg, char *why, size_t wlen)
{
	char mp[512], path[1200], val[16];
	if (cgroup_mount(mounts, "cgroup2", NULL, mp, sizeof(mp)))
		return 0;
	char dir[600];
	snprintf(dir, sizeof(dir), "%s", cg);
	for (;;) {
		snprintf(path, sizeof(path), "%s%s/cgroup.freeze", mp, strcmp(dir, "/") ? dir : "");
		first_line(path, val, sizeof(val));
		if (!strcmp(val, "1")) {
			snprintf(why, wlen, "%s is 1", path);
			return 1;
		}
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return 0;
		*slash = 0;
	}
}

/* cgroup v1: the freezer controller's state. */
static int frozen_v1(const char *mounts, const char *cg, char *why, size_t wlen)
{
	char mp[512], path[1200], val[16];
	if (cgroup_mount(mounts, "cgroup", "freezer", mp, sizeof(mp)))
		return 0;
	snprintf(path, sizeof(path), "%s%s/freezer.state", mp, strcmp(cg, "/") ? cg : "");
	first_line(path, val, sizeof(val));
	if (strcmp(val, "FROZEN") && strcmp(val, "FREEZING"))
		return 0;
	snprintf(why, wlen, "%s is %s", path, val);
	return 1;
}

int target_frozen(const struct target *t, char *why, size_t wlen)
{
	char path[64], *cgroups, *mounts;
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)t->io_pid);
	if (core_read_file(path, CORE_READ_PROC_MAX, &cgroups, NULL))
		return 0;
	if (core_read_file("/proc/self/mountinfo", CORE_READ_PROC_MAX, &mounts, NULL)) {
		free(cgroups);
		return 0;
	}
	int frozen = 0;
	for (const char *line = cgroups; line && !frozen; line = next_line(line)) {
		/* "ID:CONTROLLERS:PATH"; v2 is "0::PATH". A path outside our
		 * cgroup namespace ("/../..") is not ours to resolve. */
		char ctl[256], cg[600];
		if (sscanf(line, "%*[^:]:%255[^:]:%599[^\n]", ctl, cg) != 2 &&
		    (ctl[0] = 0, sscanf(line, "%*[^:]::%599[^\n]", cg) != 1))
			continue;
		if (cg[0] != '/' || strstr(cg, "/.."))
			continue;
		char list[260];
		snprintf(list, sizeof(list), ",%s,", ctl);
		if (!ctl[0])
			frozen = frozen_v2(mounts, cg, why, wlen);
		else if (strstr(list, ",freezer,"))
			frozen = frozen_v1(mounts, cg, why, wlen);
	}
	free(mounts);
	free(cgroups);
	return frozen;
}
