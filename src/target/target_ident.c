/* SPDX-License-Identifier: BSD-2-Clause */
/* target_ident: see target_ident.h.
 *
 * The build id is read from the file /proc/PID/exe stands for: the kernel's
 * own reference to the mapped program (proc(5)), never a path the process
 * could have replaced or pointed elsewhere since it started, so a program
 * rebuilt on disk under a running process still shows the running one's id.
 * It is the note `readelf -n` prints as "Build ID" (NT_GNU_BUILD_ID,
 * core_elf_build_id, which jeattach also stamps into every dump). Opened
 * O_NONBLOCK and read only if a regular file, as every file a target
 * controls (doc/design.md, "Finding jemalloc"). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core_elf.h"
#include "core_read.h"
#include "target_cgroup.h"
#include "target_ident.h"

int target_ident_cgroup_v2(const char *cgroups, char *buf, size_t len)
{
	buf[0] = 0;
	/* cgroups(7): "hierarchy-ID:controller-list:cgroup-path"; the v2
	 * hierarchy's line is "0::PATH", its path relative to the reader's
	 * cgroup namespace root ("/../x" outside it): kept as the kernel
	 * says it. */
	for (const char *line = cgroups; line; line = target_cgroup_next_line(line)) {
		if (strncmp(line, "0::", 3))
			continue;
		const char *p = line + 3;
		size_t n = strcspn(p, "\n");
		snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), p);
		return 0;
	}
	return -1;
}

static void build_id(pid_t pid, char *hex, size_t len)
{
	char path[64];
	struct stat st;
	struct core_elf *e;
	hex[0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return;
	}
	if (core_elf_open(fd, &e)) /* takes fd, closed on failure too */
		return;
	core_elf_build_id(e, hex, len);
	core_elf_close(e);
}

void target_ident_read(pid_t pid, struct target_ident *id)
{
	char path[64], link[4096], *text;
	memset(id, 0, sizeof(*id));
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = 0;
		snprintf(id->exe, sizeof(id->exe), "%.*s", TARGET_IDENT_MAX, link);
	}
	build_id(pid, id->build_id, sizeof(id->build_id));
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (!core_read_file(path, CORE_READ_PROC_MAX, &text, NULL)) {
		snprintf(id->comm, sizeof(id->comm), "%.*s", (int)strcspn(text, "\n"), text);
		free(text);
	}
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	if (!core_read_file(path, CORE_READ_PROC_MAX, &text, NULL)) {
		target_ident_cgroup_v2(text, id->cgroup, sizeof(id->cgroup));
		free(text);
	}
}
