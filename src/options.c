/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

enum { O_STATUS = 256, O_ACTIVATE, O_DEACTIVATE, O_DUMP, O_GET, O_SET, O_PREFIX, O_TIMEOUT,
       O_JSON, O_VERSION, O_TID };

static const struct option longopts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "status", no_argument, NULL, O_STATUS },
	{ "activate", no_argument, NULL, O_ACTIVATE },
	{ "deactivate", no_argument, NULL, O_DEACTIVATE },
	{ "dump", optional_argument, NULL, O_DUMP },
	{ "get", required_argument, NULL, O_GET },
	{ "set", required_argument, NULL, O_SET },
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
	fputs("Usage: jeattach -p PID[,PID...] ACTION... [OPTION...]\n"
	      "Control jemalloc heap profiling in a running process, from outside.\n"
	      "\n"
	      "Actions (run in the order given, under one attach):\n"
	      "  --status              jemalloc version, location, profiling settings\n"
	      "  --activate            start sampling (prof.active=true)\n"
	      "  --deactivate          stop sampling (prof.active=false)\n"
	      "  --dump [FILE]         write a heap profile to FILE (default: jemalloc's\n"
	      "                        <prefix>.<pid>.<seq>.m<seq>.heap in this directory)\n"
	      "  --get NAME            read a mallctl (see jeattach(1) for the known names)\n"
	      "  --set NAME=VALUE      write a mallctl\n"
	      "\n"
	      "Options:\n"
	      "  -p, --pid PID[,PID]   target process(es)\n"
	      "      --prefix P        jemalloc's symbol prefix (default: try '', je_, _rjem_)\n"
	      "      --timeout SECONDS per target (default 5)\n"
	      "      --tid TID         borrow this thread of the target (default: any\n"
	      "                        thread at a safe point)\n"
	      "      --json            one JSON object per target, on one line\n"
	      "  -v, --verbose         narrate the phases on stderr\n"
	      "  -q, --quiet           print only errors\n"
	      "  -h, --help            this text\n"
	      "      --version         version\n"
	      "\n"
	      "The target must have been started with MALLOC_CONF=prof:true,prof_active:false\n"
	      "for profiling (statistics-only controls work without it).\n"
	      "Exit codes: 0 ok, 1 internal, 2 usage, 3 no such process, 4 permission,\n"
	      "5 no jemalloc, 6 profiling not enabled, 7 mallctl refused, 8 output file,\n"
	      "9 timeout, 10 unsafe target state, 11 some targets failed. See jeattach(1).\n",
	      f);
}

static int add_action(struct options *o, enum act_kind kind, const char *arg, char *err,
		      size_t errlen)
{
	if (o->nactions >= OPT_MAX_ACTIONS) {
		snprintf(err, errlen, "too many actions (at most %d)", OPT_MAX_ACTIONS);
		return -1;
	}
	o->actions[o->nactions].kind = kind;
	o->actions[o->nactions].arg = arg;
	o->nactions++;
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

int options_parse(int argc, char **argv, struct options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->timeout_s = 5;
	optind = 1;
	opterr = 0;
	int c, r = 0;
	while (r == 0 && (c = getopt_long(argc, argv, ":p:vqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			r = parse_pids(o, optarg, err, errlen);
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
		case O_PREFIX:
			if (strlen(optarg) > 40 || strchr(optarg, '/')) {
				snprintf(err, errlen, "--prefix '%s': expected a symbol prefix like je_",
					 optarg);
				r = -1;
			}
			o->prefix = optarg;
			break;
		case O_TIMEOUT: {
			char *end;
			errno = 0;
			o->timeout_s = strtod(optarg, &end);
			if (errno || *end || !(o->timeout_s > 0) || o->timeout_s > 86400) {
				snprintf(err, errlen,
					 "--timeout '%s': expected seconds, more than 0 and at most 86400",
					 optarg);
				r = -1;
			}
			break;
		}
		case O_JSON:
			o->json = 1;
			break;
		case O_TID: {
			char *end;
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
	if (!o->npids) {
		snprintf(err, errlen, "no target: give -p PID");
		return -1;
	}
	if (!o->nactions) {
		snprintf(err, errlen,
			 "nothing to do: give an action (--status, --activate, --dump...)");
		return -1;
	}
	int dumps_to_auto = 0;
	for (int i = 0; i < o->nactions; i++)
		if (o->actions[i].kind == ACT_DUMP && o->actions[i].arg && o->npids > 1)
			dumps_to_auto = 1;
	if (dumps_to_auto) {
		snprintf(err, errlen,
			 "--dump FILE with several pids would overwrite FILE; use --dump with no "
			 "FILE (automatic names carry the pid)");
		return -1;
	}
	return 0;
}
