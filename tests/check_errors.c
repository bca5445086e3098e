/* SPDX-License-Identifier: BSD-2-Clause */
/* The error list and its one table (src/errors/errors.c): every stage answers
 * every code with an exit code and a whole line, conditions pick the right
 * row, and the costly ptrace diagnosis is asked for only where a message
 * names it. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include "target_struct.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "act.h"
#include "errors.h"

static int denied_calls;

static void denied(void *arg, char *buf, size_t len)
{
	(void)arg;
	denied_calls++;
	snprintf(buf, len, "Yama says no; ask an admin");
}

static const enum ja_stage stages[] = { JA_AT_OPEN, JA_AT_LOCATE, JA_AT_ATTACH, JA_AT_CALL,
					JA_AT_RELEASE };

START_TEST(every_code_at_every_stage)
{
	struct ja_err_ctx c = { .pid = 42, .why = "", .doing = "cannot x", .denied = denied };
	int errnos[] = { ESRCH, EPERM, EACCES, ENOENT, ETIMEDOUT, EIO, ENOMEM, 0 };
	char buf[1024];
	for (size_t s = 0; s < sizeof(stages) / sizeof(stages[0]); s++) {
		for (int code = JA_ERR_BASE + 1; code < JA_ERR_END; code++) {
			enum ja_exit x = ja_err_explain(stages[s], -code, &c, buf, sizeof(buf));
			ck_assert_int_ne(x, JA_EXIT_OK);
			ck_assert_uint_gt(strlen(buf), 10);
			ck_assert_ptr_null(strchr(buf, '{')); /* every placeholder filled */
			ck_assert_ptr_null(strchr(buf, '\n'));
		}
		for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
			enum ja_exit x = ja_err_explain(stages[s], -errnos[i], &c, buf, sizeof(buf));
			ck_assert_int_ne(x, JA_EXIT_OK);
			ck_assert_ptr_null(strchr(buf, '{'));
		}
	}
}
END_TEST

START_TEST(codes_have_words)
{
	for (int code = JA_ERR_BASE + 1; code < JA_ERR_END; code++) {
		const char *t = ja_err_text(code);
		ck_assert_ptr_nonnull(t);
		ck_assert_ptr_null(strstr(t, "Unknown error"));
	}
	/* Past the errno range: no code is an errno with a private meaning. */
	ck_assert_int_gt(JA_ERR_BASE, 4095);
	ck_assert_str_eq(ja_err_text(ESRCH), strerror(ESRCH));
}
END_TEST

START_TEST(rows_by_stage_and_condition)
{
	struct ja_err_ctx c = { .pid = 7, .why = "", .denied = denied };
	char buf[1024];
	ck_assert_int_eq(ja_err_explain(JA_AT_OPEN, -ESRCH, &c, buf, sizeof(buf)), JA_EXIT_GONE);
	ck_assert_str_eq(buf, "no such process; check the pid (ps -e)");
	ck_assert_int_eq(ja_err_explain(JA_AT_OPEN, -JA_ERR_THREAD_ID, &c, buf, sizeof(buf)),
			 JA_EXIT_USAGE);
	ck_assert_ptr_nonnull(strstr(buf, "/proc/7/status"));
	/* ESRCH at attach: the engine's detail when there is one. */
	ck_assert_int_eq(ja_err_explain(JA_AT_ATTACH, -ESRCH, &c, buf, sizeof(buf)), JA_EXIT_GONE);
	ck_assert_str_eq(buf, "the process exited while jeattach attached");
	c.why = "thread 9 is not a thread of process 7";
	ja_err_explain(JA_AT_ATTACH, -ESRCH, &c, buf, sizeof(buf));
	ck_assert_str_eq(buf, "cannot attach: thread 9 is not a thread of process 7");
	/* {why|fallback} and {:why} */
	c.why = "";
	ck_assert_int_eq(ja_err_explain(JA_AT_ATTACH, -ETIMEDOUT, &c, buf, sizeof(buf)),
			 JA_EXIT_TIMEOUT);
	ck_assert_str_eq(buf, "cannot attach: timeout; retry, or give a larger --timeout");
	/* A reason that says what to do itself (threads in timed waits, the
	 * --timeout that would do) gets no second fix. */
	struct ja_reason tw = { .kind = JA_WHY_TIMED_WAITS, .tid = 101, .n = 11 };
	snprintf(tw.detail, sizeof(tw.detail), "threads 101 and 102 stayed in timed waits of 10 s at most");
	char twhy[400];
	ja_reason_render(&tw, twhy, sizeof(twhy));
	c.why = twhy;
	c.own_fix = ja_reason_own_fix(&tw);
	ck_assert_int_eq(ja_err_explain(JA_AT_ATTACH, -ETIMEDOUT, &c, buf, sizeof(buf)),
			 JA_EXIT_TIMEOUT);
	ck_assert_str_eq(buf, "cannot attach: no thread was at a safe point before the timeout: "
			      "threads 101 and 102 stayed in timed waits of 10 s at most, which an "
			      "interrupt before the next one begins would make end late; give --tid 101 "
			      "--timeout 11 to watch that thread until its next wait begins");
	c.own_fix = 0;
	c.why = "";
	ja_err_explain(JA_AT_LOCATE, -EIO, &c, buf, sizeof(buf));
	ck_assert_str_eq(buf, "cannot locate jemalloc: Input/output error");
	c.why = "libx.so replaced";
	ja_err_explain(JA_AT_LOCATE, -EIO, &c, buf, sizeof(buf));
	ck_assert_str_eq(buf, "cannot locate jemalloc: Input/output error: libx.so replaced");
	/* --prefix picks its own row. */
	c.why = "";
	ja_err_explain(JA_AT_LOCATE, -ENOENT, &c, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "je_mallctl or _rjem_mallctl"));
	c.prefix = "my_";
	ck_assert_int_eq(ja_err_explain(JA_AT_LOCATE, -ENOENT, &c, buf, sizeof(buf)),
			 JA_EXIT_NOJEMALLOC);
	ck_assert_ptr_nonnull(strstr(buf, "defines my_mallctl; check --prefix"));
	/* ESRCH during a call: target_fate's account, "exited" only when
	 * nothing better is known. */
	c.prefix = NULL;
	c.doing = "cannot dump a heap profile";
	c.why = "the process replaced its program (execve: now /usr/bin/sleep)";
	ck_assert_int_eq(ja_err_explain(JA_AT_CALL, -ESRCH, &c, buf, sizeof(buf)), JA_EXIT_GONE);
	ck_assert_str_eq(buf, "cannot dump a heap profile: the process replaced its program "
			      "(execve: now /usr/bin/sleep)");
	c.why = "";
	ja_err_explain(JA_AT_CALL, -ESRCH, &c, buf, sizeof(buf));
	ck_assert_str_eq(buf, "cannot dump a heap profile: the process exited");
}
END_TEST

/* A reason recorded as data says the same words it said when it was
 * written as text at each site (errors_reason.c). */
START_TEST(reasons_in_words)
{
	char buf[512];
	struct ja_reason r = { .kind = JA_WHY_NONE };
	ja_reason_render(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
	r = (struct ja_reason){ .kind = JA_WHY_NOT_THREAD, .pid = 7, .tid = 9 };
	ja_reason_render(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "thread 9 is not a thread of process 7");
	r = (struct ja_reason){ .kind = JA_WHY_NO_SAFE_POINT };
	ja_reason_render(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "no thread was at a safe point before the timeout (none could be "
			      "stopped)");
	snprintf(r.detail, sizeof(r.detail), "thread 5 is inside jemalloc");
	ja_reason_render(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "no thread was at a safe point before the timeout (thread 5 is "
			      "inside jemalloc)");
	r = (struct ja_reason){ .kind = JA_WHY_NO_SCRATCH, .err = ENOMEM, .n = 1088 };
	ja_reason_render(&r, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "(mmap of 1088 KiB: Cannot allocate memory)"));
	ck_assert_ptr_nonnull(strstr(buf, "RLIMIT_AS or vm.max_map_count is reached"));
	r.err = EPERM;
	ja_reason_render(&r, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "; nothing was done"));
	r = (struct ja_reason){ .kind = JA_WHY_CALL_SIGNAL, .sig = SIGSEGV, .addr = 0x28f8 };
	ja_reason_render(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "the injected call got signal 11 (Segmentation fault) at 0x28f8");
	r = (struct ja_reason){ .kind = JA_WHY_SELFLOCK, .tid = 3, .addr = 0x1000 };
	ja_reason_render(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "thread 3 waited on a lock it holds itself (the mutex at 0x1000) "
			      "inside the injected call");
	r = (struct ja_reason){ .kind = JA_WHY_SECCOMP_KILLS, .n = SECCOMP_RET_KILL_THREAD };
	snprintf(r.detail, sizeof(r.detail), "pipe2");
	ja_reason_render(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "the borrowed thread on pipe2 (filter action 0)");
	r.n = SECCOMP_RET_KILL_PROCESS;
	ja_reason_render(&r, buf, sizeof(buf));
	ck_assert_str_eq(buf, "the process on pipe2 (filter action 0x80000000)");
	/* Every kind has words, and none overflows a short buffer. */
	for (int k = JA_WHY_TEXT; k <= JA_WHY_SECCOMP_KILLS; k++) {
		r = (struct ja_reason){ .kind = (enum ja_why)k, .tid = 1, .sig = 9 };
		snprintf(r.detail, sizeof(r.detail), "d");
		ja_reason_render(&r, buf, sizeof(buf));
		ck_assert_int_gt((int)strlen(buf), 0);
		char small[8];
		ja_reason_render(&r, small, sizeof(small));
		ck_assert_int_lt((int)strlen(small), 8);
	}
}
END_TEST

START_TEST(denied_only_when_named)
{
	struct ja_err_ctx c = { .pid = 7, .why = "", .denied = denied };
	char buf[1024];
	denied_calls = 0;
	/* At locate EPERM means map_files/root: no ptrace diagnosis. */
	ck_assert_int_eq(ja_err_explain(JA_AT_LOCATE, -EPERM, &c, buf, sizeof(buf)), JA_EXIT_PERM);
	ck_assert_int_eq(denied_calls, 0);
	ck_assert_int_eq(ja_err_explain(JA_AT_ATTACH, -EPERM, &c, buf, sizeof(buf)), JA_EXIT_PERM);
	ck_assert_int_eq(denied_calls, 1);
	ck_assert_str_eq(buf, "cannot attach: permission denied: Yama says no; ask an admin");
}
END_TEST

START_TEST(truncates_whole)
{
	struct ja_err_ctx c = { .pid = 7, .why = "", .doing = "cannot do something long" };
	char buf[16];
	ja_err_explain(JA_AT_CALL, -ESRCH, &c, buf, sizeof(buf));
	ck_assert_uint_eq(strlen(buf), sizeof(buf) - 1);
	ck_assert_str_eq(buf, "cannot do somet");
}
END_TEST

/* A child to be the target of act_cause.c's questions: with no free
 * descriptor below its RLIMIT_NOFILE (tight), or under an allow-all
 * seccomp filter (filtered); it waits to be killed. */
static int no_filter; /* the last child could not install its filter */
static pid_t child(int tight, int filtered)
{
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		for (int fd = 0; fd < 3; fd++)
			if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
				_exit(1);
		if (dup2(p[1], 3) != 3)
			_exit(1);
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
		struct rlimit rl;
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = tight ? 4 : rl.rlim_cur; /* 0..3 open: none free */
		if (setrlimit(RLIMIT_NOFILE, &rl))
			_exit(1);
		struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		struct sock_fprog prog = { 1, &allow };
		if (filtered && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			_exit(1);
		/* qemu-user refuses every seccomp filter (EINVAL): "n" */
		const char *ready = "r";
		if (filtered && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog))
			ready = "n";
		if (write(3, ready, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	char c;
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	close(p[0]);
	no_filter = c == 'n';
	return pid;
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A seccomp filter is blamed only where /proc shows one; descriptors only
 * where there are too few (act_cause.c). Before, a process with no free
 * descriptor and no filter was told "a seccomp filter or an old kernel
 * forbids it". */
START_TEST(causes_from_what_is_there)
{
	char buf[600];
	struct act_result r;
	pid_t pid = child(1, 0);
	struct target t = { .pid = pid, .io_pid = pid };
	act_syscall_cause(&t, "pipe2", EMFILE, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "no free file descriptor (EMFILE: RLIMIT_NOFILE 4, 0 free)"));
	ck_assert_ptr_null(strstr(buf, "seccomp"));
	act_syscall_cause(&t, "pipe2", EPERM, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "with no seccomp filter in place"));
	act_syscall_cause(&t, "pipe2", ENOSYS, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "this kernel has no pipe2"));
	act_result_init(&r, ACT_DUMP);
	ck_assert_int_eq(act_syscall_failed(&t, &r, "cannot dump", "pipe2", EMFILE), JA_EXIT_UNSAFE);
	ck_assert_ptr_nonnull(strstr(r.msg, "cannot dump: pipe2 in the target failed: the "
					    "process has no free file descriptor"));
	act_result_free(&r);
	reap(pid);

	pid = child(0, 1);
	if (no_filter) { /* qemu-user: no seccomp; the rest was checked */
		reap(pid);
		return;
	}
	t.pid = t.io_pid = pid;
	act_syscall_cause(&t, "pipe2", EPERM, buf, sizeof(buf));
	ck_assert_ptr_nonnull(strstr(buf, "seccomp filter (Seccomp: 2 in /proc/"));
	reap(pid);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("errors");
	TCase *tc = tcase_create("table");
	tcase_add_test(tc, every_code_at_every_stage);
	tcase_add_test(tc, codes_have_words);
	tcase_add_test(tc, rows_by_stage_and_condition);
	tcase_add_test(tc, reasons_in_words);
	tcase_add_test(tc, denied_only_when_named);
	tcase_add_test(tc, truncates_whole);
	tcase_add_test(tc, causes_from_what_is_there);
	suite_add_tcase(s, tc);
	return check_run(s);
}
