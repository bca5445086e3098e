/* SPDX-License-Identifier: BSD-2-Clause */
/* The live view of a run: see cli_progress.h. The terminal line is drawn
 * on stderr (stdout may be the report, piped on), each redraw "\r" + text
 * + "\033[K" (erase to the end of the line, ECMA-48 EL), so a shorter line
 * leaves nothing of a longer one; a line that must stay (a dump of a
 * series) first clears the live one. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli_progress.h"
#include "core_json.h"
#include "core_text.h"

void cli_progress_init(struct cli_progress *p, const struct options *o)
{
	/* JSON lines on the same terminal would be written into the middle
	 * of the live line: there they are the progress. */
	p->tty = !o->quiet && isatty(STDERR_FILENO) && !(o->json && isatty(STDOUT_FILENO));
	p->json = o->json;
	p->verbose = o->verbose;
	p->drawn = 0;
	p->said_s = -1;
}

static void clear(struct cli_progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = 0;
}

/* The live line; its text names paths the operator or the target chose:
 * no control byte of them reaches the terminal. */
static void draw(struct cli_progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void draw(struct cli_progress *p, const char *fmt, ...)
{
	char line[1024], safe[sizeof(line) * 4];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	core_text_escape(line, safe, sizeof(safe));
	fprintf(stderr, "\r%s\033[K", safe);
	fflush(stderr);
	p->drawn = 1;
}

static void json_event_head(const char *name, pid_t pid)
{
	fprintf(stdout, "{\"event\":\"%s\"", name);
	if (pid)
		fprintf(stdout, ",\"pid\":%d", (int)pid);
}

static void json_event_end(void)
{
	fputs("}\n", stdout);
	fflush(stdout); /* a script follows it as it happens */
}

void cli_progress_json_paths(FILE *out, char *const *paths, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		core_json_put_string(out, paths[i]);
	}
	fputc(']', out);
}

static void on_wait(struct cli_progress *p, const struct cli_event *e)
{
	int64_t s = (e->remaining_us + 999999) / 1000000;
	if (s == p->said_s)
		return;
	p->said_s = s;
	if (p->tty)
		draw(p, "jeattach: %" PRId64 " s left; then %s", s, e->then);
	if (p->json) {
		json_event_head("wait", 0);
		fprintf(stdout, ",\"remaining_ms\":%" PRId64 ",\"total_ms\":%" PRId64 ",\"then\":",
			e->remaining_us / 1000, e->total_us / 1000);
		core_json_put_string(stdout, e->then);
		json_event_end();
	}
}

static void on_wait_end(struct cli_progress *p, const struct cli_event *e)
{
	p->said_s = -1;
	clear(p);
	if (p->json) {
		json_event_head("wait_end", 0);
		fprintf(stdout, ",\"waited_ms\":%" PRId64 ",\"interrupted\":%s", e->elapsed_us / 1000,
			e->interrupted ? "true" : "false");
		json_event_end();
	}
}

/* A dump of a timed run landed: a line that stays, and the JSON event. */
static void on_dump(struct cli_progress *p, const struct cli_event *e)
{
	const struct rctl_value *file = act_field_find(e->r, "file"),
				*bytes = act_field_find(e->r, "bytes"),
				*samples = act_field_find(e->r, "samples"),
				*on = act_field_find(e->r, "prof_active");
	char n[48] = "";
	if (e->count > 1)
		snprintf(n, sizeof(n), " %u of %ld", e->seq + 1, e->count);
	else if (!e->count)
		snprintf(n, sizeof(n), " %u", e->seq + 1);
	const struct act_dump_out *d = &e->r->out.dump;
	if (p->tty) {
		clear(p);
		draw(p, "jeattach: %d: dump%s written: %s, %llu bytes, %llu samples%s", (int)e->pid, n,
		     file ? file->s : "?", bytes ? (unsigned long long)bytes->u : 0ULL,
		     samples ? (unsigned long long)samples->u : 0ULL,
		     on && !on->u ? " (profiling is off)" : "");
		fputc('\n', stderr);
		p->drawn = 0;
		if (d->nremoved) { /* the bound's work, said once per dump */
			draw(p, "jeattach: %d: --keep removed %zu older file%s, the oldest %s",
			     (int)e->pid, d->nremoved, d->nremoved == 1 ? "" : "s", d->removed[0]);
			fputc('\n', stderr);
			p->drawn = 0;
		}
	}
	if (p->json) {
		json_event_head("dump", e->pid);
		fputs(",\"file\":", stdout);
		core_json_put_string(stdout, file ? file->s : "");
		fprintf(stdout, ",\"bytes\":%llu,\"samples\":%llu,\"prof_active\":%s,\"seq\":%u",
			bytes ? (unsigned long long)bytes->u : 0ULL,
			samples ? (unsigned long long)samples->u : 0ULL,
			on && !on->u ? "false" : "true", e->seq);
		if (act_field_find(e->r, "removed")) { /* --dump DIR/ with a bound */
			fputs(",\"removed_files\":", stdout);
			cli_progress_json_paths(stdout, d->removed, d->nremoved);
		}
		json_event_end();
	}
}

/* prof.dump has run for a second or more (once a second). */
static void on_dump_running(struct cli_progress *p, const struct cli_event *e)
{
	long long s = (long long)(e->elapsed_us / 1000000);
	double mb = (double)e->bytes / 1e6;
	if (p->tty)
		draw(p, "jeattach: %d: dump running for %lld s, %.1f MB written", (int)e->pid, s, mb);
	else if (p->verbose) /* a log: one line each time */
		fprintf(stderr, "jeattach: %d: dump running for %lld s, %.1f MB written\n",
			(int)e->pid, s, mb);
	if (p->json) {
		json_event_head("dump_running", e->pid);
		fprintf(stdout, ",\"elapsed_ms\":%" PRId64 ",\"bytes\":%llu", e->elapsed_us / 1000,
			(unsigned long long)e->bytes);
		json_event_end();
	}
}

/* Another long call (--stats=full's malloc_stats_print): its seconds. */
static void on_running(struct cli_progress *p, const struct cli_event *e)
{
	long long s = (long long)(e->elapsed_us / 1000000);
	if (p->tty)
		draw(p, "jeattach: %d: %s running for %lld s", (int)e->pid, e->r->action, s);
	else if (p->verbose)
		fprintf(stderr, "jeattach: %d: %s running for %lld s\n", (int)e->pid, e->r->action, s);
	if (p->json) {
		json_event_head("running", e->pid);
		fprintf(stdout, ",\"action\":\"%s\",\"elapsed_ms\":%" PRId64, e->r->action,
			e->elapsed_us / 1000);
		json_event_end();
	}
}

/* The report says a warning in text; JSON follows it as it happens. */
static void on_warning(struct cli_progress *p, const struct cli_event *e)
{
	if (!p->json)
		return;
	json_event_head("warning", e->pid);
	fputs(",\"message\":", stdout);
	core_json_put_string(stdout, e->r->warning);
	json_event_end();
}

static void on_done(struct cli_progress *p, const struct cli_event *e)
{
	(void)e;
	clear(p);
}

void cli_progress_event(void *arg, const struct cli_event *e)
{
	static void (*const handler[])(struct cli_progress *, const struct cli_event *) = {
		[CLI_EV_WAIT] = on_wait,		 [CLI_EV_WAIT_END] = on_wait_end,
		[CLI_EV_DUMP] = on_dump,		 [CLI_EV_DUMP_RUNNING] = on_dump_running,
		[CLI_EV_RUNNING] = on_running, [CLI_EV_WARNING] = on_warning,
		[CLI_EV_DONE] = on_done,
	};
	handler[e->kind](arg, e);
}
