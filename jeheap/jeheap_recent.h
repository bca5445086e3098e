/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap recent: the record of recent allocations jeattach --recent
 * writes, read through libjeheap and shown as text or JSON. */
#ifndef JEHEAP_RECENT_H
#define JEHEAP_RECENT_H

#include <stdint.h>
#include <stdio.h>
#include "jeheap.h"

/* What to show, from the command line. */
struct recent_args {
	const char *path, *root, *outpath;
	int json;
	int top, live, cross, lifetimes; /* the views asked for (none: top) */
	uint64_t live_max_age;           /* --live D, ns; 0: any age */
	int live_order;                  /* enum jeheap_recent_order */
	int per_stack;                   /* --lifetimes per stack */
	long limit;                      /* rows per view (-n, --top N) */
	long depth;                      /* frames per stack in text */
	int granularity;                 /* enum jeheap_granularity */
};

/* jeheap recent ARGS (argv[0] "recent"): an exit code. */
int jeheap_recent_main(int argc, char **argv);

/* The output's row callbacks share this: where rows go, and how many
 * were shown against -n (a->limit, 0: no limit). */
struct recent_rows {
	FILE *out;
	const jeheap_recent *r;
	const struct recent_args *a;
	uint64_t now;
	long shown;
};

/* A row callback's "enough rows": not one of libjeheap's error codes. */
#define ROWS_DONE (-1)

static inline int recent_more_rows(const struct recent_rows *w)
{
	return w->a->limit <= 0 || w->shown < w->a->limit;
}

/* The record, named, as text (jeheap_recent_text.c) or one JSON object
 * (jeheap_recent_json.c): 0, or JEHEAP_ENOMEM. */
int recent_print_text(FILE *out, const jeheap_recent *r, const struct recent_args *a);
int recent_print_json(FILE *out, const jeheap_recent *r, const struct recent_args *a);

/* Units (jeheap_recent_units.c). "500ms", "2s", "1.5m", "10us", "300ns",
 * "1h"; a bare number is seconds: 0, or -1. */
int recent_parse_duration(const char *s, uint64_t *ns);
/* ns as "1.5 ms", "200 µs", "3.2 s", "12 ns" into buf. */
const char *recent_ns(uint64_t ns, char *buf, size_t len);
/* bytes as "512 B", "1.5 KiB", "3.0 MiB" into buf. */
const char *recent_bytes(double bytes, char *buf, size_t len);
/* A thread as "NAME (tN)" or "tN" into buf (the name escaped for a
 * terminal). */
const char *recent_thread(uint64_t uid, const char *name, char *buf, size_t len);

#endif
