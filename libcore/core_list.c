/* SPDX-License-Identifier: BSD-2-Clause */
/* core_list: a list of words in a message (core_list.h). */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include "core_list.h"

void core_list_add(char *buf, size_t len, size_t i, size_t k, const char *last,
		   const char *word)
{
	size_t used = len ? strnlen(buf, len - 1) : 0;
	if (len)
		snprintf(buf + used, len - used, "%s%s", !i ? "" : i + 1 < k ? ", " : last, word);
}

void core_list_add_some(char *buf, size_t len, size_t i, size_t shown, size_t total,
			const char *word)
{
	core_list_add(buf, len, i, shown, total > shown ? ", " : " and ", word);
	size_t used = len ? strnlen(buf, len - 1) : 0;
	if (len && i + 1 == shown && total > shown)
		snprintf(buf + used, len - used, " and %zu more", total - shown);
}
