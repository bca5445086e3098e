/* SPDX-License-Identifier: BSD-2-Clause */
/* core_list: several words in a one-line message ("a", "a or b", "a, b or
 * c"), so that a did-you-mean, a refused value's accepted ones and the
 * commands that take an option are all worded the same way. It writes;
 * the program prints. */
#ifndef CORE_LIST_H
#define CORE_LIST_H

#include <stddef.h>

/* Appends word, the i-th (from 0) of k, to the list in buf (len bytes;
 * truncated, still NUL-terminated): after ", ", or after last (" or ",
 * " and ") when it is the k-th. buf is "" before the first. */
void core_list_add(char *buf, size_t len, size_t i, size_t k, const char *last,
		   const char *word);
/* The same for a list cut short: word i of the first shown of total,
 * and after the last shown " and N more" when total is more ("a, b, c
 * and 4 more"). */
void core_list_add_some(char *buf, size_t len, size_t i, size_t shown, size_t total,
			const char *word);

#endif
