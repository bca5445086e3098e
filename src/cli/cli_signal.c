/* SPDX-License-Identifier: BSD-2-Clause */
/* The signals the user stops jeattach with (SIGINT, SIGTERM, SIGHUP) stay
 * blocked for the whole run (main.c), so that no restore is ever skipped;
 * the places that may stop early ask here whether one is pending. */
#include "config.h"

#include <signal.h>
#include <stddef.h>
#include "cli_signal.h"

int cli_pending_signal(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t p;
	sigpending(&p);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigismember(&p, sigs[i]))
			return sigs[i];
	return 0;
}
