/* SPDX-License-Identifier: BSD-2-Clause */
/* What a dump reads of the target's limits before it is made
 * (target_limits.c, target_cgroup.c), from recorded file contents; and a
 * profile's maps section made whole (act_dump_maps.c). */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "act.h"
#include "core_read.h"
#include "target_cgroup.h"
#include "target_limits.h"

/* Debian 12's /proc/PID/limits, as the kernel prints it (fs/proc/base.c). */
static const char limits[] =
	"Limit                     Soft Limit           Hard Limit           Units     \n"
	"Max cpu time              unlimited            unlimited            seconds   \n"
	"Max file size             262144               unlimited            bytes     \n"
	"Max data size             unlimited            unlimited            bytes     \n"
	"Max open files            1024                 1048576              files     \n"
	"Max locked memory         8388608              8388608              bytes     \n";

START_TEST(limits_soft)
{
	uint64_t v = 0;
	ck_assert_int_eq(tl_limit_soft(limits, "Max open files", &v), 0);
	ck_assert_uint_eq(v, 1024);
	ck_assert_int_eq(tl_limit_soft(limits, "Max file size", &v), 0);
	ck_assert_uint_eq(v, 262144);
	ck_assert_int_eq(tl_limit_soft(limits, "Max cpu time", &v), 0);
	ck_assert(v == TL_UNLIMITED);
	/* a prefix of another name is not that name */
	ck_assert_int_eq(tl_limit_soft(limits, "Max open", &v), -1);
	ck_assert_int_eq(tl_limit_soft(limits, "Max processes", &v), -1);
}
END_TEST

START_TEST(cgroup_numbers)
{
	uint64_t v = 0;
	ck_assert_int_eq(tl_cg_number("max\n", &v), 0);
	ck_assert(v == TL_UNLIMITED);
	ck_assert_int_eq(tl_cg_number("104857600\n", &v), 0);
	ck_assert_uint_eq(v, 104857600);
	/* v1 without a limit: PAGE_COUNTER_MAX pages in bytes */
	ck_assert_int_eq(tl_cg_number("9223372036854771712\n", &v), 0);
	ck_assert(v == TL_UNLIMITED);
	ck_assert_int_eq(tl_cg_number("", &v), -1);
}
END_TEST

START_TEST(keyed_and_headroom)
{
	static const char stat[] = "anon 5439488\nfile 52539392\nactive_file 38432768\n"
				   "inactive_file 14106624\nshmem 0\n";
	ck_assert_uint_eq(tl_keyed(stat, "active_file"), 38432768);
	ck_assert_uint_eq(tl_keyed(stat, "inactive_file"), 14106624);
	ck_assert_uint_eq(tl_keyed(stat, "file_mapped"), 0);
	ck_assert_uint_eq(tl_keyed("Name:\tx\nFDSize:\t64\n", "FDSize:"), 64);
	ck_assert(tl_headroom(TL_UNLIMITED, 1, 0) == TL_UNLIMITED);
	ck_assert_uint_eq(tl_headroom(100 << 20, 90 << 20, 0), 10 << 20);
	ck_assert_uint_eq(tl_headroom(100 << 20, 90 << 20, 20 << 20), 30 << 20);
	ck_assert_uint_eq(tl_headroom(100 << 20, 120 << 20, 0), 0); /* over: nothing */
	ck_assert_uint_eq(tl_headroom(100 << 20, 10 << 20, 20 << 20), 100 << 20);
}
END_TEST

/* A hybrid host (v1 controllers, v2 unified without them) and a v2 one. */
static const char mountinfo[] =
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
	"37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n"
	"39 31 0:36 /sub /mnt/partial rw,relatime - cgroup cgroup rw,pids\n"
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
static const char cgroups[] = "6:freezer:/\n"
			      "4:memory:/process_api/f4f5\n"
			      "3:cpu,cpuacct:/x\n"
			      "1:pids:/p\n"
			      "0::/user.slice/app.service\n";

START_TEST(cgroup_found)
{
	struct target_cgroup cg;
	ck_assert_int_eq(target_cgroup_parse(cgroups, mountinfo, "memory", &cg), 0);
	ck_assert_str_eq(cg.mount, "/sys/fs/cgroup/memory");
	ck_assert_str_eq(cg.path, "/process_api/f4f5");
	char f[1300];
	target_cgroup_file(&cg, "memory.limit_in_bytes", f, sizeof(f));
	ck_assert_str_eq(f, "/sys/fs/cgroup/memory/process_api/f4f5/memory.limit_in_bytes");
	ck_assert_int_eq(target_cgroup_parent(&cg), 0);
	ck_assert_str_eq(cg.path, "/process_api");
	ck_assert_int_eq(target_cgroup_parent(&cg), 0);
	ck_assert_str_eq(cg.path, "/");
	target_cgroup_file(&cg, "memory.limit_in_bytes", f, sizeof(f));
	ck_assert_str_eq(f, "/sys/fs/cgroup/memory/memory.limit_in_bytes");
	ck_assert_int_eq(target_cgroup_parent(&cg), -1);

	ck_assert_int_eq(target_cgroup_parse(cgroups, mountinfo, NULL, &cg), 0);
	ck_assert_str_eq(cg.mount, "/sys/fs/cgroup/unified");
	ck_assert_str_eq(cg.path, "/user.slice/app.service");
	ck_assert_int_eq(target_cgroup_parse(cgroups, mountinfo, "freezer", &cg), 0);
	ck_assert_str_eq(cg.path, "/");
	/* "cpu" among "cpu,cpuacct", but no hierarchy of it mounted here */
	ck_assert_int_eq(target_cgroup_parse(cgroups, mountinfo, "cpu", &cg), -1);
	/* mounted, but not at its root: not ours to resolve */
	ck_assert_int_eq(target_cgroup_parse(cgroups, mountinfo, "pids", &cg), -1);
	/* "memory" is not "memory_recursiveprot" or a prefix of a name */
	ck_assert_int_eq(target_cgroup_parse("4:memoryx:/a\n", mountinfo, "memory", &cg), -1);
	/* outside our cgroup namespace */
	ck_assert_int_eq(target_cgroup_parse("0::/../../x\n", mountinfo, NULL, &cg), -1);
}
END_TEST

/* A profile in a memfd, as act_dump leaves it. */
static int profile(const char *text)
{
	int fd = memfd_create("check", 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(core_write_all(fd, text, strlen(text)), 0);
	return fd;
}

static char *contents(int fd)
{
	char *t;
	lseek(fd, 0, SEEK_SET);
	ck_assert_int_eq(core_read_fd(fd, 1 << 20, &t, NULL), 0);
	return t;
}

#define HEAD "heap_v2/524288\n  t*: 1: 48 [0: 0]\n@ 0x401000\n"
#define OURS "400000-402000 r-xp 00000000 fe:00 1 /bin/v\n"
#define OTHER "7f0000000000-7f0000001000 r-xp 00000000 fe:00 2 /sbin/init\n"

START_TEST(maps_completed)
{
	const char *how;
	int fd = profile(HEAD "\nMAPPED_LIBRARIES:\n" OURS);
	ck_assert_int_eq(act_dump_complete_maps(fd, OURS, 0x401000, &how), 0);
	ck_assert_str_eq(how, "jemalloc"); /* its own: kept */
	close(fd);

	fd = profile(HEAD); /* jemalloc could not open its maps */
	ck_assert_int_eq(act_dump_complete_maps(fd, OURS, 0x401000, &how), 0);
	ck_assert_str_eq(how, "jeattach");
	char *t = contents(fd);
	ck_assert_str_eq(t, HEAD "\nMAPPED_LIBRARIES:\n" OURS);
	free(t);
	close(fd);

	/* another process's (getpid() in a pid namespace with a foreign /proc) */
	fd = profile(HEAD "\nMAPPED_LIBRARIES:\n" OTHER);
	ck_assert_int_eq(act_dump_complete_maps(fd, OURS, 0x401000, &how), 0);
	ck_assert_str_eq(how, "jeattach");
	t = contents(fd);
	ck_assert_str_eq(t, HEAD "\nMAPPED_LIBRARIES:\n" OURS);
	free(t);
	close(fd);

	fd = profile(HEAD);
	ck_assert_int_eq(act_dump_complete_maps(fd, NULL, 0x401000, &how), -ENOENT);
	/* jeattach's reading, empty too (an ended leader's /proc/PID/maps) */
	ck_assert_int_eq(act_dump_complete_maps(fd, "", 0x401000, &how), -ENOENT);
	close(fd);
	fd = profile("heap profile: 1: 48 [1: 48] @ heapprofile\n");
	ck_assert_int_eq(act_dump_complete_maps(fd, NULL, 0x401000, &how), 0);
	close(fd);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("limits");
	TCase *tc = tcase_create("parse");
	tcase_add_test(tc, limits_soft);
	tcase_add_test(tc, cgroup_numbers);
	tcase_add_test(tc, keyed_and_headroom);
	tcase_add_test(tc, cgroup_found);
	tcase_add_test(tc, maps_completed);
	suite_add_tcase(s, tc);
	return check_run(s);
}
