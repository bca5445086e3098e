/* SPDX-License-Identifier: BSD-2-Clause */
/* A did-you-mean: the optimal string alignment distance (Levenshtein's
 * insert, delete and change, plus a swap of two neighbours, the commonest
 * typo: "tpo"), over the few dozen names of a command line, so a table
 * of (n + 1) x (m + 1) small counts on the stack does. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "core_list.h"
#include "core_suggest.h"

/* Longer words are no typo of a name: nothing is suggested for them. */
#define LONGEST 64

static int same(char a, char b)
{
	return tolower((unsigned char)a) == tolower((unsigned char)b);
}

static size_t distance(const char *a, size_t n, const char *b, size_t m)
{
	unsigned char d[LONGEST + 1][LONGEST + 1];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned char)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned char)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			unsigned v = d[i - 1][j - 1] + !same(a[i - 1], b[j - 1]);
			if (d[i - 1][j] + 1u < v)
				v = d[i - 1][j] + 1u;
			if (d[i][j - 1] + 1u < v)
				v = d[i][j - 1] + 1u;
			if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) &&
			    d[i - 2][j - 2] + 1u < v)
				v = d[i - 2][j - 2] + 1u;
			d[i][j] = (unsigned char)v;
		}
	return d[n][m];
}

/* The largest distance still a typo of a word of len letters: none for
 * one or two letters (every short name would be near), one up to five
 * ("jsn": json), two beyond ("activte": activate). */
static size_t typo_limit(size_t len)
{
	return len <= 2 ? 0 : len <= 5 ? 1 : 2;
}

static int begins(const char *name, const char *word, size_t len)
{
	if (strlen(name) <= len)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!same(name[i], word[i]))
			return 0;
	return 1;
}

size_t core_suggest(const char *word, size_t len, const char *const *names, size_t n,
		    const char **out, size_t max, int *abbrev)
{
	size_t k = 0, best = typo_limit(len) + 1;
	*abbrev = 0;
	if (!len || len > LONGEST)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (begins(names[i], word, len) && k < max)
			out[k++] = names[i];
	if (k) {
		*abbrev = 1;
		return k;
	}
	for (size_t i = 0; i < n; i++) {
		size_t m = strlen(names[i]);
		size_t d = m > LONGEST ? LONGEST : distance(word, len, names[i], m);
		if (d < best) {
			best = d;
			k = 0;
		}
		if (d == best && k < max)
			out[k++] = names[i];
	}
	return k;
}

size_t core_suggest_text(const char *word, size_t len, const char *const *names, size_t n,
			 const char *dash, char *buf, size_t buflen)
{
	const char *near[CORE_SUGGEST_MAX];
	int abbrev;
	size_t k = core_suggest(word, len, names, n, near, CORE_SUGGEST_MAX, &abbrev);
	char dashed[64];
	if (!buflen)
		return k;
	snprintf(buf, buflen, "%s", k ? "did you mean " : "");
	for (size_t i = 0; i < k; i++) {
		snprintf(dashed, sizeof(dashed), "%s%s", dash, near[i]);
		core_list_add(buf, buflen, i, k, " or ", dashed);
	}
	size_t used = strlen(buf);
	if (k)
		snprintf(buf + used, buflen - used, "?");
	return k;
}

void core_suggest_option(const char *word, const char *const *names, size_t n, char *buf,
			 size_t buflen)
{
	const char *name = word + (word[0] == '-') + (word[0] == '-' && word[1] == '-');
	size_t len = strcspn(name, "=");
	const char *near[CORE_SUGGEST_MAX];
	char mean[256];
	int abbrev = 0;
	/* "-x": a letter of its own, no misspelt name */
	int letter = word[0] == '-' && word[1] != '-' && len == 1;
	size_t k = letter ? 0 : core_suggest(name, len, names, n, near, CORE_SUGGEST_MAX, &abbrev);
	*mean = 0;
	if (k)
		core_suggest_text(name, len, names, n, "--", mean, sizeof(mean));
	/* an abbreviation of one name is no mistake getopt_long makes */
	int ambiguous = abbrev && k > 1;
	snprintf(buf, buflen, "%s '%s'%s%s%s%s", ambiguous ? "option" : "unknown option", word,
		 ambiguous ? " is ambiguous" : "", k ? " (" : "", mean, k ? ")" : "");
}
