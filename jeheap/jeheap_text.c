/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap's text writers: jeprof --text's table (same columns, same
 * rounding), a JSON object of the same rows, folded stacks. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap_text.h"
#include "core_json.h"

const char *unparse(double v, int metric, int show_bytes, char *buf, size_t len)
{
	/* jeprof's Unparse: objects (and bytes under --show_bytes) as
	 * integers, bytes in MB with one decimal. */
	if (metric == JEHEAP_INUSE_OBJECTS || metric == JEHEAP_ALLOC_OBJECTS || show_bytes)
		snprintf(buf, len, "%.0f", trunc(v)); /* Perl's %d, without int's range */
	else
		snprintf(buf, len, "%.1f", v / 1048576.0);
	return buf;
}

const char *units(int metric, int show_bytes)
{
	/* jeprof's Units */
	if (metric == JEHEAP_INUSE_OBJECTS || metric == JEHEAP_ALLOC_OBJECTS)
		return "objects";
	return show_bytes ? "B" : "MB";
}

static const char *percent(double v, double total, char *buf, size_t len)
{
	if (total != 0)
		snprintf(buf, len, "%.1f%%", v * 100.0 / total);
	else
		snprintf(buf, len, "%s", v == 0 ? "nan" : v > 0 ? "+inf" : "-inf");
	return buf;
}

/* jeprof's PrintText under --cum: by cumulative value, then name. */
static int by_cum(const void *a, const void *b)
{
	const struct jeheap_top_entry *x = *(const struct jeheap_top_entry *const *)a;
	const struct jeheap_top_entry *y = *(const struct jeheap_top_entry *const *)b;
	if (x->cum != y->cum)
		return x->cum > y->cum ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The rows in the order to print them (top's: by flat value), or NULL
 * without memory. */
static const struct jeheap_top_entry **ordered(const jeheap_top *t, int cum)
{
	size_t n = jeheap_top_count(t);
	const struct jeheap_top_entry **rows = calloc(n ? n : 1, sizeof(*rows));
	for (size_t i = 0; rows && i < n; i++)
		rows[i] = jeheap_top_entry(t, i);
	if (rows && cum && n)
		qsort(rows, n, sizeof(*rows), by_cum);
	return rows;
}

int print_top(FILE *out, const jeheap_top *t, const struct top_style *st)
{
	char a[32], b[32], c[32], d[32], e[32];
	double total = jeheap_top_total(t), running = 0;
	int m = st->metric, sb = st->show_bytes;
	const struct jeheap_top_entry **rows = ordered(t, st->by_cum);
	if (!rows)
		return -1;
	/* jeprof's FilterAndPrint: no Total line when the whole is 0 */
	if (!st->whole_header)
		fprintf(out, "Total: %s %s\n", unparse(total, m, sb, a, sizeof(a)), units(m, sb));
	else if (st->whole_total != 0)
		fprintf(out, "Total: %s %s\n", unparse(st->whole_total, m, sb, a, sizeof(a)),
			units(m, sb));
	for (size_t i = 0; i < jeheap_top_count(t) && (st->limit < 0 || (long)i < st->limit); i++) {
		const struct jeheap_top_entry *en = rows[i];
		running += en->flat;
		fprintf(out, "%8s %6s %6s %8s %6s %s\n", unparse(en->flat, m, sb, a, sizeof(a)),
			percent(en->flat, total, b, sizeof(b)), percent(running, total, c, sizeof(c)),
			unparse(en->cum, m, sb, d, sizeof(d)), percent(en->cum, total, e, sizeof(e)),
			en->name);
	}
	free(rows);
	return 0;
}

struct thread_out {
	FILE *f;
	int metric, n;
};

/* One of the header's threads: its number, name and the metric's value. */
static int print_thread(uint64_t thread, const char *name, const struct jeheap_counts *c,
			void *arg)
{
	struct thread_out *to = arg;
	const double v[4] = { c->inuse_bytes, c->inuse_objects, c->alloc_bytes, c->alloc_objects };
	fprintf(to->f, "%s{\"thread\":%llu,\"name\":", to->n++ ? "," : "",
		(unsigned long long)thread);
	if (name)
		core_json_put_string(to->f, name);
	else
		fputs("null", to->f);
	fprintf(to->f, ",\"value\":%.17g}", v[to->metric]);
	return 0;
}

void print_json(FILE *out, const jeheap_profile *p, const jeheap_top *t,
		const struct jeheap_query *q, long limit)
{
	static const char *const metrics[] = { "inuse_space", "inuse_objects", "alloc_space",
					       "alloc_objects" };
	static const char *const rows[] = { "functions", "lines", "addresses" };
	fprintf(out,
		"{\"metric\":\"%s\",\"unit\":\"%s\",\"rows\":\"%s\",\"total\":%.17g,"
		"\"functions\":[",
		metrics[q->metric], q->metric % 2 ? "objects" : "bytes", rows[q->granularity],
		jeheap_top_total(t));
	for (size_t i = 0; i < jeheap_top_count(t) && (limit < 0 || (long)i < limit); i++) {
		const struct jeheap_top_entry *en = jeheap_top_entry(t, i);
		fprintf(out, "%s{\"name\":", i ? "," : "");
		core_json_put_string(out, en->name);
		fprintf(out, ",\"flat\":%.17g,\"cum\":%.17g}", en->flat, en->cum);
	}
	/* The threads of the (first) profile's header, with their names. */
	struct thread_out to = { out, q->metric, 0 };
	fputs("],\"threads\":[", out);
	jeheap_profile_foreach_thread(p, JEHEAP_UNSAMPLED, print_thread, &to);
	fputs("]", out);
	if (q->per_thread) {
		const char *name = jeheap_profile_thread_name(p, q->thread);
		fprintf(out, ",\"thread\":{\"thread\":%llu,\"name\":",
			(unsigned long long)q->thread);
		if (name)
			core_json_put_string(out, name);
		else
			fputs("null", out);
		fputc('}', out);
	}
	fputs("}\n", out);
}

int print_folded(const char *stack, double value, double base, void *arg)
{
	struct fold_out *fo = arg;
	if (fo->limit == 0)
		return FOLD_DONE;
	if (fo->limit > 0)
		fo->limit--;
	if (fo->diff)
		fprintf(fo->f, "%s %.0f %.0f\n", stack, base, value);
	else
		fprintf(fo->f, "%s %.0f\n", stack, value);
	return 0;
}

