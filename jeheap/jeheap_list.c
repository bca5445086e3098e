/* SPDX-License-Identifier: BSD-2-Clause */
/* jeprof --list=RE (PrintListing, PrintSource): for each function matching
 * RE that holds memory, its source with each line's flat and cumulative
 * value, 5 lines of context, "---" around the body. Values are per address
 * (the top table at --addresses), each address at the line of the listed
 * function itself (its outermost frame: an inlined callee's address counts
 * at the call's line, as GetTopLevelLineNumbers does). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap_cli.h"
#include "jeheap_list.h"
#include "jeheap_source.h"
#include "jeheap_text.h"

struct site {
	uint64_t addr;
	double flat, cum;
	const char *function, *file;
	unsigned long line;
};

static int by_addr(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* jeprof's ByName, then addresses in order (PrintSource walks them so). */
static int by_function(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	int c = strcmp(x->function, y->function);
	return c ? c : by_addr(a, b);
}

/* The table's rows at --addresses are "ADDRESS name file:line", one per
 * frame at the address: flat is the leaf frame's, cum the same for all. */
static size_t sites_of(const jeheap_top *t, struct site *out)
{
	size_t n = 0;
	for (size_t i = 0; i < jeheap_top_count(t); i++) {
		const struct jeheap_top_entry *e = jeheap_top_entry(t, i);
		char *end;
		uint64_t a = strtoull(e->name, &end, 16);
		if (end != e->name + 16 || *end != ' ')
			continue; /* an address of no known function */
		out[n++] = (struct site){ a, e->flat, e->cum, NULL, NULL, 0 };
	}
	qsort(out, n, sizeof(*out), by_addr);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && out[k - 1].addr == out[i].addr) {
			out[k - 1].flat += out[i].flat;
			continue;
		}
		out[k++] = out[i];
	}
	return k;
}

/* jeprof's line for an address whose location has a DWARF discriminator
 * ("file:244 (discriminator 3)"): neither addr2line's nor objdump's form
 * then matches its /:(\d+)$/, so the instruction keeps the location objdump
 * printed last before it (Disassemble): the nearest line-table row at or
 * before it, in the same function, without a discriminator. None (file
 * NULL): jeprof's line -1, outside every listing. */
static void objdump_line(jeheap_symbolizer *s, struct site *x)
{
	x->file = NULL;
	x->line = 0;
	for (uint64_t a = x->addr; a + 4096 > x->addr && a; a--) {
		struct jeheap_frame f[64];
		size_t nf = jeheap_symbolize_frames(s, a, f, 64);
		if (!nf || nf > 64 || !f[nf - 1].function || strcmp(f[nf - 1].function, x->function))
			return; /* before the function: objdump started there */
		if (f[0].file && !f[0].discriminator) {
			x->file = f[0].file;
			x->line = f[0].line;
			return;
		}
	}
}

/* Each site's listed function, file and line: its outermost frame's
 * (GetTopLevelLineNumbers); only the functions matching re are kept. */
static size_t name_sites(struct site *x, size_t n, jeheap_symbolizer *s, regex_t *re)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct jeheap_frame f[64];
		size_t nf = jeheap_symbolize_frames(s, x[i].addr, f, 64);
		if (!nf || nf > 64 || !f[nf - 1].function ||
		    regexec(re, f[nf - 1].function, 0, NULL, 0))
			continue;
		x[i].function = f[nf - 1].function;
		x[i].file = f[nf - 1].file;
		x[i].line = f[nf - 1].line;
		if (f[nf - 1].discriminator)
			objdump_line(s, &x[i]);
		x[k++] = x[i];
	}
	qsort(x, k, sizeof(*x), by_function);
	return k;
}

/* jeprof's CleanFileName */
static const char *clean(const char *f)
{
	if (!strncmp(f, "/proc/self/cwd/", 15))
		f += 15;
	return strncmp(f, "./", 2) ? f : f + 2;
}

struct style {
	int metric, show_bytes;
};

/* jeprof's UnparseAlt: "." for 0 */
static const char *alt(double v, const struct style *st, char *buf, size_t len)
{
	return v == 0 ? "." : unparse(v, st->metric, st->show_bytes, buf, len);
}

/* Where a routine's values go: line -> flat, cum over [first, last]. */
struct body {
	size_t first, last, shown_last;
	double *flat, *cum;
	double total_flat, total_cum;
};

/* jeprof's hack 4: a site outside the body gives its values to the next
 * site inside it, the rest to the last line. */
static void assign(struct body *b, const struct site *x, size_t n, const char *file)
{
	double run_flat = 0, run_cum = 0;
	for (size_t i = 0; i < n; i++) {
		run_flat += x[i].flat;
		run_cum += x[i].cum;
		b->total_flat += x[i].flat;
		b->total_cum += x[i].cum;
		if (x[i].file && !strcmp(x[i].file, file) && x[i].line >= b->first &&
		    x[i].line <= b->last) {
			b->flat[x[i].line - b->first] += run_flat;
			b->cum[x[i].line - b->first] += run_cum;
			run_flat = run_cum = 0;
		}
	}
	b->flat[b->last - b->first] += run_flat;
	b->cum[b->last - b->first] += run_cum;
}

/* The body's lines: from the definition (at or above the first line with
 * a value) to its closing brace (at least the last line with a value). */
static void find_body(struct body *b, const struct source *src, const struct site *x, size_t n,
		      const char *file)
{
	size_t lo = 0, hi = 0;
	for (size_t i = 0; i < n; i++)
		if (x[i].file && !strcmp(x[i].file, file) && x[i].line) {
			lo = !lo || x[i].line < lo ? x[i].line : lo;
			hi = x[i].line > hi ? x[i].line : hi;
		}
	b->first = source_first_line(src, x[0].function, lo ? lo : 1);
	b->shown_last = hi > b->first ? hi : b->first;
	b->last = source_last_line(src, b->first, b->shown_last);
	b->shown_last = b->last;
}

static void print_body(FILE *out, const struct source *src, const struct body *b,
		       const struct style *st)
{
	char f[32], c[32];
	size_t from = b->first > 5 ? b->first - 5 : 1;
	for (size_t l = from; l <= src->n && l <= b->shown_last + 5; l++) {
		int in = l >= b->first && l <= b->last;
		if (l == b->first)
			fputs("---\n", out);
		fprintf(out, "%6s %6s %4zu: %s\n", alt(in ? b->flat[l - b->first] : 0, st, f, 32),
			alt(in ? b->cum[l - b->first] : 0, st, c, 32), l, src->line[l]);
		if (l == b->last)
			fputs("---\n", out);
	}
}

/* One routine: sites x[0..n), all of one function, by address. 0 or -1. */
static int print_routine(FILE *out, const struct site *x, size_t n, const struct style *st)
{
	char a[32], b2[32];
	const char *file = NULL;
	for (size_t i = 0; i < n && !file; i++)
		file = x[i].file;
	if (!file) {
		fprintf(stderr, "no filename found in %s\n", x[0].function); /* as jeprof */
		return 0;
	}
	struct source src;
	if (source_read(&src, file)) {
		fprintf(stderr, "%s: %s\n", file, strerror(errno)); /* as jeprof */
		return 0;
	}
	struct body b = { 0 };
	find_body(&b, &src, x, n, file);
	b.flat = calloc(b.last - b.first + 1, sizeof(double));
	b.cum = calloc(b.last - b.first + 1, sizeof(double));
	if (b.flat && b.cum) {
		assign(&b, x, n, file);
		fprintf(out, "ROUTINE ====================== %s in %s\n", x[0].function, clean(file));
		fprintf(out, "%6s %6s Total %s (flat / cumulative)\n",
			unparse(b.total_flat, st->metric, st->show_bytes, a, 32),
			unparse(b.total_cum, st->metric, st->show_bytes, b2, 32),
			units(st->metric, st->show_bytes));
		print_body(out, &src, &b, st);
	}
	int rc = b.flat && b.cum ? 0 : -1;
	free(b.flat);
	free(b.cum);
	source_free(&src);
	return rc;
}

int print_listing(FILE *out, const jeheap_profile *p, jeheap_symbolizer *s,
		  const struct jeheap_query *q, const char *re_text, int show_bytes)
{
	struct jeheap_query aq = *q;
	aq.granularity = JEHEAP_ADDRESSES; /* jeprof: --list implies --addresses */
	jeheap_top *t = NULL;
	regex_t re;
	if (regcomp(&re, re_text, REG_EXTENDED | REG_NOSUB))
		return EXIT_USAGE; /* checked before: not reached */
	int e = jeheap_top_query(p, s, &aq, &t);
	struct site *x = e ? NULL : calloc(jeheap_top_count(t) + 1, sizeof(*x));
	if (!e && !x)
		e = JEHEAP_ENOMEM;
	size_t n = e ? 0 : name_sites(x, sites_of(t, x), s, &re);
	const struct style st = { q->metric, show_bytes };
	for (size_t i = 0, j; !e && i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(x[j].function, x[i].function); j++)
			;
		if (print_routine(out, x + i, j - i, &st))
			e = JEHEAP_ENOMEM;
	}
	free(x);
	jeheap_top_free(t);
	regfree(&re);
	if (e)
		fprintf(stderr, "jeheap: %s\n", jeheap_strerror(e));
	return e == JEHEAP_EINVAL ? EXIT_USAGE : e ? EXIT_INPUT : 0;
}
