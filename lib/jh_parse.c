/* SPDX-License-Identifier: BSD-2-Clause */
/* Heap profile reader. Formats (jemalloc's prof_dump in src/prof_data.c,
 * unchanged from 4.0 to 5.3; jeprof's ReadThreadedHeapProfile and
 * ReadHeapProfile):
 *
 *   heap_v2/524288                 threaded: sample period
 *     t*: 15: 43949 [0: 0]         totals, then one line per thread
 *     t0: 13: 53248 [0: 0]         (5.3 may append a thread name)
 *   @ 0x7f34.. 0x5565..            a stack, leaf first (may be empty)
 *     t*: 2: 2048 [0: 0]
 *     t3: 1: 1024 [0: 0]
 *   MAPPED_LIBRARIES:              then /proc/PID/maps verbatim
 *
 *   heap profile: 1: 2 [3: 4] @ heap_v2/524288     one-line (3.x, gperftools)
 *   1: 2 [3: 4] @ 0x1 0x2
 *
 * Every malformed line is an error with its line and column; nothing here
 * trusts the input (it is fuzzed). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "jh_internal.h"

struct parser {
	jeheap_profile *p;
	int in_symbols;          /* inside jeprof's "--- symbol" section */
	unsigned long header_at; /* the line that holds the profile's header */
	struct jeheap_error_info *ei;
	unsigned long line;
	const char *start; /* of the current line, for columns */
	int in_stack;      /* a '@' line was seen: t lines belong to it */
	int have_total;    /* its t*: line was seen */
};

static int perr(struct parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int perr(struct parser *ps, const char *at, const char *fmt, ...)
{
	if (ps->ei) {
		ps->ei->code = JEHEAP_EFORMAT;
		ps->ei->line = ps->line;
		ps->ei->column = at ? (unsigned long)(at - ps->start) + 1 : 1;
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ps->ei->message, sizeof(ps->ei->message), fmt, ap);
		va_end(ap);
	}
	return JEHEAP_EFORMAT;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A decimal number; NULL if none or it overflows. */
static const char *parse_u64(const char *s, uint64_t *v)
{
	if (*s < '0' || *s > '9')
		return NULL;
	uint64_t x = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (x > (UINT64_MAX - d) / 10)
			return NULL;
		x = x * 10 + d;
	}
	*v = x;
	return s;
}

/* Each hex digit's value plus one, 0 for anything else: one load per
 * character (the comparisons cost a tenth of reading a large profile). */
static const unsigned char hexval[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
	['f'] = 16, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static const char *parse_hex(const char *s, uint64_t *v)
{
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	uint64_t x = 0;
	int n = 0;
	for (unsigned d; (d = hexval[(unsigned char)*s]); s++, n++) {
		if (n >= 16)
			return NULL;
		x = x << 4 | (d - 1);
	}
	if (!n)
		return NULL;
	*v = x;
	return s;
}

static int expect(struct parser *ps, const char **s, char c)
{
	*s = skip_space(*s);
	if (**s != c)
		return perr(ps, *s, "expected '%c'", c);
	(*s)++;
	return 0;
}

/* "n1: s1 [n2: s2]" */
static int parse_counts(struct parser *ps, const char **sp, uint64_t raw[4])
{
	static const char after[4] = { ':', '[', ':', ']' };
	const char *s = *sp;
	for (int i = 0; i < 4; i++) {
		s = skip_space(s);
		const char *e = parse_u64(s, &raw[i]);
		if (!e)
			return perr(ps, s, "expected a count");
		s = e;
		int r = expect(ps, &s, after[i]);
		if (r)
			return r;
	}
	*sp = s;
	return 0;
}

static int parse_pcs(struct parser *ps, const char *s)
{
	jeheap_profile *p = ps->p;
	size_t first = p->npcs;
	for (;;) {
		s = skip_space(s);
		if (!*s)
			break;
		uint64_t pc;
		const char *e = parse_hex(s, &pc);
		if (!e || (*e && *e != ' ' && *e != '\t'))
			return perr(ps, s, "expected a hexadecimal address");
		if (p->npcs == p->pcs_cap &&
		    jh_grow((void **)&p->pcs, &p->pcs_cap, p->npcs + 1, sizeof(uint64_t)))
			return JEHEAP_ENOMEM;
		p->pcs[p->npcs++] = pc;
		s = e;
	}
	if (p->npcs - first > UINT32_MAX)
		return perr(ps, s, "stack too deep");
	if (jh_grow((void **)&p->stacks, &p->stacks_cap, p->nstacks + 1, sizeof(struct jh_stack)))
		return JEHEAP_ENOMEM;
	struct jh_stack *st = &p->stacks[p->nstacks++];
	st->pc_off = first;
	st->npcs = (uint32_t)(p->npcs - first);
	memset(st->raw, 0, sizeof(st->raw));
	return 0;
}

/* "t*: ..." or "tN: ... [thread name]" of the threaded format. */
static int parse_thread_line(struct parser *ps, const char *s)
{
	jeheap_profile *p = ps->p;
	uint64_t tid = UINT64_MAX, raw[4];
	s++; /* 't' */
	if (*s == '*') {
		s++;
	} else {
		const char *e = parse_u64(s, &tid);
		if (!e || tid == UINT64_MAX)
			return perr(ps, s, "expected '*' or a thread number after 't'");
		s = e;
	}
	int r = expect(ps, &s, ':');
	if (r || (r = parse_counts(ps, &s, raw)))
		return r;
	/* Anything after "] " on a header's thread line is the thread's name
	 * (prof_tdata_dump_iter, jemalloc 4.0 to dev: thread.prof.name, or
	 * 5.3's prof_sys_thread_name). jemalloc writes none on a stack's
	 * thread lines (prof_tctx_dump_iter); ignored there. */
	if (tid == UINT64_MAX) {
		if (ps->in_stack) {
			if (ps->have_total)
				return perr(ps, ps->start, "a second t*: line for one stack");
			memcpy(p->stacks[p->nstacks - 1].raw, raw, sizeof(raw));
			ps->have_total = 1;
		}
		return 0; /* the header's totals are derived, not stored */
	}
	if (jh_grow((void **)&p->threads, &p->threads_cap, p->nthreads + 1,
		 sizeof(struct jh_thread_line)))
		return JEHEAP_ENOMEM;
	struct jh_thread_line *tl = &p->threads[p->nthreads++];
	tl->stack = ps->in_stack ? p->nstacks - 1 : SIZE_MAX;
	tl->tid = tid;
	tl->name = NULL;
	memcpy(tl->raw, raw, sizeof(raw));
	if (*s == ' ')
		s++;
	if (!ps->in_stack && *s && !(tl->name = strdup(s)))
		return JEHEAP_ENOMEM;
	return 0;
}

static int parse_threaded_line(struct parser *ps, const char *s)
{
	s = skip_space(s);
	if (*s == '@') {
		if (ps->in_stack && !ps->have_total)
			return perr(ps, ps->start, "the previous stack has no t*: line");
		ps->in_stack = 1;
		ps->have_total = 0;
		return parse_pcs(ps, s + 1);
	}
	if (*s == 't')
		return parse_thread_line(ps, s);
	if (!*s)
		return 0;
	return perr(ps, s, "expected '@', 't*:' or 'tN:'");
}

/* "n1: s1 [n2: s2] @ a1 a2 ..." of the one-line format. */
static int parse_oneline_line(struct parser *ps, const char *s)
{
	uint64_t raw[4];
	s = skip_space(s);
	if (!*s)
		return 0;
	int r = parse_counts(ps, &s, raw);
	if (r || (r = expect(ps, &s, '@')) || (r = parse_pcs(ps, s)))
		return r;
	memcpy(ps->p->stacks[ps->p->nstacks - 1].raw, raw, sizeof(raw));
	return 0;
}

static int parse_header(struct parser *ps, const char *s)
{
	jeheap_profile *p = ps->p;
	const char *e;
	if (!strncmp(s, "heap_v2/", 8)) {
		p->format = JEHEAP_FORMAT_THREADED;
		if (!(e = parse_u64(s + 8, &p->period)) || *skip_space(e))
			return perr(ps, s + 8, "expected the sample period after heap_v2/");
		return 0;
	}
	if (!strncmp(s, "heap profile:", 13)) {
		uint64_t raw[4];
		p->format = JEHEAP_FORMAT_ONELINE;
		s += 13;
		int r = parse_counts(ps, &s, raw);
		if (r || (r = expect(ps, &s, '@')))
			return r;
		s = skip_space(s);
		if (!strncmp(s, "heap_v2/", 8)) {
			if (!(e = parse_u64(s + 8, &p->period)))
				return perr(ps, s + 8, "expected the sample period after heap_v2/");
		} else if (strncmp(s, "heapprofile", 11) && strncmp(s, "heap", 4)) {
			return perr(ps, s, "unknown heap profile type");
		}
		return 0; /* "heapprofile", "heap": not sampled */
	}
	if (*s == '{') /* jeattach --recent's record is JSON */
		return perr(ps, s, "a JSON file, not a heap profile (a record of recent "
				   "allocations? read it with jeheap recent)");
	return perr(ps, s, "not a jemalloc heap profile (expected heap_v2/N or 'heap profile:')");
}

static int append_maps(jeheap_profile *p, const char *s, size_t n)
{
	if (jh_grow((void **)&p->maps, &p->maps_cap, p->maps_len + n + 1, 1))
		return JEHEAP_ENOMEM;
	memcpy(p->maps + p->maps_len, s, n);
	p->maps_len += n;
	p->maps[p->maps_len] = 0;
	return 0;
}

/* jeprof's symbolized form (PrintSymbolizedProfile / ReadSymbols):
 *   --- symbol
 *   binary=/path/to/program
 *   0x00007f34a1c2d4e0 function[--inlined...]
 *   ---
 *   --- heap
 *   heap_v2/524288 ...
 * The names are keyed by the address jeprof looks up: callers' return
 * addresses already minus one. An inline chain (caller--...--callee) is
 * kept whole; the symbolizer splits it. */
static int parse_symbol_line(struct parser *ps, const char *s)
{
	jeheap_profile *p = ps->p;
	if (!strcmp(s, "---")) {
		ps->in_symbols = 2; /* next: the "--- heap" marker */
		return 0;
	}
	if (!strncmp(s, "binary=", 7)) {
		free(p->binary);
		return (p->binary = strdup(s + 7)) ? 0 : JEHEAP_ENOMEM;
	}
	uint64_t addr;
	const char *e = parse_hex(s, &addr);
	if (!e || s[0] != '0' || (*e != ' ' && *e != '\t'))
		return perr(ps, s, "expected 0xADDRESS NAME in the symbol section");
	const char *name = skip_space(e);
	size_t l = strlen(name);
	if (l >= 2 && !strcmp(name + l - 2, "--")) /* a terminating separator */
		l -= 2;
	if (!l)
		return perr(ps, name, "a symbol without a name");
	if (jh_grow((void **)&p->syms, &p->syms_cap, p->nsyms + 1, sizeof(*p->syms)))
		return JEHEAP_ENOMEM;
	char *copy = strndup(name, l);
	if (!copy)
		return JEHEAP_ENOMEM;
	p->syms[p->nsyms].addr = addr;
	p->syms[p->nsyms].name = copy;
	p->nsyms++;
	return 0;
}

/* One line (without its newline, NUL-terminated) at a time. */
static int parse_line(struct parser *ps, char *s, size_t len, int *in_maps)
{
	ps->line++;
	ps->start = s;
	if (len && s[len - 1] == '\r')
		s[--len] = 0;
	if (memchr(s, 0, len))
		return perr(ps, (const char *)memchr(s, 0, len), "NUL byte in a text profile");
	if (*in_maps) {
		int r = append_maps(ps->p, s, len);
		return r ? r : append_maps(ps->p, "\n", 1);
	}
	if (ps->line == 1 && !strcmp(s, "--- symbol")) {
		ps->in_symbols = 1;
		return 0;
	}
	if (ps->in_symbols == 1)
		return parse_symbol_line(ps, s);
	if (ps->in_symbols == 2) {
		if (strcmp(s, "--- heap") && strcmp(s, "--- growth"))
			return perr(ps, s, "expected '--- heap' after the symbol section");
		ps->in_symbols = 0;
		ps->header_at = ps->line + 1;
		return 0;
	}
	if (ps->line == ps->header_at)
		return parse_header(ps, s);
	if (!strncmp(s, "MAPPED_LIBRARIES:", 17) || !strncmp(s, "--- Memory map:", 15)) {
		if (ps->in_stack && !ps->have_total && ps->p->format == JEHEAP_FORMAT_THREADED)
			return perr(ps, s, "the last stack has no t*: line");
		*in_maps = 1;
		return 0;
	}
	return ps->p->format == JEHEAP_FORMAT_THREADED ? parse_threaded_line(ps, s)
							: parse_oneline_line(ps, s);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct jh_symbol *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int finish(struct parser *ps, int in_maps)
{
	if (ps->line == 0)
		return perr(ps, NULL, "empty input");
	if (ps->in_symbols || ps->line < ps->header_at)
		return perr(ps, NULL, "a symbol section with no profile after it");
	if (ps->p->nsyms)
		qsort(ps->p->syms, ps->p->nsyms, sizeof(*ps->p->syms), cmp_sym);
	if (!in_maps && ps->in_stack && !ps->have_total && ps->p->format == JEHEAP_FORMAT_THREADED)
		return perr(ps, NULL, "the last stack has no t*: line (truncated profile?)");
	if (!ps->p->maps && append_maps(ps->p, "", 0))
		return JEHEAP_ENOMEM;
	return 0;
}

static int fail(jeheap_profile *p, struct jeheap_error_info *ei, int code, jeheap_profile **out)
{
	jeheap_profile_free(p);
	*out = NULL;
	if (ei && ei->code == JEHEAP_OK) {
		ei->code = code;
		snprintf(ei->message, sizeof(ei->message), "%s", jeheap_strerror(code));
	}
	return code;
}

JH_EXPORT int jeheap_profile_read_stream(FILE *f, jeheap_profile **out,
					 struct jeheap_error_info *ei)
{
	if (ei)
		memset(ei, 0, sizeof(*ei));
	if (!f || !out)
		return JEHEAP_EINVAL;
	jeheap_profile *p = calloc(1, sizeof(*p));
	if (!p)
		return fail(NULL, ei, JEHEAP_ENOMEM, out);
	struct parser ps = { .p = p, .ei = ei, .header_at = 1 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int in_maps = 0, r = 0;
	while (!r && (n = getline(&line, &cap, f)) >= 0) {
		if (n && line[n - 1] == '\n')
			line[--n] = 0;
		r = parse_line(&ps, line, (size_t)n, &in_maps);
	}
	free(line);
	if (!r && ferror(f))
		r = JEHEAP_EIO;
	if (!r)
		r = finish(&ps, in_maps);
	if (r)
		return fail(p, ei, r, out);
	*out = p;
	return 0;
}

JH_EXPORT int jeheap_profile_read_file(const char *path, jeheap_profile **out,
				       struct jeheap_error_info *ei)
{
	if (!path || !out)
		return JEHEAP_EINVAL;
	FILE *f = fopen(path, "re");
	if (!f) {
		int code = errno == ENOENT ? JEHEAP_ENOENT : JEHEAP_EIO;
		if (ei) {
			memset(ei, 0, sizeof(*ei));
			ei->code = code;
			snprintf(ei->message, sizeof(ei->message), "%s: %s", path, strerror(errno));
		}
		*out = NULL;
		return code;
	}
	/* Large sequential reads: profiles are tens of MB. */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	int r = jeheap_profile_read_stream(f, out, ei);
	struct stat st;
	if (!r && !fstat(fileno(f), &st)) {
		(*out)->written = st.st_mtim.tv_sec;
		(*out)->written_nsec = st.st_mtim.tv_nsec;
	}
	fclose(f);
	return r;
}

JH_EXPORT int jeheap_profile_read_memory(const void *buf, size_t len, jeheap_profile **out,
					 struct jeheap_error_info *ei)
{
	if ((!buf && len) || !out)
		return JEHEAP_EINVAL;
	if (len == 0) {
		jeheap_profile *p = NULL;
		struct parser ps = { .ei = ei };
		if (ei)
			memset(ei, 0, sizeof(*ei));
		return fail(p, ei, perr(&ps, NULL, "empty input"), out);
	}
	FILE *f = fmemopen((void *)buf, len, "r");
	if (!f)
		return JEHEAP_ENOMEM;
	int r = jeheap_profile_read_stream(f, out, ei);
	fclose(f);
	return r;
}
