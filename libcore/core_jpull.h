/* SPDX-License-Identifier: BSD-2-Clause */
/* core_jpull: a strict JSON (RFC 8259) reader that hands out one token at
 * a time, for files a possibly hostile process wrote (jeattach --recent's
 * record is jemalloc's JSON from inside the target). Nothing is built but
 * what the caller keeps: no tree, so a file of 100,000 records costs its
 * bytes and nothing more. Bounded: nesting depth, the length of a decoded
 * string; numbers are handed out as text and converted by the checked
 * helpers below. The grammar is checked as tokens are taken (a missing
 * comma or colon, a stray close, trailing text are errors), with the byte
 * offset of the fault. */
#ifndef CORE_JPULL_H
#define CORE_JPULL_H

#include <stddef.h>
#include <stdint.h>

#define CORE_JPULL_MAX_DEPTH 32

enum core_jtype {
	CORE_J_END = 0,       /* the one value is complete, nothing follows */
	CORE_J_OBJECT,        /* '{' */
	CORE_J_OBJECT_END,    /* '}' */
	CORE_J_ARRAY,         /* '[' */
	CORE_J_ARRAY_END,     /* ']' */
	CORE_J_KEY,           /* a member's name (decoded, in str) */
	CORE_J_STRING,        /* decoded, in str */
	CORE_J_NUMBER,        /* its text in str (checked against RFC 8259) */
	CORE_J_TRUE,
	CORE_J_FALSE,
	CORE_J_NULL,
};

struct core_jtok {
	int type;        /* enum core_jtype */
	const char *str; /* KEY, STRING, NUMBER: NUL-terminated, valid until the next token */
	size_t len;
};

struct core_jpull {
	const char *p, *start, *end;
	size_t max_string; /* longest decoded string accepted */
	int depth;
	unsigned char stack[CORE_JPULL_MAX_DEPTH]; /* '{' or '[' per level */
	/* Where in the current container: 0 first member, 1 after a member
	 * (a comma or the close next), 2 after a key (a colon next). */
	unsigned char state[CORE_JPULL_MAX_DEPTH];
	int done; /* the top-level value is complete */
	char *buf; /* decoded strings */
	size_t buf_cap;
	const char *error; /* why the last call failed (static text) */
	size_t error_at;   /* its byte offset in the input */
};

/* Reads text[0..len) (need not be NUL-terminated); strings longer than
 * max_string bytes decoded are an error. */
void core_jpull_init(struct core_jpull *j, const char *text, size_t len, size_t max_string);
void core_jpull_free(struct core_jpull *j);
/* The next token: 0, -EINVAL (j->error, j->error_at say why and where),
 * -ENOMEM. */
int core_jpull_next(struct core_jpull *j, struct core_jtok *t);
/* Skip the value whose first token is t (a container to its close):
 * 0 or as core_jpull_next. */
int core_jpull_skip(struct core_jpull *j, const struct core_jtok *t);
/* The line and column (1-based) of byte offset at. */
void core_jpull_where(const struct core_jpull *j, size_t at, unsigned long *line,
		      unsigned long *column);

/* A NUMBER token as an unsigned integer (no sign, fraction or exponent,
 * at most UINT64_MAX): 0 or -ERANGE/-EINVAL. */
int core_jnum_u64(const struct core_jtok *t, uint64_t *v);
/* As a signed integer (fits int64_t): 0 or -ERANGE/-EINVAL. */
int core_jnum_i64(const struct core_jtok *t, int64_t *v);
/* As a finite double: 0 or -ERANGE/-EINVAL. */
int core_jnum_double(const struct core_jtok *t, double *v);

#endif
