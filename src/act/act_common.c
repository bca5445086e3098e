/* SPDX-License-Identifier: BSD-2-Clause */
/* What every action shares: the fields of its result, its failures and
 * their one-line messages, and the checks several actions make (is
 * profiling possible here?). Actions call these; these call no action, so
 * the act_*.c files form no circle. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "act.h"
#include "core_grow.h"
#include "errors.h"
#include "target_struct.h"

/* A key set twice keeps its place and takes the later value: an action
 * that runs another (--for's baseline dump) may set the same key, and a
 * JSON object must not hold it twice. */
static struct act_field *new_field(struct act_result *r, const char *key)
{
	for (size_t k = 0; k < r->nf; k++)
		if (!strcmp(r->f[k].key, key)) {
			memset(&r->f[k].v, 0, sizeof(r->f[k].v));
			return &r->f[k];
		}
	if (CORE_GROW(&r->f, &r->capf, r->nf + 1))
		return NULL; /* out of memory: the field is dropped */
	struct act_field *f = &r->f[r->nf++];
	snprintf(f->key, sizeof(f->key), "%s", key);
	memset(&f->v, 0, sizeof(f->v));
	f->bytes = 0;
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

const struct rctl_value *act_field_find(const struct act_result *r, const char *key)
{
	for (size_t k = 0; k < r->nf; k++)
		if (!strcmp(r->f[k].key, key))
			return &r->f[k].v;
	return NULL;
}

void act_field_bytes(struct act_result *r, const char *key, uint64_t u)
{
	act_field_u64(r, key, u);
	for (size_t k = 0; k < r->nf; k++)
		if (!strcmp(r->f[k].key, key))
			r->f[k].bytes = 1;
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

enum ja_exit act_fail(struct act_result *r, enum ja_exit code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
	r->code = code;
	return code;
}

void act_result_warn(struct act_result *r, const char *fmt, ...)
{
	size_t n = strlen(r->warning);
	if (n && n + 2 < sizeof(r->warning))
		n += (size_t)snprintf(r->warning + n, sizeof(r->warning) - n, "; ");
	if (n >= sizeof(r->warning))
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->warning + n, sizeof(r->warning) - n, fmt, ap);
	va_end(ap);
}

enum ja_exit act_transport_error(struct target *t, struct act_result *r, const char *doing, int e)
{
	char why[400], fate[300];
	target_why_text(t, why, sizeof(why));
	struct ja_err_ctx c = { .pid = t->pid, .why = why, .doing = doing };
	if (e == -ESRCH) { /* the thread went away: say what became of the process */
		target_fate(t, fate, sizeof(fate));
		c.why = fate;
	}
	r->code = ja_err_explain(JA_AT_CALL, e, &c, r->msg, sizeof(r->msg));
	return r->code;
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

enum ja_exit act_read_flag(struct target *t, struct act_result *r, const char *doing,
			   const char *ctl, int *on)
{
	struct rctl_value v;
	int merr = 0;
	int e = rctl_read(t, ctl, &v, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	*on = !merr && v.u;
	return JA_EXIT_OK;
}

enum ja_exit act_need_prof(struct target *t, struct act_result *r, const char *doing)
{
	char var[80];
	int on;
	enum ja_exit c = act_read_flag(t, r, doing, "config.prof", &on);
	if (c || !on)
		return c ? c : act_fail(r, JA_EXIT_NOPROF,
				"%s: this jemalloc was built without profiling (config.prof is "
				"false); use a build configured with --enable-prof (Debian's is), "
				"or --sample --for DURATION --dump FILE (jemalloc 5.2 to 5.3)",
				doing);
	/* Read opt.prof first: jemalloc 5.2 and older return 0 from a write of
	 * prof.active when opt.prof is false, and do nothing (doc/jemalloc-versions.md). */
	act_conf_var(t, var, sizeof(var));
	if ((c = act_read_flag(t, r, doing, "opt.prof", &on)) || !on)
		return c ? c : act_fail(r, JA_EXIT_NOPROF,
				"%s: jemalloc was started without prof:true, which cannot be turned "
				"on at run time; restart the process with "
				"%s=prof:true,prof_active:false (no overhead until activated), or "
				"take one now with --sample --for DURATION --dump FILE (jemalloc 5.2 "
				"to 5.3)",
				doing, var);
	return JA_EXIT_OK;
}

enum ja_exit act_mallctl_error(struct target *t, struct act_result *r, const char *doing,
			       const char *name, int merr)
{
	switch (merr) {
	case ENOENT:
		return act_fail(r, JA_EXIT_MALLCTL,
				"%s: this jemalloc has no control named %s (ENOENT); see "
				"'jeattach -p %d --status' for its version",
				doing, name, (int)t->pid);
	case EPERM:
		return act_fail(r, JA_EXIT_MALLCTL, "%s: %s is read-only (EPERM)", doing, name);
	case EINVAL:
		return act_fail(r, JA_EXIT_MALLCTL,
				"%s: jemalloc rejected the value or its size for %s (EINVAL)", doing,
				name);
	case EAGAIN:
		return act_fail(r, JA_EXIT_MALLCTL, "%s: %s: jemalloc is busy (EAGAIN); retry",
				doing, name);
	default:
		return act_fail(r, JA_EXIT_MALLCTL, "%s: mallctl(\"%s\") returned %d (%s)", doing,
				name, merr, strerror(merr));
	}
}
