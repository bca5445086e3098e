/* SPDX-License-Identifier: BSD-2-Clause */
/* The names of a bounded directory of dumps and which files a bound
 * removes (keep.h). Pure: tests/check_keep.c runs it on made-up listings. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "keep.h"

static int comm_byte_ok(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '+' || c == '-';
}

int keep_name_make(time_t when, const char *comm, pid_t pid, unsigned seq, char *out,
		   size_t len)
{
	char stamp[32], safe[KEEP_COMM_MAX + 1];
	struct tm tm;
	size_t k = 0;
	if (!gmtime_r(&when, &tm) || strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm) != 16)
		return -1;
	for (; comm && comm[k] && k < KEEP_COMM_MAX; k++)
		safe[k] = comm_byte_ok((unsigned char)comm[k]) ? comm[k] : '_';
	if (!k)
		safe[k++] = '_';
	safe[k] = 0;
	int n = snprintf(out, len, "%s.%s.%d.%u.heap", stamp, safe, (int)pid, seq);
	return n > 0 && (size_t)n < len ? 0 : -1;
}

/* A decimal number of 1 to maxdigits digits, no leading zero, at most
 * max, ending at '.': its value and the '.', or NULL. */
static const char *number(const char *p, int maxdigits, unsigned long max, unsigned long *v)
{
	const char *s = p;
	unsigned long long x = 0;
	while (*p >= '0' && *p <= '9' && p - s < maxdigits)
		x = x * 10 + (unsigned)(*p++ - '0');
	if (p == s || *p != '.' || (*s == '0' && p - s > 1) || x > max)
		return NULL;
	*v = (unsigned long)x;
	return p;
}

int keep_name_parse(const char *name, struct keep_name *kn)
{
	struct keep_name k;
	const char *p = name;
	/* TIME: 8 digits, 'T', 6 digits, 'Z', '.' */
	for (int i = 0; i < 16; i++) {
		char c = p[i];
		int want_digit = i != 8 && i != 15;
		if (want_digit ? !(c >= '0' && c <= '9') : c != (i == 8 ? 'T' : 'Z'))
			return -1;
	}
	if (p[16] != '.')
		return -1;
	memcpy(k.stamp, p, 16);
	k.stamp[16] = 0;
	p += 17;
	/* COMM: 1 to 15 bytes of the set, '.' */
	const char *c = p;
	while (comm_byte_ok((unsigned char)*p) && p - c < KEEP_COMM_MAX)
		p++;
	if (p == c || *p != '.')
		return -1;
	if (!(p = number(p + 1, 10, 0x7fffffffUL, &k.pid)) || !k.pid)
		return -1;
	if (!(p = number(p + 1, 10, 0xffffffffUL, &k.seq)))
		return -1;
	if (strcmp(p, ".heap"))
		return -1;
	if (kn)
		*kn = k;
	return 0;
}

/* A listed file with its name read, for sorting. */
struct entry {
	size_t i;
	struct keep_name kn;
	int64_t mtime;
	int newest;
};

/* Newest first. */
static int by_age(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	if (x->newest != y->newest)
		return x->newest ? -1 : 1;
	int c = strcmp(y->kn.stamp, x->kn.stamp);
	if (c)
		return c;
	/* Several targets dumped within one second: each file was written
	 * just before it was published, so its mtime is its order. */
	if (x->mtime != y->mtime)
		return x->mtime > y->mtime ? -1 : 1;
	if (x->kn.seq != y->kn.seq)
		return x->kn.seq > y->kn.seq ? -1 : 1;
	if (x->kn.pid != y->kn.pid)
		return x->kn.pid > y->kn.pid ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

size_t keep_choose(const struct keep_file *files, size_t n, const char *newest,
		   const struct keep_bounds *b, unsigned char *remove)
{
	struct entry *e = n ? calloc(n, sizeof(*e)) : NULL;
	size_t m = 0, removed = 0;
	for (size_t i = 0; i < n; i++)
		remove[i] = 0;
	if (!e) /* nothing to sort, or no memory: nothing removed */
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (keep_name_parse(files[i].name, &e[m].kn))
			continue;
		e[m].i = i;
		e[m].mtime = files[i].mtime_ns;
		e[m].newest = newest && !strcmp(files[i].name, newest);
		m++;
	}
	qsort(e, m, sizeof(*e), by_age);
	uint64_t count = 0, bytes = 0;
	int over = 0;
	for (size_t k = 0; k < m; k++) {
		const struct keep_file *f = &files[e[k].i];
		count++;
		/* Compared before adding: no sum of sizes can wrap into room. */
		over |= (b->files && count > b->files) ||
			(b->bytes && (bytes > b->bytes || f->bytes > b->bytes - bytes));
		bytes = f->bytes > UINT64_MAX - bytes ? UINT64_MAX : bytes + f->bytes;
		if (over && !e[k].newest) {
			remove[e[k].i] = 1;
			removed++;
		}
	}
	free(e);
	return removed;
}
