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
 * jeattach's own mounts (target_cgroup.c). Where the files cannot be found
 * (another cgroup namespace, nothing mounted) there is no answer and the
 * hold goes on. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "target.h"
#include "target_cgroup.h"
#include "target_struct.h"

/* cgroup v2: this cgroup or an ancestor asked to freeze. */
static int frozen_v2(struct target_cgroup *cg, char *why, size_t wlen)
{
	char path[1200], val[16];
	do {
		target_cgroup_file(cg, "cgroup.freeze", path, sizeof(path));
		target_cgroup_first_line(path, val, sizeof(val));
		if (!strcmp(val, "1")) {
			snprintf(why, wlen, "%s is 1", path);
			return 1;
		}
	} while (!target_cgroup_parent(cg));
	return 0;
}

/* cgroup v1: the freezer controller's state. */
static int frozen_v1(const struct target_cgroup *cg, char *why, size_t wlen)
{
	char path[1200], val[16];
	target_cgroup_file(cg, "freezer.state", path, sizeof(path));
	target_cgroup_first_line(path, val, sizeof(val));
	if (strcmp(val, "FROZEN") && strcmp(val, "FREEZING"))
		return 0;
	snprintf(why, wlen, "%s is %s", path, val);
	return 1;
}

int target_frozen(const struct target *t, char *why, size_t wlen)
{
	struct target_cgroup cg;
	if (!target_cgroup_find(t->io_pid, NULL, &cg) && frozen_v2(&cg, why, wlen))
		return 1;
	return !target_cgroup_find(t->io_pid, "freezer", &cg) && frozen_v1(&cg, why, wlen);
}
