/* SPDX-License-Identifier: BSD-2-Clause */
/* mallctl(name, oldp, oldlenp, newp, newlen) inside the target. The name,
 * the out-buffer and its length, and the new value live in rcall scratch on
 * the borrowed thread's stack: never in memory from the target's malloc. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>
#include "rcall.h"
#include "rctl.h"
#include "target_struct.h"

static size_t type_size(enum rctl_type type)
{
	switch (type) {
	case RCTL_VOID:
		return 0;
	case RCTL_BOOL:
		return 1; /* C99 bool in jemalloc's ABI */
	case RCTL_UNSIGNED:
		return 4;
	default:
		return 8; /* size_t, ssize_t, uint64_t, const char * on LP64 */
	}
}

static void to_bytes(const struct rctl_value *v, unsigned char *b)
{
	uint32_t u32 = (uint32_t)v->u;
	unsigned char b1 = v->u ? 1 : 0;
	switch (v->type) {
	case RCTL_BOOL:
		memcpy(b, &b1, 1);
		break;
	case RCTL_UNSIGNED:
		memcpy(b, &u32, 4);
		break;
	case RCTL_SSIZE:
		memcpy(b, &v->i, 8);
		break;
	default:
		memcpy(b, &v->u, 8);
		break;
	}
}

static int from_bytes(struct target *t, enum rctl_type type, const unsigned char *b,
		      struct rctl_value *v)
{
	memset(v, 0, offsetof(struct rctl_value, s));
	v->s[0] = 0;
	v->type = type;
	uint32_t u32;
	uint64_t ptr;
	switch (type) {
	case RCTL_VOID:
		return 0;
	case RCTL_BOOL:
		v->u = b[0] != 0;
		return 0;
	case RCTL_UNSIGNED:
		memcpy(&u32, b, 4);
		v->u = u32;
		return 0;
	case RCTL_SSIZE:
		memcpy(&v->i, b, 8);
		return 0;
	case RCTL_STRING:
		memcpy(&ptr, b, 8);
		v->is_null = ptr == 0;
		if (!ptr)
			return 0;
		int e = rcall_read_string(t, ptr, v->s, sizeof(v->s));
		return e == -ENAMETOOLONG ? 0 : e;
	default:
		memcpy(&v->u, b, 8);
		return 0;
	}
}

/* The one place that builds a mallctl call. Its arguments are laid out in
 * one block, written with one call: name, old value, old length, new value,
 * and a new string value if any. */
static int call_mallctl(struct target *t, const char *name, enum rctl_type type,
			struct rctl_value *oldv, const struct rctl_value *newv, int *merr)
{
	size_t sz = type_size(type), nlen = strlen(name) + 1;
	size_t o_old = (nlen + 7) & ~(size_t)7, o_oldlen = o_old + 8, o_new = o_oldlen + 8,
	       o_str = o_new + 8;
	int new_string = newv && type == RCTL_STRING && !newv->is_null;
	size_t total = o_str + (new_string ? strlen(newv->s) + 1 : 0);
	unsigned char blob[sizeof(newv->s) + 512];
	if (nlen > 256 || total > sizeof(blob))
		return -ENOSPC;
	memset(blob, 0, o_str);
	memcpy(blob, name, nlen);
	uint64_t len = sz;
	memcpy(blob + o_oldlen, &len, 8);
	if (new_string)
		memcpy(blob + o_str, newv->s, strlen(newv->s) + 1);
	uint64_t base;
	rcall_scratch_reset(t);
	/* The new value's bytes; a string's is the pointer to its copy. */
	if (newv && sz) {
		if (type == RCTL_STRING) {
			uint64_t a_str = 0;
			memcpy(blob + o_new, &a_str, 8);
		} else {
			to_bytes(newv, blob + o_new);
		}
	}
	int e = rcall_push(t, blob, total, &base);
	if (e)
		return e;
	if (new_string) {
		/* The pointer is known only now that the block has an address. */
		uint64_t a_str = base + o_str;
		if ((e = rcall_write(t, base + o_new, &a_str, 8)))
			return e;
	}
	uint64_t args[5] = { base, oldv && sz ? base + o_old : 0, oldv && sz ? base + o_oldlen : 0,
			     newv && sz ? base + o_new : 0, newv && sz ? sz : 0 };
	uint64_t ret;
	e = rcall(t, t->je.mallctl, args, 5, &ret);
	if (e)
		return e;
	*merr = (int)(uint32_t)ret;
	if (*merr || !oldv)
		return 0;
	unsigned char buf[8] = { 0 };
	if (sz && (e = rcall_read(t, base + o_old, buf, 8)))
		return e;
	return from_bytes(t, type, buf, oldv);
}

int rctl_read(struct target *t, const char *name, struct rctl_value *out, int *merr)
{
	enum rctl_type type;
	enum rctl_access access;
	if (rctl_lookup(name, &type, &access) && rctl_lookup_thread(name, &type))
		return -ENOENT;
	return call_mallctl(t, name, type, out, NULL, merr);
}

int rctl_probe(struct target *t, const char *name, int *exists)
{
	/* A read into 8 bytes: a control of another size answers EINVAL
	 * (jemalloc's READ copies at most *oldlenp and refuses), a write-only
	 * one EPERM before its handler does anything (WRITEONLY), an absent
	 * one ENOENT (ctl_lookup). The caller picks names whose read has no
	 * effect. */
	struct rctl_value v;
	int merr = 0;
	int e = call_mallctl(t, name, RCTL_SIZE, &v, NULL, &merr);
	if (e)
		return e;
	*exists = merr != ENOENT;
	return 0;
}

int rctl_write(struct target *t, const char *name, const struct rctl_value *newv,
	       struct rctl_value *oldv, int *merr)
{
	return call_mallctl(t, name, newv->type, oldv, newv, merr);
}

int rctl_write_bytes(struct target *t, const char *name, const void *data, size_t len,
		     int *merr)
{
	size_t nlen = strlen(name) + 1, o_new = (nlen + 7) & ~(size_t)7;
	unsigned char blob[512];
	if (nlen > 256 || o_new + len > sizeof(blob))
		return -ENOSPC;
	memset(blob, 0, o_new);
	memcpy(blob, name, nlen);
	memcpy(blob + o_new, data, len);
	uint64_t base, ret;
	rcall_scratch_reset(t);
	int e = rcall_push(t, blob, o_new + len, &base);
	if (e)
		return e;
	uint64_t args[5] = { base, 0, 0, base + o_new, len };
	if ((e = rcall(t, t->je.mallctl, args, 5, &ret)))
		return e;
	*merr = (int)(uint32_t)ret;
	return 0;
}

int rctl_exec(struct target *t, const char *name, int *merr)
{
	return call_mallctl(t, name, RCTL_VOID, NULL, NULL, merr);
}
