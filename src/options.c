/* SPDX-License-Identifier: BSD-2-Clause */
/* The command line: parsed and validated before any target is touched
 * (plan.c then turns it into steps and segments). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

enum {
	O_STATUS = 256, O_ACTIVATE, O_DEACTIVATE, O_DUMP, O_GET, O_SET, O_PREFIX, O_TIMEOUT,
	O_JSON, O_VERSION, O_TID, O_STATS, O_RESET, O_GDUMP, O_TAI, O_PURGE, O_DECAY, O_FOR,
	O_BASELINE, O_EVERY, O_COUNT, O_ALL, O_SYMBOLIZE,
};

static const struct option longopts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "all", required_argument, NULL, O_ALL },
	{ "status", no_argument, NULL, O_STATUS },
	{ "activate", no_argument, NULL, O_ACTIVATE },
	{ "deactivate", no_argument, NULL, O_DEACTIVATE },
	{ "dump", optional_argument, NULL, O_DUMP },
	{ "get", required_argument, NULL, O_GET },
	{ "set", required_argument, NULL, O_SET },
	{ "stats", optional_argument, NULL, O_STATS },
	{ "reset", optional_argument, NULL, O_RESET },
	{ "gdump", required_argument, NULL, O_GDUMP },
	{ "thread-active-init", required_argument, NULL, O_TAI },
	{ "purge", no_argument, NULL, O_PURGE },
	{ "decay", no_argument, NULL, O_DECAY },
	{ "for", required_argument, NULL, O_FOR },
	{ "baseline", no_argument, NULL, O_BASELINE },
	{ "symbolize", no_argument, NULL, O_SYMBOLIZE },
	{ "every", required_argument, NULL, O_EVERY },
	{ "count", required_argument, NULL, O_COUNT },
	{ "prefix", required_argument, NULL, O_PREFIX },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "json", no_argument, NULL, O_JSON },
	{ "tid", required_argument, NULL, O_TID },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, O_VERSION },
	{ NULL, 0, NULL, 0 },
};

void options_usage(FILE *f)
{
	fputs("Usage: jeattach (-p PID[,PID...] | --all NAME) ACTION... [OPTION...]\n"
	      "Control jemalloc heap profiling in a running process, from outside.\n"
	      "\n"
	      "Actions (run in the order given, under one attach):\n"
	      "  --status              jemalloc version, location, profiling settings\n"
	      "  --activate            start sampling (prof.active=true)\n"
	      "  --deactivate          stop sampling (prof.active=false)\n"
	      "  --dump [FILE]         write a heap profile to FILE (default: jemalloc's\n"
	      "                        <prefix>.<pid>.<seq>.m<seq>.heap in this directory);\n"
	      "                        FILE may use %n (sequence), %p (pid), %t (time)\n"
	      "  --symbolize           with --dump: write jeprof's symbolized form, named\n"
	      "                        from the target's own binaries (readable anywhere)\n"
	      "  --stats[=full]        allocator statistics; =full: jemalloc's own report\n"
	      "  --reset[=LG_SAMPLE]   drop all samples (prof.reset), optionally a new rate\n"
	      "  --gdump=on|off        dump at each new peak of mapped memory (prof.gdump)\n"
	      "  --thread-active-init=on|off  whether new threads sample\n"
	      "  --purge, --decay      return unused dirty pages of all arenas to the system\n"
	      "  --get NAME            read a mallctl (see jeattach(1) for the known names)\n"
	      "  --set NAME=VALUE      write a mallctl\n"
	      "\n"
	      "Over time (the target is not held while jeattach waits):\n"
	      "  --for DURATION        activate, wait, dump (to --dump FILE), restore\n"
	      "  --baseline            with --for: also dump before, to FILE.base\n"
	      "  --every INTERVAL --count N   N dumps (--dump PATTERN with %n), INTERVAL apart\n"
	      "                        DURATION, INTERVAL: 500ms, 30s, 5m, 1h\n"
	      "\n"
	      "Options:\n"
	      "  -p, --pid PID[,PID]   target process(es), each handled on its own\n"
	      "      --all NAME        every process whose name or executable is NAME\n"
	      "      --prefix P        jemalloc's symbol prefix (default: try '', je_, _rjem_)\n"
	      "      --tid TID         borrow this thread of the target (default: any\n"
	      "                        thread at a safe point)\n"
	      "      --timeout SECONDS per target and hold (default 5)\n"
	      "      --json            one JSON object per target, on one line\n"
	      "  -v, --verbose         narrate the phases on stderr\n"
	      "  -q, --quiet           print only errors\n"
	      "  -h, --help            this text\n"
	      "      --version         version\n"
	      "\n"
	      "The target must have been started with MALLOC_CONF=prof:true,prof_active:false\n"
	      "for profiling (--stats and other controls work without it).\n"
	      "Exit codes: 0 ok, 1 internal, 2 usage, 3 no such process, 4 permission,\n"
	      "5 no jemalloc, 6 profiling not enabled, 7 mallctl refused, 8 output file,\n"
	      "9 timeout, 10 unsafe target state, 11 some targets failed. See jeattach(1).\n",
	      f);
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
		snprintf(err, errlen, "--set %s: '%s' is not a valid %s", name, eq + 1,
			 rctl_type_name(type));
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

void options_free(struct options *o)
{
	free(o->actions);
	o->actions = NULL;
}

int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->timeout_s = 5;
	o->actions = calloc(OPT_MAX_ACTIONS, sizeof(*o->actions));
	if (!o->actions) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* 0, not 1: glibc's getopt also keeps a pointer into the last argv
	 * (inside a cluster of short options like -vq); only optind = 0
	 * resets it, or a second parse reads freed memory (found by
	 * tests/fuzz/fuzz_text.c under ASan). */
	optind = 0;
	opterr = 0;
	int c, r = 0;
	char *end;
	while (r == 0 && (c = getopt_long(argc, argv, ":p:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			r = parse_pids(o, optarg, err, errlen);
			break;
		case O_ALL:
			if (!*optarg || strchr(optarg, '/')) {
				snprintf(err, errlen, "--all '%s': expected a process name", optarg);
				r = -1;
			}
			o->all_name = optarg;
			break;
		case O_STATUS:
			r = add_action(o, ACT_STATUS, NULL, err, errlen);
			break;
		case O_ACTIVATE:
			r = add_action(o, ACT_ACTIVATE, NULL, err, errlen);
			break;
		case O_DEACTIVATE:
			r = add_action(o, ACT_DEACTIVATE, NULL, err, errlen);
			break;
		case O_DUMP: {
			/* --dump FILE as well as --dump=FILE: take the next word
			 * if it is not an option. */
			const char *file = optarg;
			if (!file && optind < argc && argv[optind][0] != '-')
				file = argv[optind++];
			if (file && !*file) {
				snprintf(err, errlen, "--dump: empty file name");
				r = -1;
				break;
			}
			if (file && (r = check_pattern(file, err, errlen)))
				break;
			r = add_action(o, ACT_DUMP, file, err, errlen);
			break;
		}
		case O_GET:
			r = check_get(optarg, err, errlen);
			if (!r)
				r = add_action(o, ACT_GET, optarg, err, errlen);
			break;
		case O_SET:
			r = check_set(optarg, err, errlen);
			if (!r)
				r = add_action(o, ACT_SET, optarg, err, errlen);
			break;
		case O_STATS:
			if (optarg && strcmp(optarg, "full")) {
				snprintf(err, errlen, "--stats=%s: expected --stats or --stats=full", optarg);
				r = -1;
				break;
			}
			r = add_action(o, optarg ? ACT_STATS_FULL : ACT_STATS, NULL, err, errlen);
			break;
		case O_RESET:
			if (optarg) {
				struct rctl_value v;
				if (rctl_parse(RCTL_SIZE, optarg, &v) || v.u > 63) {
					snprintf(err, errlen, "--reset=%s: expected lg_sample, 0 to 63", optarg);
					r = -1;
					break;
				}
			}
			r = add_action(o, ACT_RESET, optarg, err, errlen);
			break;
		case O_GDUMP:
		case O_TAI:
			r = check_onoff(c == O_GDUMP ? "gdump" : "thread-active-init", optarg, err, errlen);
			if (!r)
				r = add_action(o, c == O_GDUMP ? ACT_GDUMP : ACT_THREAD_ACTIVE_INIT, optarg,
					       err, errlen);
			break;
		case O_PURGE:
		case O_DECAY:
			r = add_action(o, c == O_PURGE ? ACT_PURGE : ACT_DECAY, NULL, err, errlen);
			break;
		case O_FOR:
		case O_EVERY: {
			int64_t us = options_duration_us(optarg);
			if (us <= 0) {
				snprintf(err, errlen,
					 "--%s %s: expected a duration such as 500ms, 30s, 5m or 1h",
					 c == O_FOR ? "for" : "every", optarg);
				r = -1;
			}
			*(c == O_FOR ? &o->for_us : &o->every_us) = us;
			break;
		}
		case O_BASELINE:
			o->baseline = 1;
			break;
		case O_SYMBOLIZE:
			o->symbolize = 1;
			break;
		case O_COUNT:
			errno = 0;
			o->count = strtol(optarg, &end, 10);
			if (errno || *end || o->count < 1 || o->count > OPT_MAX_COUNT) {
				snprintf(err, errlen, "--count '%s': expected 1 to %d", optarg,
					 OPT_MAX_COUNT);
				r = -1;
			}
			break;
		case O_PREFIX:
			if (strlen(optarg) > 40 || strchr(optarg, '/')) {
				snprintf(err, errlen, "--prefix '%s': expected a symbol prefix like je_",
					 optarg);
				r = -1;
			}
			o->prefix = optarg;
			break;
		case O_TIMEOUT:
			errno = 0;
			o->timeout_s = strtod(optarg, &end);
			if (errno || *end || !(o->timeout_s > 0) || o->timeout_s > 86400) {
				snprintf(err, errlen,
					 "--timeout '%s': expected seconds, more than 0 and at most 86400",
					 optarg);
				r = -1;
			}
			break;
		case O_JSON:
			o->json = 1;
			break;
		case O_TID: {
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (errno || *end || v <= 0 || v > 0x7fffffff) {
				snprintf(err, errlen, "--tid '%s': expected a thread id", optarg);
				r = -1;
			}
			o->tid = (pid_t)v;
			break;
		}
		case 'v':
			o->verbose++;
			break;
		case 'q':
			o->quiet = 1;
			break;
		case 'h':
			o->help = 1;
			return 0;
		case O_VERSION:
			o->version = 1;
			return 0;
		case ':':
			snprintf(err, errlen, "option %s needs a value", argv[optind - 1]);
			r = -1;
			break;
		default:
			snprintf(err, errlen, "unknown option '%s'; see jeattach --help",
				 argv[optind - 1]);
			r = -1;
			break;
		}
	}
	if (r)
		return r;
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'; see jeattach --help", argv[optind]);
		return -1;
	}
	if (!o->npids && !o->all_name) {
		snprintf(err, errlen, "no target: give -p PID or --all NAME");
		return -1;
	}
	if (o->npids && o->all_name) {
		snprintf(err, errlen, "give -p PID or --all NAME, not both");
		return -1;
	}
	if (!o->nactions && !o->for_us) {
		snprintf(err, errlen,
			 "nothing to do: give an action (--status, --activate, --dump...)");
		return -1;
	}
	for (int i = 0; i < o->nactions; i++) {
		const char *f = o->actions[i].arg;
		if (o->actions[i].kind == ACT_DUMP && f && (o->npids > 1 || o->all_name) &&
		    !strstr(f, "%p")) {
			snprintf(err, errlen,
				 "--dump %s with several targets would overwrite it; put %%p (the pid) "
				 "in the name, or give no FILE (automatic names carry the pid)",
				 f);
			return -1;
		}
	}
	return 0;
}
