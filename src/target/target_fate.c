/* SPDX-License-Identifier: BSD-2-Clause */
/* What became of a process whose thread went away under jeattach: told as
 * it happened, never "exited" while the pid lives on.
 *
 * - An execve by any thread kills every other thread first (fs/exec.c,
 *   de_thread -> zap_other_threads), the one jeattach holds included; the
 *   execing thread then takes the leader's pid and its start time
 *   (de_thread copies start_time and start_boottime), so the process is
 *   the same pid, the same start time, and another program. A held leader
 *   is released silently (de_thread: "release_task()->ptrace_unlink()
 *   silently, the tracer can sleep in do_wait()"): its tracer sees ECHILD,
 *   no status at all. No PTRACE_O_TRACEEXEC is needed to know it.
 * - A process that dies: each traced thread's exit is reported to its
 *   tracer (exit_notify -> do_notify_parent while tsk->ptrace), with the
 *   group's exit code (do_group_exit: sig->group_exit_code), so the held
 *   thread's waitpid status is the process's: WIFSIGNALED 9 for SIGKILL
 *   (the OOM killer's too), SIGXFSZ, or WIFEXITED with exit()'s status.
 *   When no traced thread's status was seen, a zombie's /proc/PID/stat
 *   field 52 (exit_code, Linux 3.5+, proc(5)) holds the same word until
 *   its parent reaps it. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core_read.h"
#include "target.h"
#include "target_struct.h"

void target_thread_ended(struct target *t, int status)
{
	if (status == -1 || WIFEXITED(status) || WIFSIGNALED(status)) {
		t->ended_status = status;
		t->ended_known = 1;
	}
}

/* A status to tell: an exit or a signal, not -1 (vanished: ECHILD). */
static int told(int status)
{
	return status != -1 && (WIFEXITED(status) || WIFSIGNALED(status));
}

/* Signal names as the kernel numbers them on this architecture (the
 * SIG* macros), for the few a process is killed by. */
static const char *signame(int sig)
{
	static const char *const names[] = {
		[SIGHUP] = "SIGHUP",   [SIGINT] = "SIGINT",     [SIGQUIT] = "SIGQUIT",
		[SIGILL] = "SIGILL",   [SIGTRAP] = "SIGTRAP",   [SIGABRT] = "SIGABRT",
		[SIGBUS] = "SIGBUS",   [SIGFPE] = "SIGFPE",     [SIGKILL] = "SIGKILL",
		[SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV",   [SIGUSR2] = "SIGUSR2",
		[SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM",   [SIGTERM] = "SIGTERM",
		[SIGXCPU] = "SIGXCPU", [SIGXFSZ] = "SIGXFSZ",   [SIGSYS] = "SIGSYS",
		[SIGVTALRM] = "SIGVTALRM", [SIGPROF] = "SIGPROF",
	};
	if (sig > 0 && sig < (int)(sizeof(names) / sizeof(names[0])) && names[sig])
		return names[sig];
	return sig >= SIGRTMIN && sig <= SIGRTMAX ? "a real-time signal" : "unnamed";
}

/* The fields of the leader's /proc/PID/stat this needs. */
struct leader {
	char state;                 /* field 3 */
	unsigned long long start;   /* 22: starttime */
	unsigned long long startcode, startstack; /* 26, 28: 0 without an mm */
	int exit_code;              /* 52 (Linux 3.5+): a zombie's status; -1 */
};

static int leader_stat(pid_t pid, struct leader *l)
{
	char path[64], buf[1024];
	memset(l, 0, sizeof(*l));
	l->exit_code = -1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	char *p = strrchr(buf, ')'); /* comm may hold anything but NUL */
	if (!p || p[1] != ' ')
		return -1;
	p += 2;
	l->state = *p;
	for (int field = 3; *p; p++) {
		if (*p != ' ')
			continue;
		field++;
		if (field == 22)
			l->start = strtoull(p + 1, NULL, 10);
		else if (field == 26)
			l->startcode = strtoull(p + 1, NULL, 10);
		else if (field == 28)
			l->startstack = strtoull(p + 1, NULL, 10);
		else if (field == 52)
			l->exit_code = atoi(p + 1);
	}
	return 0;
}

/* The program's link and file. */
static void program(pid_t pid, char *exe, size_t len, unsigned long long *dev,
		    unsigned long long *ino)
{
	char path[64];
	struct stat st;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(path, exe, len - 1);
	exe[n > 0 ? n : 0] = 0;
	*dev = *ino = 0;
	if (!stat(path, &st)) {
		*dev = (unsigned long long)st.st_dev;
		*ino = (unsigned long long)st.st_ino;
	}
}

void target_fate_mark(struct target *t)
{
	struct leader l;
	if (!leader_stat(t->pid, &l)) {
		t->info.start = l.start;
		t->info.startcode = l.startcode;
		t->info.startstack = l.startstack;
	}
	program(t->io_pid, t->info.exe, sizeof(t->info.exe), &t->info.exe_dev, &t->info.exe_ino);
}

/* Both known and different (a leader that ended has no mm: its fields
 * read 0, which is no news). */
static int differs(unsigned long long was, unsigned long long now)
{
	return was && now && was != now;
}

/* Where a killing signal usually comes from, when that is a hint. */
static const char *hint(int sig)
{
	switch (sig) {
	case SIGKILL: /* mm/oom_kill.c: __oom_kill_process sends SIGKILL */
		return ", as the OOM killer sends it: see the kernel log";
	case SIGXFSZ: /* a write past RLIMIT_FSIZE: send_sig(SIGXFSZ) in generic_write_check_limits */
		return ", as a write past RLIMIT_FSIZE gets";
	default:
		return "";
	}
}

static void say_status(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "the process was killed by signal %d (%s%s)%s", WTERMSIG(status),
			 signame(WTERMSIG(status)), hint(WTERMSIG(status)),
			 WCOREDUMP(status) ? ", core dumped" : "");
	else
		snprintf(buf, len, "the process exited with status %d", WEXITSTATUS(status));
}

int target_alive(const struct target *t)
{
	char path[64], *text;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)t->io_pid);
	if (core_read_file(path, CORE_READ_PROC_MAX, &text, NULL))
		return 0;
	const char *v = target_status_field(text, "State");
	/* An exiting process drops its memory (exit_mm) before it becomes a
	 * zombie; meanwhile /proc shows it running but without Vm* lines, and
	 * its maps are empty: that is gone too. */
	int alive = v && *v != 'Z' && *v != 'X' && target_status_field(text, "VmSize");
	free(text);
	return alive;
}

enum target_fate target_fate(const struct target *t, char *buf, size_t len)
{
	struct leader l;
	int there = !leader_stat(t->pid, &l) &&
		    (!t->info.start || l.start == t->info.start); /* not a reused pid */
	if (there && target_alive(t)) {
		char exe[256];
		unsigned long long dev, ino;
		program(t->io_pid, exe, sizeof(exe), &dev, &ino);
		/* Another program is another file: compared by device and
		 * inode, not by name (an upgrade that deletes the binary makes
		 * the link read "... (deleted)": the same program). The same
		 * program exec'd again is a new image: its code and stack lie
		 * elsewhere (ASLR). */
		int other = differs(t->info.exe_ino, ino) || differs(t->info.exe_dev, dev) ||
			    differs(t->info.startcode, l.startcode) ||
			    differs(t->info.startstack, l.startstack);
		/* A thread killed alone by a signal while the process lives:
		 * a seccomp filter's SECCOMP_RET_KILL_THREAD (SIGSYS). */
		int st = t->ended_status;
		if (t->ended_known && told(st) && WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL &&
		    !other) {
			snprintf(buf, len, "the thread jeattach held was killed by signal %d (%s); "
				 "the process runs on without it", WTERMSIG(st), signame(WTERMSIG(st)));
			return TARGET_AS_WAS;
		}
		/* Else a traced thread that ended while the process lives was
		 * killed by an execve: a fatal signal or exit_group ends every
		 * thread, and the held thread ran jeattach's call, not a
		 * pthread_exit. */
		if (t->ended_known || other) {
			snprintf(buf, len, "the process replaced its program (execve%s%s)",
				 *exe ? ": now " : "", exe);
			return TARGET_EXECED;
		}
		snprintf(buf, len, "the thread jeattach held ended; the process runs on");
		return TARGET_AS_WAS;
	}
	if (t->ended_known && told(t->ended_status))
		say_status(t->ended_status, buf, len);
	else if (there && (l.state == 'Z' || l.state == 'X') && l.exit_code >= 0)
		say_status(l.exit_code, buf, len);
	else
		snprintf(buf, len, "the process exited");
	return TARGET_GONE;
}
