/* SPDX-License-Identifier: BSD-2-Clause */
/* A source file's lines and where a function's body lies in them, for
 * jeprof --list (jeheap_list.c). */
#ifndef JEHEAP_SOURCE_H
#define JEHEAP_SOURCE_H

#include <stddef.h>

struct source {
	char **line; /* line[1..n], without their newline */
	size_t n;
};

/* 0, or -1 with errno set. */
int source_read(struct source *src, const char *path);
void source_free(struct source *src);
/* jeprof's first line of function (the line of its first instruction): the
 * line opening the body of its definition at or above line `from`, else
 * from. */
size_t source_first_line(const struct source *src, const char *function, size_t from);
/* The line closing the body opened on line first, at least `at_least`. */
size_t source_last_line(const struct source *src, size_t first, size_t at_least);

#endif
