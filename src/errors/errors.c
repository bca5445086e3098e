/* SPDX-License-Identifier: BSD-2-Clause */
/* The error list's words, and the one table from (stage, code) to exit code
 * and message. Messages are templates: {pid}, {why}, {doing}, {prefix},
 * {denied}, {err} (the code in words), {arch}, {:why} (": " and the detail,
 * or nothing), {why|TEXT} (the detail, or TEXT when there is none). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "arch.h"
#include "errors.h"

static const struct {
	enum ja_exit exit;
	const char *text;
} codes[] = {
#define JA_ERR_ROW(name, exit, text) { exit, text },
	JA_ERRORS(JA_ERR_ROW)
#undef JA_ERR_ROW
};

const char *ja_err_text(int code)
{
	if (code > JA_ERR_BASE && code < JA_ERR_END)
		return codes[code - JA_ERR_BASE - 1].text;
	return strerror(code);
}

enum { ANY = 0 };
enum row_cond {
	ALWAYS,
	IF_WHY,    /* only when the engine recorded a detail */
	IF_PREFIX, /* only when --prefix was given */
	IF_OWN_FIX, /* only when the detail says what to do */
};

static const struct row {
	enum ja_stage stage;
	int code; /* positive errno or JA_ERR_*; ANY: the stage's default */
	enum row_cond cond;
	enum ja_exit exit;
	const char *text;
} rows[] = {
	{ JA_AT_OPEN, ESRCH, ALWAYS, JA_EXIT_GONE, "no such process; check the pid (ps -e)" },
	{ JA_AT_OPEN, JA_ERR_THREAD_ID, ALWAYS, JA_EXIT_USAGE,
	  "this is a thread id, not a process id; give the process id (Tgid in "
	  "/proc/{pid}/status)" },
	{ JA_AT_OPEN, JA_ERR_KERNEL_THREAD, ALWAYS, JA_EXIT_UNSAFE,
	  "cannot attach: it is a kernel thread, which has no user memory and no allocator" },
	{ JA_AT_OPEN, JA_ERR_ZOMBIE, ALWAYS, JA_EXIT_GONE,
	  "cannot attach: it is a zombie (exited, not yet reaped by its parent)" },
	{ JA_AT_OPEN, JA_ERR_CLASS32, ALWAYS, JA_EXIT_UNSAFE,
	  "cannot attach: it is a 32-bit process; jeattach handles 64-bit ({arch}) processes "
	  "only" },
	{ JA_AT_OPEN, EPERM, ALWAYS, JA_EXIT_PERM,
	  "cannot read its /proc entries: permission denied: {denied}" },
	{ JA_AT_OPEN, ANY, ALWAYS, JA_EXIT_INTERNAL, "cannot read /proc/{pid}: {err}" },

	{ JA_AT_LOCATE, ENOENT, IF_PREFIX, JA_EXIT_NOJEMALLOC,
	  "no jemalloc found: no object of the process defines {prefix}mallctl{:why}; check "
	  "--prefix, or the binary may be stripped (keep its .symtab)" },
	{ JA_AT_LOCATE, ENOENT, ALWAYS, JA_EXIT_NOJEMALLOC,
	  "no jemalloc found: no object of the process defines mallctl, je_mallctl or "
	  "_rjem_mallctl{:why}; if it uses another prefix give --prefix, if the binary is "
	  "stripped it cannot be found" },
	{ JA_AT_LOCATE, ESRCH, ALWAYS, JA_EXIT_GONE,
	  "the process exited while jeattach read its objects" },
	{ JA_AT_LOCATE, EPERM, ALWAYS, JA_EXIT_PERM,
	  "cannot read the program's file through /proc/{pid}/map_files or /proc/{pid}/root: "
	  "permission denied; run jeattach as root or with CAP_SYS_PTRACE" },
	{ JA_AT_LOCATE, ANY, ALWAYS, JA_EXIT_INTERNAL, "cannot locate jemalloc: {err}{:why}" },

	{ JA_AT_ATTACH, EPERM, ALWAYS, JA_EXIT_PERM, "cannot attach: permission denied: {denied}" },
	{ JA_AT_ATTACH, ESRCH, IF_WHY, JA_EXIT_GONE, "cannot attach: {why}" },
	{ JA_AT_ATTACH, ESRCH, ALWAYS, JA_EXIT_GONE, "the process exited while jeattach attached" },
	{ JA_AT_ATTACH, ETIMEDOUT, IF_OWN_FIX, JA_EXIT_TIMEOUT, "cannot attach: {why}" },
	{ JA_AT_ATTACH, ETIMEDOUT, ALWAYS, JA_EXIT_TIMEOUT,
	  "cannot attach: {why|timeout}; retry, or give a larger --timeout" },
	{ JA_AT_ATTACH, JA_ERR_NOT_THREAD, ALWAYS, JA_EXIT_USAGE,
	  "cannot attach: {why}; give one of its threads (ls /proc/{pid}/task)" },
	{ JA_AT_ATTACH, JA_ERR_CLASS32, ALWAYS, JA_EXIT_UNSAFE,
	  "cannot attach: a thread runs in 32-bit mode" },
	{ JA_AT_ATTACH, JA_ERR_FROZEN, ALWAYS, JA_EXIT_UNSAFE,
	  "cannot attach: the process is frozen by its cgroup ({why}); a borrowed thread would "
	  "not run before it is thawed; nothing was done; thaw it first (v2: echo 0 > "
	  "cgroup.freeze; v1: echo THAWED > freezer.state)" },
	{ JA_AT_ATTACH, JA_ERR_STOPPED_LOCK, ALWAYS, JA_EXIT_UNSAFE,
	  "cannot attach: the process is stopped and {why}, where it may hold a lock the call "
	  "needs; nothing was done; continue it first (kill -CONT {pid}) or retry while it "
	  "runs" },
	{ JA_AT_ATTACH, JA_ERR_NO_SCRATCH, ALWAYS, JA_EXIT_UNSAFE, "cannot attach: {why}" },
	{ JA_AT_ATTACH, ANY, ALWAYS, JA_EXIT_INTERNAL, "cannot attach: {err}" },

	/* {why}: target_fate's account (exec, the killing signal, the exit
	 * status), never "exited" while the pid lives on. */
	{ JA_AT_CALL, ESRCH, ALWAYS, JA_EXIT_GONE, "{doing}: {why|the process exited}" },
	{ JA_AT_CALL, JA_ERR_FROZEN, ALWAYS, JA_EXIT_UNSAFE,
	  "{doing}: {why}; the call goes on in the target when it is thawed, and its thread "
	  "then restores itself; jeattach did not wait" },
	{ JA_AT_CALL, JA_ERR_LEFT, ALWAYS, JA_EXIT_INTERNAL,
	  "{doing}: interrupted while the call ran; it goes on in the target, whose thread "
	  "finishes it and restores itself{:why}" },
	{ JA_AT_CALL, JA_ERR_SECCOMP, ALWAYS, JA_EXIT_UNSAFE,
	  "{doing}: the target's seccomp filter forbids a system call jemalloc makes ({why}); "
	  "the call was undone, nothing was changed" },
	{ JA_AT_CALL, JA_ERR_SECCOMP_KILL, ALWAYS, JA_EXIT_UNSAFE,
	  "{doing}: the target's seccomp filter would kill {why}; nothing was done and the "
	  "process is as it was; relax the filter (systemd: SystemCallFilter= and "
	  "SystemCallErrorNumber=) or profile from inside the process" },
	{ JA_AT_CALL, JA_ERR_SECCOMP_UNREADABLE, ALWAYS, JA_EXIT_UNSAFE,
	  "{doing}: the thread runs under a seccomp filter jeattach cannot read ({why}), and "
	  "such a filter may kill the process on a system call this makes (systemd's "
	  "SystemCallFilter= does by default); nothing was done; run jeattach with "
	  "CAP_SYS_ADMIN so that it can read the filter" },
	{ JA_AT_CALL, JA_ERR_SELFLOCK, ALWAYS, JA_EXIT_UNSAFE,
	  "{doing}: {why}; the call was abandoned at that lock and the thread put back as "
	  "found; retry, or name another thread with --tid" },
	{ JA_AT_CALL, JA_ERR_FAULT, ALWAYS, JA_EXIT_UNSAFE,
	  "{doing}: the injected call faulted ({why}); the thread was restored and the fault "
	  "not delivered; please report this" },
	{ JA_AT_CALL, JA_ERR_SCRATCH, ALWAYS, JA_EXIT_INTERNAL,
	  "{doing}: the value does not fit jeattach's scratch space in the target; use a "
	  "shorter name or value" },
	{ JA_AT_CALL, ANY, ALWAYS, JA_EXIT_INTERNAL, "{doing}: {err}" },

	{ JA_AT_RELEASE, ESRCH, ALWAYS, JA_EXIT_GONE, "cannot restore the borrowed thread: {err}" },
	{ JA_AT_RELEASE, ANY, ALWAYS, JA_EXIT_INTERNAL, "cannot restore the borrowed thread: {err}" },
};

static const struct row *find_row(enum ja_stage stage, int code, const struct ja_err_ctx *c)
{
	const struct row *any = NULL;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		if (r->stage != stage)
			continue;
		if (r->code == ANY && !any)
			any = r;
		if (r->code != code || (r->cond == IF_WHY && !*c->why) ||
		    (r->cond == IF_PREFIX && !c->prefix) || (r->cond == IF_OWN_FIX && !c->own_fix))
			continue;
		return r;
	}
	return any;
}

/* The value of {name}, or of {why|fallback}. */
static const char *value(const char *name, size_t n, int code, const struct ja_err_ctx *c)
{
	static char pid[16];
	const char *bar = memchr(name, '|', n);
	if (bar && bar - name == 3 && !strncmp(name, "why", 3))
		return *c->why ? c->why : NULL; /* NULL: use the fallback */
#define IS(s) (n == sizeof(s) - 1 && !strncmp(name, s, n))
	if (IS("pid")) {
		snprintf(pid, sizeof(pid), "%d", (int)c->pid);
		return pid;
	}
	if (IS("why"))
		return c->why;
	if (IS("doing"))
		return c->doing ? c->doing : "";
	if (IS("prefix"))
		return c->prefix ? c->prefix : "";
	if (IS("denied")) {
		static char denied[512];
		denied[0] = 0;
		if (c->denied)
			c->denied(c->arg, denied, sizeof(denied));
		return denied;
	}
	if (IS("err"))
		return ja_err_text(code);
	if (IS("arch"))
		return ARCH_NAME;
#undef IS
	return "";
}

enum ja_exit ja_err_explain(enum ja_stage stage, int e, const struct ja_err_ctx *ctx, char *buf,
			    size_t len)
{
	static const struct ja_err_ctx none = { .why = "" };
	const struct ja_err_ctx *c = ctx ? ctx : &none;
	int code = e < 0 ? -e : e;
	if (code == EACCES) /* the kernel says either for a refused ptrace or open */
		code = EPERM;
	const struct row *r = find_row(stage, code, c);
	size_t o = 0;
	buf[0] = 0;
	for (const char *p = r->text; *p && o + 1 < len;) {
		const char *end = *p == '{' ? strchr(p, '}') : NULL;
		if (!end) {
			buf[o++] = *p++;
			continue;
		}
		const char *name = p + 1;
		size_t n = (size_t)(end - name);
		const char *v;
		if (n > 0 && *name == ':') { /* {:why} */
			v = *c->why ? c->why : "";
			if (*v)
				o += (size_t)snprintf(buf + o, len - o, ": ");
		} else if (!(v = value(name, n, code, c))) {
			const char *bar = memchr(name, '|', n);
			o += (size_t)snprintf(buf + o, len - o, "%.*s", (int)(end - bar - 1), bar + 1);
			v = "";
		}
		if (o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s", v);
		p = end + 1;
	}
	if (o >= len)
		o = len - 1;
	buf[o] = 0;
	return r->exit;
}
