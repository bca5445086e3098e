/* SPDX-License-Identifier: BSD-2-Clause */
/* Action dispatch and the helpers every action shares. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "act.h"
#include "rcall.h"

const char *act_name(enum act_kind kind)
{
	static const char *const names[] = {
		"status", "activate", "deactivate", "dump", "get",   "set",
		"stats",  "stats_full", "reset", "gdump", "thread_active_init", "purge",
		"decay",  "for_begin", "for_end", "wait",
	};
	return names[kind];
}

void act_result_init(struct act_result *r, enum act_kind kind)
{
	memset(r, 0, sizeof(*r));
	r->action = act_name(kind);
	r->dump.fd = -1;
}

void act_result_drop_dump(struct act_result *r)
{
	if (r->dump.fd >= 0)
		close(r->dump.fd);
	r->dump.fd = -1;
	free(r->dump.prof_prefix);
	r->dump.prof_prefix = NULL;
}

void act_result_free(struct act_result *r)
{
	act_result_drop_dump(r);
	free(r->blob);
	r->blob = NULL;
	free(r->f);
	r->f = NULL;
	r->nf = r->capf = 0;
}

enum je_exit act_run(struct target *t, struct act_session *s, const struct act *a,
		     struct act_result *r)
{
	r->ran = 1;
	switch (a->kind) {
	case ACT_STATS:
		return act_stats(t, r);
	case ACT_STATS_FULL:
		return act_stats_full(t, a->arg != NULL, r); /* arg "json" */
	case ACT_RESET:
		return act_reset(t, a->arg, r);
	case ACT_GDUMP:
		return act_set_bool(t, "prof.gdump", a->arg, r);
	case ACT_THREAD_ACTIVE_INIT:
		return act_set_bool(t, "prof.thread_active_init", a->arg, r);
	case ACT_PURGE:
		return act_arena_op(t, "purge", r);
	case ACT_DECAY:
		return act_arena_op(t, "decay", r);
	case ACT_FOR_BEGIN:
		return act_for_begin(t, s, a->baseline, r);
	case ACT_FOR_END:
		return act_for_end(t, s, r);
	case ACT_WAIT:
		return act_fail(r, JE_EXIT_INTERNAL, "a wait is not run under a hold");
	case ACT_STATUS:
		return act_status(t, r);
	case ACT_ACTIVATE:
		return act_set_active(t, r, 1);
	case ACT_DEACTIVATE:
		return act_set_active(t, r, 0);
	case ACT_DUMP:
		return act_dump(t, r);
	case ACT_GET:
		return act_get(t, a->arg, r);
	case ACT_SET:
		return act_set(t, a->arg, r);
	}
	return act_fail(r, JE_EXIT_INTERNAL, "unknown action");
}

enum je_exit act_finish(struct target *t, const struct act *a, struct act_result *r)
{
	if (!r->ran || r->code != JE_EXIT_OK)
		return r->code;
	if (a->kind == ACT_DUMP || (a->kind == ACT_FOR_BEGIN && a->baseline))
		return act_dump_finish(t, a->arg, a->seq, a->symbolize, r);
	return r->code;
}


static struct act_field *new_field(struct act_result *r, const char *key)
{
	if (r->nf == r->capf) {
		int cap = r->capf ? r->capf * 2 : 4;
		struct act_field *nf = realloc(r->f, (size_t)cap * sizeof(*nf));
		if (!nf)
			return NULL; /* out of memory: the field is dropped */
		r->f = nf;
		r->capf = cap;
	}
	struct act_field *f = &r->f[r->nf++];
	snprintf(f->key, sizeof(f->key), "%s", key);
	memset(&f->v, 0, sizeof(f->v));
	return f;
}

void act_field_value(struct act_result *r, const char *key, const struct rctl_value *v)
{
	struct act_field *f = new_field(r, key);
	if (f)
		f->v = *v;
}

void act_field_str(struct act_result *r, const char *key, const char *s)
{
	struct act_field *f = new_field(r, key);
	if (!f)
		return;
	f->v.type = RCTL_STRING;
	f->v.is_null = s == NULL;
	snprintf(f->v.s, sizeof(f->v.s), "%s", s ? s : "");
}

void act_field_u64(struct act_result *r, const char *key, uint64_t u)
{
	struct act_field *f = new_field(r, key);
	if (!f)
		return;
	f->v.type = RCTL_U64;
	f->v.u = u;
}

void act_field_double(struct act_result *r, const char *key, double d)
{
	struct act_field *f = new_field(r, key);
	if (!f)
		return;
	f->v.type = RCTL_DOUBLE;
	f->v.d = d;
}

void act_field_bool(struct act_result *r, const char *key, int b)
{
	struct act_field *f = new_field(r, key);
	if (!f)
		return;
	f->v.type = RCTL_BOOL;
	f->v.u = b != 0;
}

enum je_exit act_fail(struct act_result *r, enum je_exit code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->code = code;
	return code;
}

enum je_exit act_transport_error(struct target *t, struct act_result *r, const char *doing, int e)
{
	int sig = rcall_fault_signal(t);
	switch (e) {
	case -ESRCH:
		return act_fail(r, JE_EXIT_GONE, "%s: the process exited", doing);
	case -ETIMEDOUT:
		return act_fail(r, JE_EXIT_TIMEOUT,
				"%s: no answer before the timeout (%s); retry with a larger --timeout",
				doing, t->why[0] ? t->why : "the target is busy");
	case -ECANCELED:
		if (sig == SIGSYS)
			return act_fail(r, JE_EXIT_UNSAFE,
					"%s: the target's seccomp filter forbids a system call jemalloc "
					"makes (%s); the call was undone, nothing was changed",
					doing, t->why);
		return act_fail(r, JE_EXIT_UNSAFE,
				"%s: the injected call faulted (%s); the thread was restored and the "
				"fault not delivered; please report this",
				doing, t->why);
	case -ENOSPC:
		return act_fail(r, JE_EXIT_INTERNAL,
				"%s: the value does not fit jeattach's scratch space on the target "
				"stack; use a shorter name or value",
				doing);
	default:
		return act_fail(r, JE_EXIT_INTERNAL, "%s: %s", doing, strerror(-e));
	}
}

int act_read_field(struct target *t, struct act_result *r, const char *key, const char *ctl)
{
	struct rctl_value v;
	int merr = 0;
	int e = rctl_read(t, ctl, &v, &merr);
	if (e)
		return e;
	if (merr)
		act_field_str(r, key, NULL);
	else
		act_field_value(r, key, &v);
	return 0;
}

void act_conf_var(const struct target *t, char *buf, size_t len)
{
	/* jemalloc reads <PREFIX>MALLOC_CONF, the prefix upper-cased
	 * (JEMALLOC_CPREFIX): MALLOC_CONF, JE_MALLOC_CONF, _RJEM_MALLOC_CONF. */
	size_t o = 0;
	for (const char *p = t->je.prefix; *p && o + 12 < len; p++)
		buf[o++] = (char)toupper((unsigned char)*p);
	snprintf(buf + o, len - o, "MALLOC_CONF");
}

enum je_exit act_need_prof(struct target *t, struct act_result *r, const char *doing)
{
	struct rctl_value v;
	int merr = 0;
	char var[80];
	act_conf_var(t, var, sizeof(var));
	int e = rctl_read(t, "config.prof", &v, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr || !v.u)
		return act_fail(r, JE_EXIT_NOPROF,
				"%s: this jemalloc was built without profiling (config.prof is "
				"false); use a build configured with --enable-prof (Debian's is)",
				doing);
	/* Read opt.prof first: jemalloc 5.2 and older return 0 from a write of
	 * prof.active when opt.prof is false, and do nothing (FACTS.md). */
	e = rctl_read(t, "opt.prof", &v, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (merr || !v.u)
		return act_fail(r, JE_EXIT_NOPROF,
				"%s: jemalloc was started without prof:true, which cannot be turned "
				"on at run time; restart the process with "
				"%s=prof:true,prof_active:false (no overhead until activated)",
				doing, var);
	return JE_EXIT_OK;
}
