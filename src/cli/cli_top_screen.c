/* SPDX-License-Identifier: BSD-2-Clause */
/* --top's full screen, with termios and ANSI escapes (ECMA-48 and xterm's
 * alternate screen, which every terminal emulator, tmux and screen
 * understand). ncurses would add a library to a static jeattach and its
 * own signal handlers (it installs SIGINT/SIGTERM/SIGWINCH handlers in
 * initscr), while jeattach keeps those signals blocked and takes them
 * itself (main.c, cli_top.c): a handler jeattach does not control must
 * not run while a thread of the target is held.
 *
 * The terminal is put back by cli_top_screen_close, which cli_top.c calls
 * on every way out (q, a signal, the target's exit, an error). */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#include "cli_top.h"
#include "core_text.h"

static struct termios saved;
static int opened;

int cli_top_screen_open(void)
{
	struct termios raw;
	if (tcgetattr(STDIN_FILENO, &saved))
		return -1;
	raw = saved;
	/* Keys one at a time, not echoed. ISIG stays: Ctrl-C still sends
	 * SIGINT, which cli_top.c takes (blocked, read from a signalfd) and
	 * ends the view with the terminal restored. Ctrl-Z is disabled: a
	 * stopped jeattach would leave the terminal raw under the shell. */
	raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	raw.c_cc[VSUSP] = _POSIX_VDISABLE;
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw))
		return -1;
	opened = 1;
	fputs("\033[?1049h\033[?25l", stdout); /* alternate screen, no cursor */
	fflush(stdout);
	return 0;
}

void cli_top_screen_close(void)
{
	if (!opened)
		return;
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
	opened = 0;
}

/* The terminal's width, read at each draw: no line is longer, so none
 * wraps and pushes the screen down (an 80-column terminal wrapped each
 * thread row). The text is escaped (core_text_escape): one byte a column. */
static int cols = 80;

/* One line, cut to the width, the rest of the screen line erased;
 * reverse video for a table's header. */
static void row_at(int reverse, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void row_at(int reverse, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (cols > 0 && (size_t)cols < sizeof(line))
		line[cols] = 0;
	printf("%s%s\033[K%s\n", reverse ? "\033[7m" : "", line, reverse ? "\033[m" : "");
}
#define row(...) row_at(0, __VA_ARGS__)

static void rate(double r, char *buf, size_t len)
{
	char b[32];
	cli_top_bytes(r, b, sizeof(b));
	snprintf(buf, len, "%s%s/s", r > 0 ? "+" : "", b);
}

static void summary(const struct top_view *v)
{
	static const char *const labels[ACT_TOP_NSTATS] = { "allocated", "active", "resident",
							     "mapped", "retained", "metadata" };
	row("%-10s %12s %16s", "", "bytes", "change");
	for (int i = 0; i < ACT_TOP_NSTATS; i++) {
		char b[32], r[40];
		cli_top_bytes((double)v->st.v[i], b, sizeof(b));
		rate(v->rate[i], r, sizeof(r));
		row("%-10s %12s %16s", labels[i], b, v->dt > 0 ? r : "");
	}
	const uint64_t *s = v->st.v;
	row("active/allocated %.3f   resident/active %.3f   hold %.2f ms",
	       s[ACT_TOP_ALLOCATED] ? (double)s[ACT_TOP_ACTIVE] / (double)s[ACT_TOP_ALLOCATED] : 0,
	       s[ACT_TOP_ACTIVE] ? (double)s[ACT_TOP_RESIDENT] / (double)s[ACT_TOP_ACTIVE] : 0,
	       (double)v->hold_us / 1000);
}

static int arenas(const struct top_view *v, int rows)
{
	int shown = 0;
	row("%s", "");
	row_at(1, "%-6s %12s %16s", "ARENA", "active", "change");
	for (unsigned i = 0; i < v->st.narenas && shown < rows; i++) {
		if (!v->arena_ok[i] || !v->arena_active[i])
			continue;
		char b[32], r[40];
		cli_top_bytes((double)v->arena_active[i], b, sizeof(b));
		rate(v->arena_rate[i], r, sizeof(r));
		row("%-6u %12s %16s", i, b, v->dt > 0 ? r : "");
		shown++;
	}
	return shown + 2;
}

static void threads(const struct top_view *v, int rows)
{
	const struct top_threads *th = v->th;
	/* 75 columns: "1023.9 MiB" is the widest figure. */
	row("%s", "");
	row_at(1, "%-8s %-16s %12s %12s %11s %11s", "TID", "NAME", "ALLOC/s", "FREE/s", "ALLOCATED",
	       "FREED");
	if (v->st.counters.state < 0) { /* say once why no thread has figures */
		char why[200];
		core_text_escape(v->st.counters.why, why, sizeof(why));
		row("no per-thread figures: %.150s", why);
		rows--;
	}
	for (int i = 0; i < th->n && i < rows; i++) {
		const struct top_thread *x = &th->v[i];
		char name[80], a[32], f[32], ta[32], tf[32];
		core_text_escape(x->comm, name, sizeof(name));
		if (!x->valid) {
			row("%-8d %-16.16s %12s", (int)x->tid, name,
			    x->allocp ? "" : x->tries >= 3 ? "(not located)" : "(pending)");
			continue;
		}
		cli_top_bytes(x->alloc_rate, a, sizeof(a));
		cli_top_bytes(x->dealloc_rate, f, sizeof(f));
		cli_top_bytes((double)x->alloc, ta, sizeof(ta));
		cli_top_bytes((double)x->dealloc, tf, sizeof(tf));
		row("%-8d %-16.16s %12s %12s %11s %11s", (int)x->tid, name, a, f, ta, tf);
	}
}

void cli_top_screen_draw(const struct top_view *v, const char *note)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws);
	cols = ws.ws_col ? ws.ws_col : 80;
	char comm[80];
	core_text_escape(v->comm, comm, sizeof(comm));
	printf("\033[H");
	/* What changes first: a narrow terminal cuts the version. */
	row("jeattach --top  pid %d (%s)  #%u%s  every %.1f s  jemalloc %.20s", (int)v->pid, comm,
	    v->seq, v->paused ? "  PAUSED" : "", (double)v->interval_us / 1e6, v->st.version);
	row("q quit  s sort (%s)  p pause  threads %d, %d to locate", top_sort_names[v->sort],
	    v->th->n, v->th->pending);
	summary(v);
	int used = 3 + ACT_TOP_NSTATS + 1;
	int left = ws.ws_row - used - 4;
	int ar = arenas(v, left / 3 > 1 ? left / 3 : 1);
	threads(v, ws.ws_row - used - ar - 3);
	printf("\033[J%s", note ? note : "");
	fflush(stdout);
}
