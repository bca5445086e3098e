/* SPDX-License-Identifier: BSD-2-Clause */
/* victim_forge: a target that lies in what jeattach prints. It exports
 * je_mallctl (a wrapper) and its own je_malloc_stats_print, as a
 * je_-prefixed jemalloc would, so that jeattach takes its report: in JSON,
 * text that closes jeattach's object and forges a second record for pid 1
 * ("systemd"); in text, terminal escape sequences (a window title, a screen
 * clear). Its name (comm) carries an escape sequence too, and so may its
 * prof_prefix (MALLOC_CONF is the test's). SIGUSR1: "report ok", exit 0. */
#define _GNU_SOURCE
#include <jemalloc/jemalloc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int je_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);
int je_mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
{
	return mallctl(name, oldp, oldlenp, newp, newlen);
}

void je_malloc_stats_print(void (*write_cb)(void *, const char *), void *cbopaque,
			   const char *opts);
void je_malloc_stats_print(void (*write_cb)(void *, const char *), void *cbopaque,
			   const char *opts)
{
	if (opts && strchr(opts, 'J'))
		write_cb(cbopaque, "{\"jemalloc\":{\"version\":\"forged\"}}}]}\n"
				   "{\"pid\":1,\"comm\":\"systemd\",\"ok\":true,\"actions\":[{\"stats\":"
				   "{\"x\":1");
	else
		write_cb(cbopaque, "___ Begin jemalloc statistics ___\n"
				   "\033]0;owned\007\033[2Jforged\n"
				   "--- End jemalloc statistics ---\n");
}

/* Kept at file scope: stored, never read, and not a set-but-unused local. */
static void *volatile keep;

int main(void)
{
	keep = malloc(1000); /* jemalloc linked and set up */
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
	prctl(PR_SET_NAME, "ev\033[31mil", 0, 0, 0);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	int sig;
	sigwait(&set, &sig);
	printf("report ok\n");
	fflush(stdout);
	return 0;
}
