/* SPDX-License-Identifier: BSD-2-Clause */
/* The command line: parsed and validated before any target is touched
 * (plan.c then turns it into steps and segments). One table describes
 * every option; the getopt_long spec, --help and --list-options (what bash
 * completion offers; both in options_help.c) are drawn from it, so they
 * cannot disagree. What an option does is the business of its row's
 * handler, one per group. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli_find.h"
#include "core_suggest.h"
#include "options.h"

enum {
	O_STATUS = 256, O_ACTIVATE, O_DEACTIVATE, O_DUMP, O_GET, O_SET, O_PREFIX, O_TIMEOUT,
	O_JSON, O_VERSION, O_TID, O_STATS, O_RESET, O_GDUMP, O_TAI, O_PURGE, O_DECAY, O_FOR,
	O_BASELINE, O_EVERY, O_COUNT, O_ALL, O_SYMBOLIZE, O_LIST_OPTIONS, O_LIST_CONTROLS, O_MAX_DUMP,
	O_NAME_THREADS, O_NO_REARM, O_DISCARD_SAMPLES,
	O_FORCE, O_KEEP, O_KEEP_BYTES, O_FRAG, O_FRAG_OUT, O_FRAG_PROFILE, O_RECENT, O_RECENT_OUT,
	O_SAMPLE, O_SAMPLE_RATE,
	O_TOP = 512, O_PROMETHEUS, O_INTERVAL, /* the live view (cli_top.c) */
};

/* What the handlers need besides the options they fill. */
struct options_parse_state {
	int argc;
	char **argv;
	char *err;
	size_t errlen;
};

/* A handler's answer that ends the parse, successfully, at once. */
#define DONE 1

static int take_target(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_action(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_dump(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_timing(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_attach(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_output(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_info(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_rearm(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_top(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_frag(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_recent(struct options *o, int id, const char *arg, struct options_parse_state *ps);
static int take_sample(struct options *o, int id, const char *arg, struct options_parse_state *ps);

#define ACTIONS OPTIONS_SEC_ACTIONS
#define OVER_TIME OPTIONS_SEC_OVER_TIME
#define OPTIONS OPTIONS_SEC_OPTIONS

/* In --help's order. */
static const struct options_row rows[] = {
	{ .name = "status", .id = O_STATUS, .section = ACTIONS, .take = take_action,
	  .help = "jemalloc version, location, profiling settings" },
	{ .name = "activate", .id = O_ACTIVATE, .section = ACTIONS, .take = take_action,
	  .help = "start sampling (prof.active=true; on jemalloc 5.2\n"
		  "also re-arms each thread, see jeattach(1))" },
	{ .name = "no-rearm", .id = O_NO_REARM, .section = ACTIONS, .take = take_rearm,
	  .help = "with --activate, --for on jemalloc 5.2: set prof.active\n"
		  "only; threads that already allocated do not sample" },
	{ .name = "discard-samples", .id = O_DISCARD_SAMPLES, .section = ACTIONS,
	  .take = take_rearm,
	  .help = "with --activate, --for on jemalloc 5.2: re-arm the\n"
		  "threads even though prof.reset drops the samples held" },
	{ .name = "name-threads", .id = O_NAME_THREADS, .section = ACTIONS, .take = take_action,
	  .help = "name each thread's profile data comm/TID\n"
		  "(thread.prof.name; borrows each thread once)" },
	{ .name = "deactivate", .id = O_DEACTIVATE, .section = ACTIONS, .take = take_action,
	  .help = "stop sampling (prof.active=false)" },
	{ .name = "dump", .id = O_DUMP, .section = ACTIONS, .take = take_dump,
	  .arg = OPTIONS_ARG_OPTIONAL_NEXT, .metavar = "FILE", .value = OPTIONS_VALUE_PROFILE,
	  .help = "write a heap profile to FILE (default: jemalloc's\n"
		  "<prefix>.<pid>.<seq>.m<seq>.heap in this directory);\n"
		  "FILE may use %n (sequence), %p (pid),\n"
		  "%t (UTC time, as 20261127T031500Z); FILE a directory\n"
		  "(DIR/): files named TIME.COMM.PID.SEQ.heap there" },
	{ .name = "keep", .id = O_KEEP, .section = ACTIONS, .take = take_dump,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "N",
	  .help = "with --dump DIR/: after each dump, remove the oldest\n"
		  "of jeattach's files there beyond N (all targets)" },
	{ .name = "keep-bytes", .id = O_KEEP_BYTES, .section = ACTIONS, .take = take_dump,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "SIZE",
	  .help = "the same, beyond SIZE bytes (K, M, G, T suffixes)" },
	{ .name = "symbolize", .id = O_SYMBOLIZE, .section = ACTIONS, .take = take_output,
	  .help = "with --dump: write jeprof's symbolized form, named\n"
		  "from the target's own binaries (readable anywhere)" },
	{ .name = "max-dump", .id = O_MAX_DUMP, .section = ACTIONS, .take = take_dump,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "SIZE",
	  .help = "with --dump: refuse a profile larger than SIZE\n"
		  "(default 4G; K, M, G, T suffixes)" },
	{ .name = "force", .id = O_FORCE, .section = ACTIONS, .take = take_output,
	  .help = "with --dump, --frag-out: replace an existing file\n"
		  "(without it, an existing file is an error)" },
	{ .name = "stats", .id = O_STATS, .section = ACTIONS, .take = take_action,
	  .arg = OPTIONS_ARG_OPTIONAL, .words = "full", .value = OPTIONS_VALUE_WORDS,
	  .help = "allocator statistics; =full: jemalloc's own report" },
	{ .name = "frag", .id = O_FRAG, .section = ACTIONS, .take = take_action,
	  .help = "where the gap between allocated and resident memory\n"
		  "comes from: categories in bytes, the worst size\n"
		  "classes, what would help" },
	{ .name = "frag-out", .id = O_FRAG_OUT, .section = ACTIONS, .take = take_frag,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "FILE",
	  .help = "with --frag: also write the report to FILE.json or an\n"
		  "SVG bar chart to FILE.svg (%p: the pid; --force)" },
	{ .name = "frag-profile", .id = O_FRAG_PROFILE, .section = ACTIONS, .take = take_frag,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "HEAP", .value = OPTIONS_VALUE_PROFILE,
	  .help = "with --frag: name the allocation sites that fill the\n"
		  "worst classes, from this heap profile of the target" },
	{ .name = "reset", .id = O_RESET, .section = ACTIONS, .take = take_action,
	  .arg = OPTIONS_ARG_OPTIONAL, .metavar = "LG_SAMPLE",
	  .help = "drop all samples (prof.reset), optionally a new rate" },
	{ .name = "gdump", .id = O_GDUMP, .section = ACTIONS, .take = take_action,
	  .arg = OPTIONS_ARG_REQUIRED, .words = "on off", .value = OPTIONS_VALUE_WORDS,
	  .help = "dump at each new peak of mapped memory (prof.gdump);\n"
		  "on needs a chosen prefix (--set prof.prefix=P)" },
	{ .name = "thread-active-init", .id = O_TAI, .section = ACTIONS, .take = take_action,
	  .arg = OPTIONS_ARG_REQUIRED, .words = "on off", .value = OPTIONS_VALUE_WORDS,
	  .help = "whether new threads sample" },
	{ .name = "purge", .id = O_PURGE, .section = ACTIONS, .take = take_action,
	  .help = "return unused dirty pages of all arenas to the system" },
	{ .name = "decay", .id = O_DECAY, .section = ACTIONS, .take = take_action,
	  .line = OPTIONS_LINE_OR },
	{ .name = "get", .id = O_GET, .section = ACTIONS, .take = take_action,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "NAME", .value = OPTIONS_VALUE_CONTROL,
	  .help = "read a mallctl (see jeattach(1) for the known names)" },
	{ .name = "set", .id = O_SET, .section = ACTIONS, .take = take_action,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "NAME=VALUE", .value = OPTIONS_VALUE_CONTROL,
	  .help = "write a mallctl" },

	{ .name = "for", .id = O_FOR, .section = OVER_TIME, .take = take_timing,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "DURATION",
	  .help = "activate, wait, dump (to --dump FILE), restore" },
	{ .name = "baseline", .id = O_BASELINE, .section = OVER_TIME, .take = take_timing,
	  .help = "with --for: also dump before, to FILE.base" },
	{ .name = "every", .id = O_EVERY, .section = OVER_TIME, .take = take_timing,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "INTERVAL",
	  .help = "dumps INTERVAL apart (--dump DIR/, or a PATTERN\n"
		  "with %n): N, or until stopped without --count\n"
		  "DURATION, INTERVAL: 500ms, 30s, 5m, 1h" },
	{ .name = "count", .id = O_COUNT, .section = OVER_TIME, .take = take_timing,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "N", .line = OPTIONS_LINE_WITH },
	{ .name = "recent", .id = O_RECENT, .section = OVER_TIME, .take = take_recent,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "N",
	  .help = "keep jemalloc's record of the last N sampled\n"
		  "allocations and their frees for --for DURATION\n"
		  "(default 10s; 5.3+), then write it (JSON)" },
	{ .name = "recent-out", .id = O_RECENT_OUT, .section = OVER_TIME, .take = take_recent,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "FILE", .line = OPTIONS_LINE_WITH },
	{ .name = "sample", .id = O_SAMPLE, .section = OVER_TIME, .take = take_sample,
	  .help = "a heap profile of a process started without\n"
		  "prof:true (jemalloc 5.2-5.3): a sampler put in for\n"
		  "--for D, or --every I --count N; with --dump FILE;\n"
		  "BYTES: mean between samples (524288)" },
	{ .name = "sample-rate", .id = O_SAMPLE_RATE, .section = OVER_TIME, .take = take_sample,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "BYTES", .line = OPTIONS_LINE_WITH },
	{ .name = "top", .id = O_TOP, .section = OVER_TIME, .take = take_top,
	  .help = "a live view of one process's allocator: totals, arenas,\n"
		  "threads (keys q s p); one JSON line a refresh when\n"
		  "stdout is no terminal or with --json" },
	{ .name = "prometheus", .id = O_PROMETHEUS, .section = OVER_TIME, .take = take_top,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "FILE", .value = OPTIONS_VALUE_PROM,
	  .help = "the same figures for node_exporter's textfile\n"
		  "collector (FILE ends in .prom), each refresh;\n"
		  "once without --top or --interval; without --top,\n"
		  "of every process given or named (--all), followed\n"
		  "as they start and exit" },
	{ .name = "interval", .id = O_INTERVAL, .section = OVER_TIME, .take = take_top,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "DURATION",
	  .help = "--top's and --prometheus' refresh (default 1s);\n"
		  "--count N stops after N refreshes" },

	{ .name = "pid", .letter = 'p', .id = 'p', .section = OPTIONS, .take = take_target,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "PID[,PID]", .value = OPTIONS_VALUE_PID,
	  .help = "target process(es), each handled on its own" },
	{ .name = "all", .id = O_ALL, .section = OPTIONS, .take = take_target,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "NAME[,NAME]", .value = OPTIONS_VALUE_PROCESS,
	  .help = "every process whose name or executable is NAME\n"
		  "(NAME,NAME...: any of them)" },
	{ .name = "prefix", .id = O_PREFIX, .section = OPTIONS, .take = take_attach,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "P",
	  .help = "jemalloc's symbol prefix (default: try '', je_, _rjem_)" },
	{ .name = "tid", .id = O_TID, .section = OPTIONS, .take = take_attach,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "TID",
	  .help = "borrow this thread of the target (default: any\n"
		  "thread at a safe point)" },
	{ .name = "timeout", .id = O_TIMEOUT, .section = OPTIONS, .take = take_attach,
	  .arg = OPTIONS_ARG_REQUIRED, .metavar = "SECONDS",
	  .help = "to find a thread to hold (default 5); a started call\n"
		  "is never cut off" },
	{ .name = "json", .id = O_JSON, .section = OPTIONS, .take = take_output,
	  .help = "one JSON object per target, on one line" },
	{ .name = "verbose", .letter = 'v', .id = 'v', .section = OPTIONS, .take = take_output,
	  .help = "narrate the phases on stderr" },
	{ .name = "quiet", .letter = 'q', .id = 'q', .section = OPTIONS, .take = take_output,
	  .help = "print only errors" },
	{ .name = "help", .letter = 'h', .id = 'h', .section = OPTIONS, .take = take_info,
	  .help = "this text" },
	{ .name = "version", .id = O_VERSION, .section = OPTIONS, .take = take_info,
	  .help = "version" },

	/* For the bash completion script, which asks the jeattach it
	 * completes for (completions/jeattach). */
	{ .name = "list-options", .id = O_LIST_OPTIONS, .section = OPTIONS_SEC_HIDDEN,
	  .take = take_info },
	/* For the completions' --get and --set values: the names of the
	 * control table (rctl_types.c), so no script repeats them. */
	{ .name = "list-controls", .id = O_LIST_CONTROLS, .section = OPTIONS_SEC_HIDDEN,
	  .take = take_info },
};

#undef ACTIONS
#undef OVER_TIME
#undef OPTIONS

#define NROWS (sizeof(rows) / sizeof(rows[0]))

const struct options_row *options_table(size_t *nrows)
{
	*nrows = NROWS;
	return rows;
}

/* ---------------------------------------------------------------- parsing */

static int say(struct options_parse_state *ps, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int say(struct options_parse_state *ps, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err, ps->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

int64_t options_duration_us(const char *text)
{
	static const struct {
		const char *suffix;
		double us;
	} units[] = { { "ms", 1e3 }, { "s", 1e6 }, { "m", 60e6 }, { "h", 3600e6 }, { "", 1e6 } };
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno || end == text || !(v >= 0) || *text == '-' || *text == '+')
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].suffix))
			continue;
		double us = v * units[i].us;
		return us <= 7 * 86400e6 ? (int64_t)us : -1; /* at most a week */
	}
	return -1;
}

static int add_action(struct options *o, enum act_kind kind, const char *arg, char *err,
		      size_t errlen)
{
	if (o->nactions >= OPT_MAX_ACTIONS) {
		snprintf(err, errlen, "too many actions (at most %d)", OPT_MAX_ACTIONS);
		return -1;
	}
	struct act *a = &o->actions[o->nactions++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->arg = arg;
	return 0;
}

static int parse_pids(struct options *o, const char *arg, char *err, size_t errlen)
{
	const char *p = arg;
	while (*p) {
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || end == p || v <= 0 || v > 0x7fffffff || (*end && *end != ',')) {
			snprintf(err, errlen, "bad pid list '%s': expected PID[,PID...]", arg);
			return -1;
		}
		if (o->npids >= OPT_MAX_PIDS) {
			snprintf(err, errlen, "too many pids (at most %d)", OPT_MAX_PIDS);
			return -1;
		}
		o->pids[o->npids++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}


static int check_get(const char *name, char *err, size_t errlen)
{
	enum rctl_type type;
	enum rctl_access access;
	if (rctl_lookup(name, &type, &access)) {
		snprintf(err, errlen,
			 "--get %s: unknown control; jeattach(1) lists the controls whose type it "
			 "knows",
			 name);
		return -1;
	}
	if (!(access & RCTL_R)) {
		snprintf(err, errlen, "--get %s: this control can only be written", name);
		return -1;
	}
	if (access & RCTL_EFFECT) {
		snprintf(err, errlen,
			 "--get %s: reading it changes the process (jemalloc acts on every "
			 "read of it), so jeattach does not; it reads only what has no effect",
			 name);
		return -1;
	}
	return 0;
}


static int check_set(const char *arg, char *err, size_t errlen)
{
	const char *eq = strchr(arg, '=');
	char name[256];
	enum rctl_type type;
	enum rctl_access access;
	struct rctl_value v;
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(name)) {
		snprintf(err, errlen, "--set %s: expected NAME=VALUE", arg);
		return -1;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(eq - arg), arg);
	if (rctl_lookup(name, &type, &access)) {
		snprintf(err, errlen,
			 "--set %s: unknown control; jeattach(1) lists the controls whose type it "
			 "knows",
			 name);
		return -1;
	}
	if (!(access & RCTL_W)) {
		snprintf(err, errlen, "--set %s: this control is read-only", name);
		return -1;
	}
	if (!strcmp(name, "prof.dump")) {
		snprintf(err, errlen, "--set prof.dump: use --dump FILE, which writes where you ask");
		return -1;
	}
	if (rctl_parse(type, eq + 1, &v)) {
		/* the accepted values, so the fix is in the message itself */
		char accepted[128];
		rctl_accepted(type, accepted, sizeof(accepted));
		snprintf(err, errlen, "--set %s: '%s' is not a valid %s; accepted: %s", name,
			 eq + 1, rctl_type_name(type), accepted);
		return -1;
	}
	return 0;
}


static int check_onoff(const char *opt, const char *arg, char *err, size_t errlen)
{
	struct rctl_value v;
	if (rctl_parse(RCTL_BOOL, arg, &v)) {
		snprintf(err, errlen, "--%s=%s: expected on or off", opt, arg);
		return -1;
	}
	return 0;
}

/* A dump file pattern: only known % escapes. */
static int check_pattern(const char *pattern, char *err, size_t errlen)
{
	char out[4096];
	if (act_expand_pattern(pattern, 1, 0, out, sizeof(out))) {
		snprintf(err, errlen, "--dump %s: unknown %% escape (known: %%n %%p %%t %%%%)",
			 pattern);
		return -1;
	}
	return 0;
}

static int take_target(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	if (id == 'p')
		return parse_pids(o, arg, ps->err, ps->errlen);
	o->all_name = arg; /* --all */
	return cli_find_check(arg, ps->err, ps->errlen);
}

static int take_action(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	char *err = ps->err;
	size_t len = ps->errlen;
	struct rctl_value v;
	switch (id) {
	case O_STATUS:
		return add_action(o, ACT_STATUS, NULL, err, len);
	case O_ACTIVATE:
		return add_action(o, ACT_ACTIVATE, NULL, err, len);
	case O_DEACTIVATE:
		return add_action(o, ACT_DEACTIVATE, NULL, err, len);
	case O_GET:
		return check_get(arg, err, len) ? -1 : add_action(o, ACT_GET, arg, err, len);
	case O_SET:
		return check_set(arg, err, len) ? -1 : add_action(o, ACT_SET, arg, err, len);
	case O_STATS:
		if (arg && strcmp(arg, "full"))
			return say(ps, "--stats=%s: expected --stats or --stats=full", arg);
		return add_action(o, arg ? ACT_STATS_FULL : ACT_STATS, NULL, err, len);
	case O_RESET:
		if (arg && (rctl_parse(RCTL_SIZE, arg, &v) || v.u > 63))
			return say(ps, "--reset=%s: expected lg_sample, 0 to 63", arg);
		return add_action(o, ACT_RESET, arg, err, len);
	case O_GDUMP:
		if (check_onoff("gdump", arg, err, len))
			return -1;
		return add_action(o, ACT_GDUMP, arg, err, len);
	case O_TAI:
		if (check_onoff("thread-active-init", arg, err, len))
			return -1;
		return add_action(o, ACT_THREAD_ACTIVE_INIT, arg, err, len);
	case O_PURGE:
		return add_action(o, ACT_PURGE, NULL, err, len);
	case O_DECAY:
		return add_action(o, ACT_DECAY, NULL, err, len);
	case O_NAME_THREADS:
		return add_action(o, ACT_NAME_THREADS, NULL, err, len);
	case O_FRAG:
		return add_action(o, ACT_FRAG, NULL, err, len);
	}
	return say(ps, "option %d has no action", id); /* a row with the wrong handler */
}

uint64_t options_size(const char *text)
{
	static const char units[] = "KMGT";
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)*text))
		return 0;
	unsigned long long v = strtoull(text, &end, 10);
	const char *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
	if (errno || (*end && (!u || end[1])))
		return 0;
	for (int shift = u ? 10 * (int)(u - units + 1) : 0; shift > 0; shift -= 10) {
		if (v > (UINT64_MAX >> 10))
			return 0;
		v <<= 10;
	}
	return v;
}

/* --dump's argument names a directory: it ends in '/', or is one (as
 * itself: a link to a directory is a link, refused later as one). */
static int names_dir(const char *file)
{
	struct stat st;
	size_t n = strlen(file);
	return (n && file[n - 1] == '/') || (!lstat(file, &st) && S_ISDIR(st.st_mode));
}

/* --keep N, --keep-bytes SIZE: the bound on a directory of dumps. */
static int take_keep(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	char *end;
	if (id == O_KEEP_BYTES) {
		o->keep.bytes = options_size(arg);
		if (!o->keep.bytes || o->keep.bytes > OPT_MAX_KEEP_BYTES)
			return say(ps, "--keep-bytes '%s': expected a size from 1 to 1024T, such as "
				       "512M or 20G (K, M, G, T are powers of 1024)", arg);
		return 0;
	}
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (errno || end == arg || *end || v < 1 || v > OPT_MAX_KEEP)
		return say(ps, "--keep '%s': expected a number of files from 1 to %d", arg,
			   OPT_MAX_KEEP);
	o->keep.files = (uint64_t)v;
	return 0;
}

static int take_dump(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	if (id == O_KEEP || id == O_KEEP_BYTES)
		return take_keep(o, id, arg, ps);
	if (id == O_MAX_DUMP) {
		if (!(o->max_dump = options_size(arg)))
			return say(ps, "--max-dump '%s': expected a size such as 512M or 8G", arg);
		return 0;
	}
	/* --dump FILE as well as --dump=FILE: take the next word if it is
	 * not an option. */
	const char *file = arg;
	if (!file && optind < ps->argc && ps->argv[optind][0] != '-')
		file = ps->argv[optind++];
	if (file && !*file)
		return say(ps, "--dump: empty file name");
	if (file && names_dir(file)) {
		/* jeattach names the files itself: a '%' there would be a
		 * pattern that does nothing, or a directory per target that
		 * one bound could not cover. */
		if (strchr(file, '%'))
			return say(ps, "--dump %s: a directory takes no %% escapes: jeattach names "
				       "the files in it (TIME.COMM.PID.SEQ.heap)", file);
		if (o->keep.dir)
			return say(ps, "--dump %s: a directory of dumps is already given (%s); "
				       "give one", file, o->keep.dir);
		o->keep.dir = file;
		if (add_action(o, ACT_DUMP, NULL, ps->err, ps->errlen))
			return -1;
		o->actions[o->nactions - 1].keep = &o->keep; /* the dump's file: none, a directory */
		return 0;
	}
	if (file && check_pattern(file, ps->err, ps->errlen))
		return -1;
	return add_action(o, ACT_DUMP, file, ps->err, ps->errlen);
}

static int take_timing(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	char *end;
	switch (id) {
	case O_FOR:
	case O_EVERY: {
		int64_t us = options_duration_us(arg);
		*(id == O_FOR ? &o->for_us : &o->every_us) = us;
		if (us <= 0)
			return say(ps, "--%s %s: expected a duration such as 500ms, 30s, 5m or 1h",
				   id == O_FOR ? "for" : "every", arg);
		return 0;
	}
	case O_BASELINE:
		o->baseline = 1;
		return 0;
	case O_COUNT:
		errno = 0;
		o->count = strtol(arg, &end, 10);
		if (errno || *end || o->count < 1 || o->count > OPT_MAX_COUNT)
			return say(ps, "--count '%s': expected 1 to %d", arg, OPT_MAX_COUNT);
		return 0;
	}
	return say(ps, "option %d has no timing", id);
}

/* How to attach: which jemalloc, which thread, how long to try. */
static int take_attach(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	char *end;
	switch (id) {
	case O_PREFIX:
		o->prefix = arg;
		if (strlen(arg) > 40 || strchr(arg, '/'))
			return say(ps, "--prefix '%s': expected a symbol prefix like je_", arg);
		return 0;
	case O_TID: {
		errno = 0;
		long v = strtol(arg, &end, 10);
		o->tid = (pid_t)v;
		if (errno || *end || v <= 0 || v > 0x7fffffff)
			return say(ps, "--tid '%s': expected a thread id", arg);
		return 0;
	}
	case O_TIMEOUT:
		errno = 0;
		o->timeout_s = strtod(arg, &end);
		if (errno || *end || !(o->timeout_s > 0) || o->timeout_s > 86400)
			return say(ps,
				   "--timeout '%s': expected seconds, more than 0 and at most 86400",
				   arg);
		return 0;
	}
	return say(ps, "option %d is not about attaching", id);
}

/* --no-rearm, --discard-samples: what activation does on jemalloc 5.2
 * (act_rearm.c). */
static int take_rearm(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	(void)arg;
	enum act_rearm want = id == O_NO_REARM ? ACT_REARM_OFF : ACT_REARM_DISCARD;
	if (o->rearm != ACT_REARM_AUTO && o->rearm != want)
		return say(ps, "--no-rearm and --discard-samples do not go together: the first "
			       "skips the re-arm, the second lets it drop samples");
	o->rearm = want;
	return 0;
}

/* A file name ending in ext (".json"): its kind. */
static int ends_with(const char *s, const char *ext)
{
	size_t n = strlen(s), e = strlen(ext);
	return n > e && !strcmp(s + n - e, ext) && s[n - e - 1] != '/';
}

/* --frag-out FILE.json|FILE.svg, --frag-profile HEAP. */
static int take_frag(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	char out[4096];
	if (id == O_FRAG_PROFILE) {
		if (o->frag_profile)
			return say(ps, "--frag-profile is given twice: give one heap profile");
		if (!*arg)
			return say(ps, "--frag-profile: empty file name");
		o->frag_profile = arg;
		return 0;
	}
	if (!ends_with(arg, ".json") && !ends_with(arg, ".svg"))
		return say(ps, "--frag-out %s: the name says what to write: end it in .json (the "
			       "report) or .svg (a bar chart)", arg);
	if (act_expand_pattern(arg, 1, 0, out, sizeof(out)))
		return say(ps, "--frag-out %s: unknown %% escape (known: %%p %%t %%%%)", arg);
	for (int i = 0; i < o->nfrag_out; i++)
		if (ends_with(o->frag_out[i], ends_with(arg, ".svg") ? ".svg" : ".json"))
			return say(ps, "--frag-out %s: a %s file is already asked for (%s)", arg,
				   ends_with(arg, ".svg") ? ".svg" : ".json", o->frag_out[i]);
	o->frag_out[o->nfrag_out++] = arg; /* at most one of each kind: room for both */
	return 0;
}

/* --top, --prometheus, --interval: the live view (cli_top.c). */
static int take_top(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	size_t n = arg ? strlen(arg) : 0;
	switch (id) {
	case O_TOP:
		o->top = 1;
		return 0;
	case O_PROMETHEUS:
		/* node_exporter's textfile collector reads only *.prom files */
		if (n < 6 || strcmp(arg + n - 5, ".prom") || arg[n - 6] == '/')
			return say(ps, "--prometheus %s: node_exporter's textfile collector reads only "
				       "files named *.prom; give a name such as jemalloc.prom", arg);
		o->prometheus = arg;
		return 0;
	case O_INTERVAL:
		o->interval_us = options_duration_us(arg);
		if (o->interval_us < 100000)
			return say(ps, "--interval %s: expected a duration of at least 100ms (each "
				       "refresh holds a thread once), such as 1s or 5s", arg);
		return 0;
	}
	return say(ps, "option %d is not about the live view", id);
}

/* --recent N [--recent-out FILE]: the record of recent allocations
 * (act_recent.c). */
static int take_recent(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	char *end;
	if (id == O_RECENT_OUT) {
		o->recent_out = arg;
		return 0;
	}
	errno = 0;
	o->recent = strtol(arg, &end, 10);
	if (errno || *end || o->recent < 1 || o->recent > OPT_MAX_RECENT)
		return say(ps, "--recent '%s': expected 1 to %d (allocations kept)", arg,
			   OPT_MAX_RECENT);
	return 0;
}

/* --sample [--sample-rate BYTES]: the sampler (act_sample.c); the mean
 * bytes between samples, 512 KiB as jemalloc's lg_prof_sample:19. */
static int take_sample(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	char *end;
	if (id == O_SAMPLE) {
		o->sample = 1;
		return 0;
	}
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || *end || arg[0] == '-' || v < 1024 || v > (1ULL << 40))
		return say(ps, "--sample-rate '%s': expected 1024 to %llu (mean bytes between samples; "
			       "jemalloc's default is 524288)", arg, 1ULL << 40);
	o->sample_rate = (uint64_t)v;
	return 0;
}

/* --top and --prometheus watch one process and do nothing else. */
static int check_top(struct options *o, struct options_parse_state *ps)
{
	const char *what = o->top ? "--top" : "--prometheus";
	if (!o->top && !o->prometheus)
		return o->interval_us ? say(ps, "--interval goes with --top or --prometheus") : 0;
	if (o->nactions || o->for_us || o->every_us || o->recent)
		return say(ps, "%s is a view of its own: run %s separately", what,
			   o->for_us	 ? "--for"
			   : o->every_us ? "--every"
			   : o->recent	 ? "--recent"
					 : "other actions");
	/* --top is one process's screen; the exporter (cli_export.c) follows
	 * every target given, each hold bounded by --timeout, so their
	 * number is bounded too: a refresh must fit its interval. */
	if (o->top && (o->npids > 1 || o->all_name))
		return say(ps, "--top watches one process: give one pid (-p PID); --prometheus "
			       "alone follows several");
	if (o->tid && (o->npids > 1 || o->all_name))
		return say(ps, "--tid names a thread of one process: give one pid (-p PID) with it");
	if (o->npids > OPT_MAX_EXPORT)
		return say(ps, "--prometheus follows at most %d processes (%d given); run one "
			       "jeattach per group of them", OPT_MAX_EXPORT, o->npids);
	return 0;
}

/* --frag-out and --frag-profile go with --frag; several targets need
 * %p in --frag-out's name. */
static int check_frag(struct options *o, struct options_parse_state *ps)
{
	int frag = 0;
	for (int i = 0; i < o->nactions; i++)
		frag += o->actions[i].kind == ACT_FRAG;
	if (!frag && (o->nfrag_out || o->frag_profile))
		return say(ps, "--%s goes with --frag", o->nfrag_out ? "frag-out" : "frag-profile");
	if (frag > 1 && o->nfrag_out)
		return say(ps, "--frag-out with --frag given twice: each would replace the other's "
			       "file; give --frag once");
	for (int i = 0; i < o->nfrag_out; i++)
		if ((o->npids > 1 || o->all_name) && !strstr(o->frag_out[i], "%p"))
			return say(ps, "--frag-out %s with several targets would overwrite it; put "
				       "%%p (the pid) in the name", o->frag_out[i]);
	return 0;
}

/* What the output looks like: the report's form and a dump's. */
static int take_output(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	(void)arg;
	(void)ps;
	if (id == O_JSON)
		o->json = 1;
	else if (id == O_SYMBOLIZE)
		o->symbolize = 1;
	else if (id == O_FORCE)
		o->force = 1;
	else if (id == 'v')
		o->verbose++;
	else if (id == 'q')
		o->quiet = 1;
	return 0;
}

/* --help, --version, --list-options: nothing else is looked at. */
static int take_info(struct options *o, int id, const char *arg, struct options_parse_state *ps)
{
	(void)arg;
	(void)ps;
	if (id == 'h')
		o->help = 1;
	else if (id == O_VERSION)
		o->version = 1;
	else if (id == O_LIST_CONTROLS)
		o->list_controls = 1;
	else
		o->list_options = 1;
	return DONE;
}

/* getopt_long's spec, from the table: ":" (report a missing value as ':'),
 * then each letter with ':' for a required value, "::" for an optional. */
static void getopt_spec(struct option *longopts, char *shortopts)
{
	static const int has_arg[] = { no_argument, required_argument, optional_argument,
				       optional_argument };
	char *s = shortopts;
	*s++ = ':';
	for (size_t i = 0; i < NROWS; i++) {
		const struct options_row *r = &rows[i];
		longopts[i] = (struct option){ r->name, has_arg[r->arg], NULL, r->id };
		if (!rows[i].letter)
			continue;
		*s++ = rows[i].letter;
		if (rows[i].arg != OPTIONS_ARG_NONE)
			*s++ = ':';
		if (rows[i].arg == OPTIONS_ARG_OPTIONAL || rows[i].arg == OPTIONS_ARG_OPTIONAL_NEXT)
			*s++ = ':';
	}
	*s = 0;
	longopts[NROWS] = (struct option){ NULL, 0, NULL, 0 };
}

static const struct options_row *row_of(int id)
{
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].id == id)
			return &rows[i];
	return NULL;
}

/* The message for word, an option getopt_long refused: unknown, or an
 * abbreviation of several, with the names it may have meant (libcore's
 * did-you-mean, which jeheap's mistakes use too): "unknown option '--jsn'
 * (did you mean --json?); see jeattach --help". -1. */
static int options_unknown(const char *word, char *err, size_t errlen)
{
	const char *names[NROWS];
	char what[256];
	size_t n = 0;
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].section != OPTIONS_SEC_HIDDEN)
			names[n++] = rows[i].name;
	core_suggest_option(word, names, n, what, sizeof(what));
	snprintf(err, errlen, "%s; see jeattach --help", what);
	return -1;
}

/* What no single option can check: the words left, a target, something to do. */
static int check_whole(struct options *o, struct options_parse_state *ps)
{
	if (optind < ps->argc)
		return say(ps, "unexpected argument '%s'; see jeattach --help", ps->argv[optind]);
	if (!o->npids && !o->all_name)
		return say(ps, "no target: give -p PID or --all NAME");
	if (o->npids && o->all_name)
		return say(ps, "give -p PID or --all NAME, not both");
	if (check_top(o, ps))
		return -1;
	if (!o->nactions && !o->for_us && !o->recent && !o->top && !o->prometheus)
		return say(ps, "nothing to do: give an action (--status, --activate, --dump...)");
	int activates = o->for_us || o->recent;
	for (int i = 0; i < o->nactions; i++)
		activates |= o->actions[i].kind == ACT_ACTIVATE;
	if (o->rearm != ACT_REARM_AUTO && !activates)
		return say(ps, "--%s goes with --activate or --for",
			   o->rearm == ACT_REARM_OFF ? "no-rearm" : "discard-samples");
	if (check_frag(o, ps))
		return -1;
	if ((o->keep.files || o->keep.bytes) && !o->keep.dir)
		return say(ps, "--%s goes with --dump DIR/ (a directory of dumps, named by jeattach)",
			   o->keep.files ? "keep" : "keep-bytes");
	for (int i = 0; i < o->nactions; i++) {
		const char *f = o->actions[i].arg;
		if (o->actions[i].kind == ACT_DUMP && o->actions[i].keep && o->force)
			return say(ps, "--force with --dump %s: the files of a directory are new at "
				       "each dump and nothing is replaced; drop --force", o->keep.dir);
		if (o->actions[i].kind == ACT_DUMP && f && (o->npids > 1 || o->all_name) &&
		    !strstr(f, "%p"))
			return say(ps,
				   "--dump %s with several targets would overwrite it; put %%p "
				   "(the pid) in the name, or give no FILE (automatic names carry "
				   "the pid)",
				   f);
	}
	return 0;
}

void options_free(struct options *o)
{
	free(o->actions);
	o->actions = NULL;
}

int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
	struct options_parse_state ps = { argc, argv, err, errlen };
	struct option longopts[NROWS + 1];
	char shortopts[1 + 3 * NROWS + 1];
	memset(o, 0, sizeof(*o));
	o->timeout_s = 5;
	o->max_dump = OPT_DEFAULT_MAX_DUMP;
	o->actions = calloc(OPT_MAX_ACTIONS, sizeof(*o->actions));
	if (!o->actions)
		return say(&ps, "out of memory");
	getopt_spec(longopts, shortopts);
	/* 0, not 1: glibc's getopt also keeps a pointer into the last argv
	 * (inside a cluster of short options like -vq); only optind = 0
	 * resets it, or a second parse reads freed memory (found by
	 * tests/fuzz/fuzz_text.c under ASan). */
	optind = 0;
	opterr = 0;
	int c, r = 0;
	while (r == 0 && (c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		const struct options_row *row = row_of(c);
		if (row)
			r = row->take(o, c, optarg, &ps);
		else if (c == ':')
			r = say(&ps, "option %s needs a value", argv[optind - 1]);
		else /* unknown, or ambiguous: a did-you-mean from the table */
			r = options_unknown(argv[optind - 1], err, errlen);
	}
	if (r == DONE)
		return 0;
	return r ? r : check_whole(o, &ps);
}
