/* SPDX-License-Identifier: BSD-2-Clause */
/* core_jpull: libcore's one JSON (RFC 8259) tokenizer, for text a possibly
 * hostile process wrote (jemalloc's JSON from inside the target: its
 * record of recent allocations, its malloc_stats_print report). It hands
 * out one token at a time; core_jtree (a tree) and core_json_reencode (a
 * compact copy) are built on it, so a document is accepted, refused and
 * explained the same way whichever reads it. Nothing is built but what the
 * caller keeps: a file of 100,000 records costs its bytes and nothing
 * more. Bounded: nesting depth, the length of a decoded string; numbers
 * are handed out as text and converted by the checked helpers below. The
 * grammar is checked as tokens are taken (a missing comma or colon, a
 * stray close, trailing text are errors), and every error is typed: a
 * copy cut short is told from a malformed one. */
#ifndef CORE_JPULL_H
#define CORE_JPULL_H

#include <stddef.h>
#include <stdint.h>

/* The deepest nesting any reader may ask for (core_json_reencode's). */
#define CORE_JPULL_MAX_DEPTH 256

/* A token, and a tree node's value (core_jtree uses the same types). */
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

/* Why a document was refused: what a caller acts on (take a cut copy
 * again; a malformed one is damaged or forged). */
enum core_jerr {
	CORE_JERR_NONE = 0,
	CORE_JERR_CUT,    /* the input ends before its value does (an empty one too) */
	CORE_JERR_SYNTAX, /* malformed: not JSON, or a string not valid UTF-8 */
	CORE_JERR_LIMIT,  /* JSON, but past a bound: nesting, a string's length, a tree's size */
};

struct core_jerror {
	enum core_jerr kind;
	const char *why; /* static text; "truncated: ..." (or "empty input") when kind is
			  * CORE_JERR_CUT */
	size_t at;       /* the byte offset of the fault in the input */
};

struct core_jtok {
	int type;        /* enum core_jtype */
	const char *str; /* KEY, STRING, NUMBER: NUL-terminated, no NUL inside, valid UTF-8
			  * (unless any_bytes); valid until the next token */
	size_t len;
	const char *src; /* the token as it stands in the input (a string with its quotes
			  * and escapes), src_len bytes */
	size_t src_len;
};

struct core_jpull {
	const char *p, *start, *end;
	size_t max_string; /* longest decoded string (or number's text) accepted */
	int max_depth;
	/* Set after core_jpull_init: a string's raw bytes that are not UTF-8
	 * are kept as they are, not refused. jemalloc writes the strings of
	 * its report unescaped, and some are the user's bytes (opt.prof_prefix
	 * is a path: a Latin-1 one made --frag refuse a real report). Escapes,
	 * control characters and a character cut by the end are judged as
	 * ever. Only for a reader whose strings are never copied out as JSON
	 * unchecked (core_jtree); core_json_reencode keeps it off. */
	int any_bytes;
	int depth;
	/* Bit d: level d is an object (else an array). Only the innermost
	 * level's place is kept (state): a container closing always leaves
	 * its parent after a member. */
	unsigned char objects[CORE_JPULL_MAX_DEPTH / 8];
	unsigned char state;
	int done; /* the top-level value is complete */
	char *buf; /* decoded strings */
	size_t buf_cap;
	struct core_jerror err; /* why the last call failed */
};

/* Reads text[0..len) (need not be NUL-terminated); strings longer than
 * max_string bytes decoded, and nesting deeper than max_depth (at most
 * CORE_JPULL_MAX_DEPTH), are errors. */
void core_jpull_init(struct core_jpull *j, const char *text, size_t len, size_t max_string,
		     int max_depth);
void core_jpull_free(struct core_jpull *j);
/* The next token: 0, -EINVAL (j->err says why and where), -ENOMEM. */
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
