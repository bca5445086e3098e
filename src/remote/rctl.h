/* SPDX-License-Identifier: BSD-2-Clause */
/* rctl_: jemalloc's mallctl, called inside the target. Knows jemalloc's
 * control names and their C types (one table, rctl_types.c); knows nothing
 * of ptrace or registers. Returns 0 or -errno when the call could not be
 * made; mallctl's own result (0, ENOENT, EINVAL, EFAULT...) comes back in
 * *merr. */
#ifndef JEATTACH_RCTL_H
#define JEATTACH_RCTL_H

#include <stddef.h>
#include <stdint.h>
#include "target.h"

enum rctl_type {
	RCTL_VOID,     /* no value: an operation (arena.<i>.purge) */
	RCTL_BOOL,     /* bool */
	RCTL_UNSIGNED, /* unsigned */
	RCTL_SIZE,     /* size_t */
	RCTL_SSIZE,    /* ssize_t */
	RCTL_U64,      /* uint64_t */
	RCTL_STRING,   /* const char * */
	RCTL_DOUBLE,   /* not a jemalloc type: derived figures jeattach reports */
};

enum rctl_access {
	RCTL_R = 1, RCTL_W = 2, RCTL_RW = 3,
	RCTL_EFFECT = 4, /* reading it changes the process: no --get */
};

struct rctl_value {
	enum rctl_type type;
	uint64_t u;   /* bool, unsigned, size_t, uint64_t */
	int64_t i;    /* ssize_t */
	double d;     /* RCTL_DOUBLE */
	int is_null;  /* a NULL const char * */
	char s[4096]; /* strings */
};

/* Look a control up in the table. "arena.4096.purge" matches "arena.<i>.purge". */
int rctl_lookup(const char *name, enum rctl_type *type, enum rctl_access *access);
/* Every control of the table, in its order, as a name rctl_lookup takes:
 * an index given as 4096 (MALLCTL_ARENAS_ALL) where jemalloc(3) gives
 * that index a meaning for the control (arena.<i>.purge and .decay: all
 * arenas; stats.arenas.<i>.*: merged), else as 0 (arena 0 always exists). */
void rctl_foreach(void (*fn)(const char *name, enum rctl_type type, enum rctl_access access,
			     void *arg),
		  void *arg);
/* The calling thread's own controls (thread.prof.active, thread.prof.name),
 * kept out of rctl_lookup's table: --get and --set would act on whichever
 * thread was borrowed. Only the per-thread pass uses them. */
int rctl_lookup_thread(const char *name, enum rctl_type *type);
const char *rctl_type_name(enum rctl_type type);
/* Parse text as a value of type (--set). -EINVAL when it does not fit. */
int rctl_parse(enum rctl_type type, const char *text, struct rctl_value *v);
/* What rctl_parse takes for type, for a refusal to list: "true, false,
 * on, off, 1 or 0", "a whole number from 0 to 4294967295 (...)". Into buf. */
void rctl_accepted(enum rctl_type type, char *buf, size_t len);
/* The value as text: for humans, or as a JSON value. */
void rctl_format(const struct rctl_value *v, int json, char *buf, size_t len);

int rctl_read(struct target *t, const char *name, struct rctl_value *out, int *merr);
/* Does this jemalloc have a control named name (in or out of the table)?
 * *exists 1 or 0 (mallctl said ENOENT). Made as a read, so only for
 * names whose read has no effect: read-only ones and write-only ones
 * (jemalloc refuses their read with EPERM before doing anything). */
int rctl_probe(struct target *t, const char *name, int *exists);
/* Write newv; if oldv is given, read the old value in the same mallctl call
 * (atomic in jemalloc: ctl_mtx is held across both). */
int rctl_write(struct target *t, const char *name, const struct rctl_value *newv,
	       struct rctl_value *oldv, int *merr);
/* Write len raw bytes (a struct jemalloc defines: the {write_cb,
 * cbopaque} pair of experimental.prof_recent.alloc_dump) to a write-only
 * control; kept out of rctl_lookup's table, so --set cannot reach it. */
int rctl_write_bytes(struct target *t, const char *name, const void *data, size_t len,
		     int *merr);
/* A control with no value (RCTL_VOID). */
int rctl_exec(struct target *t, const char *name, int *merr);

#endif
