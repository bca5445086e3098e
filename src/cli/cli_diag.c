/* SPDX-License-Identifier: BSD-2-Clause */
/* The kernel says only EPERM; the reasons are (in the order checked by
 * ptrace_may_access and the LSMs): someone else traces it, different uid
 * without CAP_SYS_PTRACE, a non-dumpable (setuid, prctl) target, Yama's
 * ptrace_scope (Documentation/admin-guide/LSM/Yama.rst). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core_read.h"
#include "cli_diag.h"

#define CAP_SYS_PTRACE_BIT 19

static int have_cap_sys_ptrace(void)
{
	char *text;
	if (core_read_file("/proc/self/status", CORE_READ_PROC_MAX, &text, NULL))
		return 0;
	const char *p = strstr(text, "\nCapEff:");
	unsigned long long caps = p ? strtoull(p + 8, NULL, 16) : 0;
	free(text);
	return (caps >> CAP_SYS_PTRACE_BIT) & 1;
}

/* jeattach's own "Seccomp:" mode (0: no filter could refuse its ptrace). */
static int own_seccomp(void)
{
	char *text;
	if (core_read_file("/proc/self/status", CORE_READ_PROC_MAX, &text, NULL))
		return 1; /* unknown: keep it among the suspects */
	const char *p = strstr(text, "\nSeccomp:");
	int mode = p ? atoi(p + 9) : 0;
	free(text);
	return mode;
}

static int yama_scope(void)
{
	char *text;
	if (core_read_file("/proc/sys/kernel/yama/ptrace_scope", CORE_READ_PROC_MAX, &text, NULL))
		return -1;
	int v = atoi(text);
	free(text);
	return v;
}

void cli_diag_ptrace_denied(const struct target *t, char *buf, size_t len)
{
	int cap = have_cap_sys_ptrace(), yama = yama_scope();
	uid_t me = geteuid();
	const struct target_info *in = target_get_info(t);
	if (in->tracer && in->tracer != getpid())
		snprintf(buf, len,
			 "it is already traced by pid %d (%s); a process has one tracer at a time: "
			 "detach that debugger or tracer first",
			 (int)in->tracer, in->tracer_comm[0] ? in->tracer_comm : "?");
	else if (yama == 3)
		snprintf(buf, len,
			 "Yama's kernel.yama.ptrace_scope is 3, which forbids ptrace for everyone "
			 "until reboot; nothing can attach on this host");
	else if (!cap && in->uid != me)
		snprintf(buf, len,
			 "it runs as uid %u and you are uid %u without CAP_SYS_PTRACE; run jeattach "
			 "as root or as uid %u",
			 (unsigned)in->uid, (unsigned)me, (unsigned)in->uid);
	else if (!cap && yama == 2)
		snprintf(buf, len,
			 "Yama's kernel.yama.ptrace_scope is 2 (admin only); run jeattach as root or "
			 "with CAP_SYS_PTRACE");
	else if (!cap && yama == 1)
		snprintf(buf, len,
			 "Yama's kernel.yama.ptrace_scope is 1 (only ancestors may trace); run "
			 "jeattach as root or with CAP_SYS_PTRACE, or set the sysctl to 0");
	else if (!cap)
		snprintf(buf, len,
			 "the process is not dumpable (setuid, or prctl(PR_SET_DUMPABLE, 0)); run "
			 "jeattach as root or with CAP_SYS_PTRACE");
	else if (own_seccomp())
		snprintf(buf, len,
			 "a security module (SELinux, AppArmor) or the seccomp policy jeattach runs "
			 "under (a container's) denies ptrace; check the audit log");
	else /* no filter on jeattach itself (Seccomp: 0): not seccomp's doing */
		snprintf(buf, len,
			 "a security module (SELinux, AppArmor) denies ptrace; check the audit log");
}

void cli_diag_denied(void *arg, char *buf, size_t len)
{
	struct target *t = arg;
	target_find_tracer(t);
	cli_diag_ptrace_denied(t, buf, len);
}
