/* SPDX-License-Identifier: BSD-2-Clause */
/* Reading the record of recent allocations. jemalloc 5.3 writes it in
 * prof_recent_alloc_dump (src/prof_recent.c) through its emitter:
 *
 *   {"sample_interval": 2^lg_prof_sample, "recent_alloc_max": N,
 *    "recent_alloc": [ one object per record, oldest first ]}
 *
 * and each record in prof_recent_alloc_dump_node: size, usize (sz_s2u of
 * size), released (the extent pointer gone), alloc_thread_uid,
 * alloc_thread_name (only if the thread has a name), alloc_time (ns of
 * jemalloc's profiling clock), alloc_trace (return addresses written with
 * malloc_snprintf's "%p" by prof_recent_alloc_dump_bt, leaf first); then
 * only when released and the free was recorded (prof_recent_alloc_reset
 * got a prof_tctx for the freeing thread): dalloc_thread_uid,
 * dalloc_thread_name, dalloc_time, dalloc_trace. jeattach adds "jeattach"
 * last (src/act/act_recent_file.c). The emitter does not escape the names it
 * writes; jeattach re-encodes the text (core_json_reencode) before writing
 * it, but a file may come from elsewhere: everything is checked,
 * keys unknown to this reader are skipped (a later jemalloc may add some),
 * a key given twice is refused (which would count?). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "core_jpull.h"
#include "core_read.h"
#include "jh_recent.h"

struct reader {
	jeheap_recent *r;
	struct core_jpull j;
	struct core_jtok t;
	struct jeheap_error_info *ei;
	uint64_t *pcs; /* one trace, before it is interned */
	size_t pcs_cap;
	char *maps, *stamp; /* copies: a token's text lives until the next */
	int said_what_to_do; /* the message says what to do already */
};

static int rerr(struct reader *rd, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int rerr(struct reader *rd, size_t at, const char *fmt, ...)
{
	if (rd->ei && !rd->ei->code) {
		rd->ei->code = JEHEAP_EFORMAT;
		core_jpull_where(&rd->j, at, &rd->ei->line, &rd->ei->column);
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(rd->ei->message, sizeof(rd->ei->message), fmt, ap);
		va_end(ap);
	}
	return JEHEAP_EFORMAT;
}

/* Where the reader is: the end of the token just taken. */
static size_t here(const struct reader *rd)
{
	return (size_t)(rd->j.p - rd->j.start);
}

/* core_jpull's error in libjeheap's words. */
static int pull_error(struct reader *rd, int e)
{
	if (!e)
		return 0;
	if (e == -ENOMEM)
		return JEHEAP_ENOMEM;
	rd->said_what_to_do = rd->j.err.kind == CORE_JERR_CUT;
	if (rd->said_what_to_do)
		return rerr(rd, rd->j.err.at, "%s (an incomplete copy? take the record again)",
			    rd->j.err.why);
	return rerr(rd, rd->j.err.at, "not valid JSON: %s", rd->j.err.why);
}

static int next(struct reader *rd)
{
	return pull_error(rd, core_jpull_next(&rd->j, &rd->t));
}

/* A value not read: taken whole (nesting is bounded by core_jpull). */
static int skip_value(struct reader *rd)
{
	int e = next(rd);
	return e ? e : pull_error(rd, core_jpull_skip(&rd->j, &rd->t));
}

static int expect(struct reader *rd, int type, const char *key, const char *what)
{
	int e = next(rd);
	if (!e && rd->t.type != type)
		return rerr(rd, here(rd), "%s: expected %s", key, what);
	return e;
}

static int read_u64(struct reader *rd, const char *key, uint64_t max, uint64_t *v)
{
	int e = expect(rd, CORE_J_NUMBER, key, "a number");
	if (!e && (core_jnum_u64(&rd->t, v) || *v > max))
		return rerr(rd, here(rd), "%s: %.40s is not an integer from 0 to %llu", key,
			    rd->t.str, (unsigned long long)max);
	return e;
}

static int read_bool(struct reader *rd, const char *key, unsigned char *v)
{
	int e = next(rd);
	if (e)
		return e;
	if (rd->t.type != CORE_J_TRUE && rd->t.type != CORE_J_FALSE)
		return rerr(rd, here(rd), "%s: expected true or false", key);
	*v = rd->t.type == CORE_J_TRUE;
	return 0;
}

static int read_name(struct reader *rd, const char *key, const char **v)
{
	int e = expect(rd, CORE_J_STRING, key, "a string");
	if (!e && rd->t.len > JH_RECENT_MAX_NAME)
		return rerr(rd, here(rd), "%s: longer than %d bytes", key, JH_RECENT_MAX_NAME);
	if (!e && !(*v = jh_recent_name(rd->r, rd->t.str)))
		return JEHEAP_ENOMEM;
	return e;
}

/* "0x7f34a1c2d4e0": 1 to 16 hex digits after 0x (malloc_snprintf's %p). */
static int parse_address(const char *s, uint64_t *v)
{
	if (s[0] != '0' || s[1] != 'x' || !s[2] || strlen(s + 2) > 16)
		return -1;
	uint64_t x = 0;
	for (s += 2; *s; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
			: *s >= 'A' && *s <= 'F' ? *s - 'A' + 10 : -1;
		if (d < 0)
			return -1;
		x = x << 4 | (uint64_t)d;
	}
	*v = x;
	return 0;
}

static int read_trace(struct reader *rd, const char *key, uint32_t *id)
{
	int e = expect(rd, CORE_J_ARRAY, key, "an array of addresses");
	uint32_t n = 0;
	while (!e && !(e = next(rd)) && rd->t.type != CORE_J_ARRAY_END) {
		if (rd->t.type != CORE_J_STRING)
			return rerr(rd, here(rd), "%s: expected addresses (\"0x...\")", key);
		/* jemalloc's PROF_BT_MAX is 128 */
		if (n >= JH_RECENT_MAX_FRAMES)
			return rerr(rd, here(rd), "%s: more than %d addresses", key,
				    JH_RECENT_MAX_FRAMES);
		if (CORE_GROW(&rd->pcs, &rd->pcs_cap, n + 1))
			return JEHEAP_ENOMEM;
		if (parse_address(rd->t.str, &rd->pcs[n]))
			return rerr(rd, here(rd), "%s: '%.40s' is not an address (0x and hex digits)",
				    key, rd->t.str);
		n++;
	}
	if (!e && CORE_GROW(&rd->pcs, &rd->pcs_cap, 1))
		return JEHEAP_ENOMEM;
	if (!e && jh_seqset_add(&rd->r->traces, rd->pcs, n, id))
		return JEHEAP_ENOMEM;
	return e;
}

/* A record's keys, as prof_recent_alloc_dump_node writes them. */
enum { K_SIZE, K_USIZE, K_RELEASED, K_ATHREAD, K_ANAME, K_ATIME, K_ATRACE, K_DTHREAD,
       K_DNAME, K_DTIME, K_DTRACE, K_N };
static const char *const record_keys[K_N] = {
	"size", "usize", "released", "alloc_thread_uid", "alloc_thread_name", "alloc_time",
	"alloc_trace", "dalloc_thread_uid", "dalloc_thread_name", "dalloc_time", "dalloc_trace",
};
#define NEEDED ((1u << K_SIZE) | (1u << K_USIZE) | (1u << K_RELEASED) | (1u << K_ATHREAD) | \
		(1u << K_ATIME) | (1u << K_ATRACE))
#define FREE_KEYS ((1u << K_DTHREAD) | (1u << K_DTIME) | (1u << K_DTRACE))

/* The largest size class jemalloc can give (SC_LARGE_MAXCLASS is below
 * PTRDIFF_MAX): anything above is not a size of this machine. */
#define MAX_SIZE ((uint64_t)1 << 62)

static int read_record_key(struct reader *rd, int k, struct jh_rrec *x)
{
	const char *key = record_keys[k];
	switch (k) {
	case K_SIZE:
		return read_u64(rd, key, MAX_SIZE, &x->size);
	case K_USIZE:
		return read_u64(rd, key, MAX_SIZE, &x->usize);
	case K_RELEASED:
		return read_bool(rd, key, &x->released);
	case K_ATHREAD:
		return read_u64(rd, key, UINT64_MAX, &x->alloc_thread);
	case K_ANAME:
		return read_name(rd, key, &x->alloc_name);
	case K_ATIME:
		return read_u64(rd, key, UINT64_MAX, &x->alloc_time);
	case K_ATRACE:
		return read_trace(rd, key, &x->alloc_trace);
	case K_DTHREAD:
		return read_u64(rd, key, UINT64_MAX, &x->free_thread);
	case K_DNAME:
		return read_name(rd, key, &x->free_name);
	case K_DTIME:
		return read_u64(rd, key, UINT64_MAX, &x->free_time);
	default:
		return read_trace(rd, key, &x->free_trace);
	}
}

/* What each record must hold, and what must hold together. */
static int check_record(struct reader *rd, unsigned seen, const struct jh_rrec *x)
{
	size_t at = here(rd);
	for (int k = 0; k < K_N; k++)
		if ((NEEDED & (1u << k)) && !(seen & (1u << k)))
			return rerr(rd, at, "record %zu has no %s", rd->r->nrecs, record_keys[k]);
	if ((seen & FREE_KEYS) && (seen & FREE_KEYS) != FREE_KEYS)
		return rerr(rd, at, "record %zu: dalloc_thread_uid, dalloc_time and dalloc_trace "
				    "come together", rd->r->nrecs);
	if ((seen & FREE_KEYS) && !x->released)
		return rerr(rd, at, "record %zu: a free recorded for an allocation not released",
			    rd->r->nrecs);
	if (x->usize < x->size)
		return rerr(rd, at, "record %zu: usize %llu is below size %llu", rd->r->nrecs,
			    (unsigned long long)x->usize, (unsigned long long)x->size);
	return 0;
}

static int read_record(struct reader *rd)
{
	if (rd->t.type != CORE_J_OBJECT)
		return rerr(rd, here(rd), "recent_alloc: expected an object per record");
	if (rd->r->nrecs >= JH_RECENT_MAX_RECORDS)
		return rerr(rd, here(rd), "more than %zu records", JH_RECENT_MAX_RECORDS);
	struct jh_rrec x = { .alloc_trace = JH_NO_ID, .free_trace = JH_NO_ID };
	unsigned seen = 0;
	int e;
	while (!(e = next(rd)) && rd->t.type == CORE_J_KEY) {
		int k = 0;
		while (k < K_N && strcmp(rd->t.str, record_keys[k]))
			k++;
		if (k < K_N && (seen & (1u << k)))
			return rerr(rd, here(rd), "record %zu: %s given twice", rd->r->nrecs,
				    record_keys[k]);
		if (k == K_N) { /* a key of a later jemalloc */
			e = skip_value(rd);
		} else {
			seen |= 1u << k;
			e = read_record_key(rd, k, &x);
		}
		if (e)
			return e;
	}
	if (e || (e = check_record(rd, seen, &x)))
		return e;
	x.free_known = (seen & FREE_KEYS) == FREE_KEYS;
	if (CORE_GROW(&rd->r->recs, &rd->r->recs_cap, rd->r->nrecs + 1))
		return JEHEAP_ENOMEM;
	rd->r->recs[rd->r->nrecs++] = x;
	return 0;
}

static int read_records(struct reader *rd)
{
	int e = expect(rd, CORE_J_ARRAY, "recent_alloc", "an array of records");
	while (!e && !(e = next(rd)) && rd->t.type != CORE_J_ARRAY_END)
		e = read_record(rd);
	return e;
}

/* A copy of a string value, at most max bytes. */
static int read_text(struct reader *rd, const char *key, size_t max, char **v)
{
	int e = expect(rd, CORE_J_STRING, key, "a string");
	if (!e && rd->t.len > max)
		return rerr(rd, here(rd), "%s: longer than %zu bytes", key, max);
	if (!e) {
		free(*v);
		if (!(*v = strdup(rd->t.str)))
			return JEHEAP_ENOMEM;
	}
	return e;
}

/* jeattach's block (src/act/act_recent_file.c): what jemalloc does not say. */
static int read_jeattach_key(struct reader *rd, const char *key)
{
	jeheap_recent *r = rd->r;
	uint64_t v;
	int e;
	if (!strcmp(key, "pid")) {
		e = read_u64(rd, key, 1 << 22, &v); /* PID_MAX_LIMIT */
		r->pid = (long)v;
	} else if (!strcmp(key, "time")) {
		e = expect(rd, CORE_J_NUMBER, key, "a number");
		if (!e && (core_jnum_double(&rd->t, &r->time) || r->time < 0))
			return rerr(rd, here(rd), "time: not a time (Unix seconds)");
	} else if (!strcmp(key, "clock")) {
		e = expect(rd, CORE_J_STRING, key, "a string");
		if (!e && strcmp(rd->t.str, "monotonic") && strcmp(rd->t.str, "realtime"))
			return rerr(rd, here(rd), "clock: expected \"monotonic\" or \"realtime\"");
		if (!e && !(r->clock = jh_pool_strndup(&r->pool, rd->t.str, rd->t.len)))
			return JEHEAP_ENOMEM;
	} else if (!strcmp(key, "clock_now_ns")) {
		e = read_u64(rd, key, UINT64_MAX, &r->now);
	} else if (!strcmp(key, "maps")) {
		e = read_text(rd, key, JH_RECENT_MAX_MAPS, &rd->maps);
	} else if (!strcmp(key, "stamp")) {
		e = read_text(rd, key, 1 << 20, &rd->stamp);
	} else {
		e = skip_value(rd);
	}
	return e;
}

static int read_jeattach(struct reader *rd)
{
	/* what read_jeattach_key reads: each at most once, as jemalloc's */
	static const char *const known[] = { "pid", "time", "clock", "clock_now_ns", "maps",
					     "stamp" };
	unsigned seen = 0;
	int e = expect(rd, CORE_J_OBJECT, "jeattach", "an object");
	while (!e && !(e = next(rd)) && rd->t.type == CORE_J_KEY) {
		/* the token's text is gone once the value is taken; a longer
		 * key, cut here, is still none of the known ones */
		char key[32];
		snprintf(key, sizeof(key), "%s", rd->t.str);
		for (unsigned k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
			if (strcmp(key, known[k]))
				continue;
			if (seen & 1u << k)
				return rerr(rd, here(rd), "jeattach: %s given twice", key);
			seen |= 1u << k;
		}
		e = read_jeattach_key(rd, key);
	}
	if (!e && (!rd->r->clock || !rd->r->now))
		return rerr(rd, here(rd), "jeattach: no clock or clock_now_ns");
	rd->r->has_jeattach = !e;
	return e;
}

enum { T_INTERVAL = 1, T_MAX = 2, T_RECORDS = 4, T_JEATTACH = 8 };

static int read_top_key(struct reader *rd, const char *key, unsigned *seen)
{
	static const char *const keys[] = { "sample_interval", "recent_alloc_max", "recent_alloc",
					    "jeattach" };
	unsigned bit = 0;
	for (size_t k = 0; k < 4 && !bit; k++)
		if (!strcmp(key, keys[k]))
			bit = 1u << k;
	if (bit & *seen)
		return rerr(rd, here(rd), "%s given twice", key);
	*seen |= bit;
	uint64_t v;
	int e;
	switch (bit) {
	case T_INTERVAL:
		/* 2^lg_prof_sample, lg_prof_sample at most 63 (opt_lg_prof_sample's bound) */
		if (!(e = read_u64(rd, key, (uint64_t)1 << 62, &v)) && (!v || (v & (v - 1))))
			return rerr(rd, here(rd), "sample_interval: not a power of two");
		rd->r->sample_interval = v;
		return e;
	case T_MAX:
		e = expect(rd, CORE_J_NUMBER, key, "a number");
		if (!e && (core_jnum_i64(&rd->t, &rd->r->recent_alloc_max) ||
			   rd->r->recent_alloc_max < -1))
			return rerr(rd, here(rd), "recent_alloc_max: not -1 or a count");
		return e;
	case T_RECORDS:
		return read_records(rd);
	case T_JEATTACH:
		return read_jeattach(rd);
	default:
		return skip_value(rd);
	}
}

/* What is not such a record, said so with what to do. */
static int not_a_record(struct reader *rd)
{
	rd->said_what_to_do = 1;
	const char *p = rd->j.start;
	while (p < rd->j.end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	size_t left = (size_t)(rd->j.end - p);
	if ((left >= 8 && !memcmp(p, "heap_v2/", 8)) || (left >= 13 && !memcmp(p, "heap profile:", 13)) ||
	    (left >= 10 && !memcmp(p, "--- symbol", 10)))
		return rerr(rd, 0, "a heap profile, not a record of recent allocations: "
				   "read it with jeheap top");
	if (p == rd->j.end)
		return rerr(rd, 0, "empty file: not a record of recent allocations (jeattach "
				   "--recent writes one)");
	if (*p != '{')
		return rerr(rd, (size_t)(p - rd->j.start), "not a JSON object: not a record of "
				   "recent allocations (jeattach --recent writes one)");
	rd->said_what_to_do = 0;
	return 0;
}

static int read_top(struct reader *rd)
{
	int e = not_a_record(rd);
	if (e || (e = next(rd)))
		return e;
	rd->said_what_to_do = rd->t.type != CORE_J_OBJECT;
	if (rd->t.type != CORE_J_OBJECT)
		return rerr(rd, 0, "a JSON value that is not an object: not a record of recent "
				   "allocations (jeattach --recent writes one)");
	unsigned seen = 0;
	while (!e && !(e = next(rd)) && rd->t.type == CORE_J_KEY) {
		char key[32]; /* as in read_jeattach */
		snprintf(key, sizeof(key), "%s", rd->t.str);
		e = read_top_key(rd, key, &seen);
	}
	if (e || (e = next(rd)))
		return e; /* a fault inside, or text after the object */
	rd->said_what_to_do = 1;
	if ((seen & (T_INTERVAL | T_RECORDS)) != (T_INTERVAL | T_RECORDS))
		return rerr(rd, 0, "no %s: not a record of recent allocations (jeattach --recent "
				   "writes one)", seen & T_INTERVAL ? "recent_alloc" : "sample_interval");
	return 0;
}

/* The maps and stamps as the profile a symbolizer is made from. */
static int make_profile(struct reader *rd, int64_t written)
{
	jeheap_profile *p = calloc(1, sizeof(*p));
	const char *m = rd->maps ? rd->maps : "", *s = rd->stamp ? rd->stamp : "";
	size_t ml = strlen(m), sl = strlen(s);
	if (!p || !(p->maps = malloc(ml + sl + 2))) {
		free(p);
		return JEHEAP_ENOMEM;
	}
	memcpy(p->maps, m, ml);
	/* the stamps must come last and each on its own line (jh_recorded_read) */
	if (ml && m[ml - 1] != '\n' && sl)
		p->maps[ml++] = '\n';
	memcpy(p->maps + ml, s, sl + 1);
	p->maps_len = ml + sl;
	p->maps_cap = ml + sl + 2;
	p->format = JEHEAP_FORMAT_THREADED;
	p->period = rd->r->sample_interval;
	p->written = written;
	rd->r->profile = p;
	return 0;
}

/* text[len] is 0. */
static int parse(const char *text, size_t len, int64_t written, jeheap_recent **out,
		 struct jeheap_error_info *ei)
{
	if (ei)
		memset(ei, 0, sizeof(*ei));
	*out = NULL;
	struct reader rd = { .r = calloc(1, sizeof(jeheap_recent)), .ei = ei };
	if (!rd.r)
		return JEHEAP_ENOMEM;
	jh_seqset_init(&rd.r->traces, sizeof(uint64_t));
	jh_seqset_init(&rd.r->stacks, sizeof(uint32_t));
	core_jpull_init(&rd.j, text, len, JH_RECENT_MAX_MAPS, JH_RECENT_MAX_DEPTH);
	int e = read_top(&rd);
	if (!e)
		e = make_profile(&rd, written);
	core_jpull_free(&rd.j);
	free(rd.pcs);
	free(rd.maps);
	free(rd.stamp);
	if (e == JEHEAP_EFORMAT && ei && !rd.said_what_to_do) {
		/* a fault inside: the file was damaged, or is not jeattach's */
		size_t l = strlen(ei->message);
		snprintf(ei->message + l, sizeof(ei->message) - l,
			 " (a damaged or forged record: take it again with jeattach --recent)");
	}
	if (e) {
		jeheap_recent_free(rd.r);
		if (ei && !ei->code) {
			ei->code = e;
			snprintf(ei->message, sizeof(ei->message), "%s", jeheap_strerror(e));
		}
		return e;
	}
	*out = rd.r;
	return 0;
}

JH_EXPORT int jeheap_recent_read_memory(const void *buf, size_t len, jeheap_recent **out,
					struct jeheap_error_info *ei)
{
	if ((!buf && len) || !out)
		return JEHEAP_EINVAL;
	char *copy = malloc(len + 1);
	if (!copy)
		return JEHEAP_ENOMEM;
	if (len)
		memcpy(copy, buf, len);
	copy[len] = 0;
	int e = parse(copy, len, 0, out, ei);
	free(copy);
	return e;
}

JH_EXPORT int jeheap_recent_read_file(const char *path, jeheap_recent **out,
				      struct jeheap_error_info *ei)
{
	if (!path || !out)
		return JEHEAP_EINVAL;
	char *text;
	size_t len;
	int r = core_read_file(path, JH_RECENT_MAX_FILE, &text, &len);
	if (r) {
		int code = r == -ENOENT ? JEHEAP_ENOENT : JEHEAP_EIO;
		if (ei) {
			memset(ei, 0, sizeof(*ei));
			ei->code = code;
			snprintf(ei->message, sizeof(ei->message), "%s: %s", path,
				 r == -EFBIG ? "larger than any record of recent allocations (2 GiB)"
					     : strerror(-r));
		}
		*out = NULL;
		return code;
	}
	struct stat st;
	int64_t written = stat(path, &st) ? 0 : (int64_t)st.st_mtime;
	r = parse(text, len, written, out, ei);
	free(text);
	return r;
}
