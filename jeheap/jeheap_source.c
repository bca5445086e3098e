/* SPDX-License-Identifier: BSD-2-Clause */
/* Source lines for jeprof --list. jeprof disassembles a whole function
 * (PrintSource's Disassemble and GetTopLevelLineNumbers) to find its first
 * line (its first instruction's) and its last (the largest line of any of
 * its instructions); jeheap has the lines of the profile's addresses only,
 * so it finds the definition and its closing brace in the source text. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "jeheap_source.h"

/* The path comes from the binary's DWARF: whatever is there now may be a
 * FIFO or a device, which would block or never end; only a regular file is
 * read, opened without waiting. */
static FILE *open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	struct stat st;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	FILE *f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

int source_read(struct source *src, const char *path)
{
	FILE *f = open_regular(path);
	char *buf = NULL;
	size_t cap = 0, lines_cap = 0;
	ssize_t len;
	memset(src, 0, sizeof(*src));
	if (!f)
		return -1;
	while ((len = getline(&buf, &cap, f)) >= 0) {
		while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
			buf[--len] = 0; /* jeprof: s/\r//g and chop */
		if (src->n + 2 > lines_cap) {
			char **nl = realloc(src->line, (lines_cap = lines_cap * 2 + 64) * sizeof(*nl));
			if (!nl)
				break;
			src->line = nl;
		}
		if (!(src->line[++src->n] = strdup(buf))) {
			src->n--;
			break;
		}
	}
	int bad = ferror(f) || !feof(f);
	free(buf);
	fclose(f);
	if (bad) {
		source_free(src);
		errno = errno ? errno : ENOMEM;
		return -1;
	}
	return 0;
}

void source_free(struct source *src)
{
	for (size_t i = 1; i <= src->n; i++)
		free(src->line[i]);
	free(src->line);
	memset(src, 0, sizeof(*src));
}

/* jeprof's Indentation: leading blanks of a line, -1 for a blank one. */
static long indentation(const char *s)
{
	size_t n = strspn(s, " \t");
	return s[n] ? (long)n : -1;
}

/* Does s name function (its last "::" part) as a definition does, "f("
 * on a line with no ';' (a call or a declaration has one)? */
static int defines(const char *s, const char *function)
{
	if (strchr(s, ';'))
		return 0;
	const char *colon = strrchr(function, ':');
	const char *name = colon ? colon + 1 : function;
	size_t n = strlen(name);
	for (const char *c = s; n && (c = strstr(c, name)); c += n) {
		const char *after = c + n + strspn(c + n, " \t");
		int starts = c == s || !(c[-1] == '_' || (c[-1] >= '0' && c[-1] <= '9') ||
					 ((c[-1] | 32) >= 'a' && (c[-1] | 32) <= 'z'));
		if (starts && *after == '(')
			return 1;
	}
	return 0;
}

size_t source_first_line(const struct source *src, const char *function, size_t from)
{
	if (from < 1 || from > src->n)
		return from;
	for (size_t l = from; l >= 1 && from - l < 500; l--) {
		if (!defines(src->line[l], function))
			continue;
		for (size_t b = l; b <= from; b++)
			if (strchr(src->line[b], '{'))
				return b;
		return from;
	}
	return from;
}

size_t source_last_line(const struct source *src, size_t first, size_t at_least)
{
	long ind = first >= 1 && first <= src->n ? indentation(src->line[first]) : -1;
	for (size_t l = first + 1; ind >= 0 && l <= src->n; l++) {
		const char *s = src->line[l];
		if (indentation(s) == ind && s[ind] == '}')
			return l > at_least ? l : at_least;
	}
	return at_least;
}
