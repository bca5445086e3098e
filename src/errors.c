/* SPDX-License-Identifier: BSD-2-Clause */
/* The words and exit codes of errors.h's list. */
#include "config.h"

#include <string.h>
#include "errors.h"

static const struct {
	enum je_exit exit;
	const char *text;
} table[] = {
#define JE_ERR_ROW(name, exit, text) { exit, text },
	JE_ERRORS(JE_ERR_ROW)
#undef JE_ERR_ROW
};

const char *je_err_text(int code)
{
	if (code > JE_ERR_BASE && code < JE_ERR_END)
		return table[code - JE_ERR_BASE - 1].text;
	return strerror(code);
}

enum je_exit je_err_exit(int code)
{
	if (code > JE_ERR_BASE && code < JE_ERR_END)
		return table[code - JE_ERR_BASE - 1].exit;
	return JE_EXIT_INTERNAL;
}
