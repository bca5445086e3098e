/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap: the command over libjeheap. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap.h"
#include "json.h"

enum { EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_OUTPUT = 4 };
enum { O_INUSE_SPACE = 256, O_INUSE_OBJECTS, O_ALLOC_SPACE, O_ALLOC_OBJECTS, O_ROOT, O_VERSION,
       O_BASE, O_FOCUS, O_IGNORE, O_THREAD };

static void usage(FILE *f)
{
	fputs("Usage: jeheap top|collapsed|flame|json [OPTION...] PROFILE\n"
	      "Analyse a jemalloc heap profile (jemalloc 4+ heap_v2, 3.x/gperftools one-line).\n"
	      "\n"
	      "Commands:\n"
	      "  top                   functions by memory, as `jeprof --text` prints them\n"
	      "  collapsed             folded stacks for flamegraph.pl, speedscope, inferno\n"
	      "                        (with --base: flamegraph's difffolded form)\n"
	      "  flame                 a self-contained interactive SVG flame graph\n"
	      "  json                  top as one JSON object (values un-sampled, not rounded)\n"
	      "\n"
	      "Options:\n"
	      "  --base FILE           subtract this earlier profile (what grew since)\n"
	      "  --focus RE            only stacks through a function matching RE\n"
	      "  --ignore RE           drop stacks through a function matching RE\n"
	      "  --thread N            only what jemalloc's thread N holds (its tN: lines)\n"
	      "  --inuse_space         bytes in use (default)\n"
	      "  --inuse_objects       objects in use\n"
	      "  --alloc_space         bytes allocated over time (needs prof_accum)\n"
	      "  --alloc_objects       objects allocated over time (needs prof_accum)\n"
	      "  -n N                  print the first N lines only\n"
	      "  --root DIR            find the profiled binaries under DIR (a sysroot)\n"
	      "  -o FILE               write to FILE instead of standard output\n"
	      "  -h, --help            this text\n"
	      "      --version         version\n"
	      "Exit codes: 0 ok, 2 usage, 3 unreadable or malformed profile, 4 output error.\n",
	      f);
}

static const char *unparse(double v, int metric, char *buf, size_t len)
{
	/* jeprof's Unparse: objects as integers, bytes in MB with one decimal. */
	if (metric == JEHEAP_INUSE_OBJECTS || metric == JEHEAP_ALLOC_OBJECTS)
		snprintf(buf, len, "%d", (int)v);
	else
		snprintf(buf, len, "%.1f", v / 1048576.0);
	return buf;
}

static const char *percent(double v, double total, char *buf, size_t len)
{
	if (total != 0)
		snprintf(buf, len, "%.1f%%", v * 100.0 / total);
	else
		snprintf(buf, len, "%s", v == 0 ? "nan" : v > 0 ? "+inf" : "-inf");
	return buf;
}

static void print_top(FILE *out, const jeheap_top *t, int metric, long limit)
{
	char a[32], b[32], c[32], d[32], e[32];
	double total = jeheap_top_total(t), running = 0;
	int objects = metric == JEHEAP_INUSE_OBJECTS || metric == JEHEAP_ALLOC_OBJECTS;
	fprintf(out, "Total: %s %s\n", unparse(total, metric, a, sizeof(a)), objects ? "objects" : "MB");
	for (size_t i = 0; i < jeheap_top_count(t) && (limit < 0 || (long)i < limit); i++) {
		const struct jeheap_top_entry *en = jeheap_top_entry(t, i);
		running += en->flat;
		fprintf(out, "%8s %6s %6s %8s %6s %s\n", unparse(en->flat, metric, a, sizeof(a)),
			percent(en->flat, total, b, sizeof(b)), percent(running, total, c, sizeof(c)),
			unparse(en->cum, metric, d, sizeof(d)), percent(en->cum, total, e, sizeof(e)),
			en->name);
	}
}

static int read_profile(const char *path, jeheap_profile **p)
{
	struct jeheap_error_info ei;
	if (!jeheap_profile_read_file(path, p, &ei))
		return 0;
	if (ei.line)
		fprintf(stderr, "jeheap: %s:%lu:%lu: %s\n", path, ei.line, ei.column, ei.message);
	else
		fprintf(stderr, "jeheap: %s: %s\n", path, ei.message);
	return -1;
}

static void print_json(FILE *out, const jeheap_top *t, const struct jeheap_query *q, long limit)
{
	static const char *const metrics[] = { "inuse_space", "inuse_objects", "alloc_space",
					       "alloc_objects" };
	fprintf(out, "{\"metric\":\"%s\",\"unit\":\"%s\",\"total\":%.17g,\"functions\":[",
		metrics[q->metric], q->metric % 2 ? "objects" : "bytes", jeheap_top_total(t));
	for (size_t i = 0; i < jeheap_top_count(t) && (limit < 0 || (long)i < limit); i++) {
		const struct jeheap_top_entry *en = jeheap_top_entry(t, i);
		fprintf(out, "%s{\"name\":", i ? "," : "");
		json_put_string(out, en->name);
		fprintf(out, ",\"flat\":%.17g,\"cum\":%.17g}", en->flat, en->cum);
	}
	fputs("]}\n", out);
}

#define FOLD_DONE 1000 /* -n lines printed: stop (not an error) */

struct fold_out {
	FILE *f;
	int diff;
	long limit;
};

/* flamegraph.pl reads "stack value"; difffolded.pl "stack before after". */
static int print_folded(const char *stack, double value, double base, void *arg)
{
	struct fold_out *fo = arg;
	if (fo->limit == 0)
		return FOLD_DONE;
	if (fo->limit > 0)
		fo->limit--;
	if (fo->diff)
		fprintf(fo->f, "%s %.0f %.0f\n", stack, base, value);
	else
		fprintf(fo->f, "%s %.0f\n", stack, value);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "inuse_space", no_argument, NULL, O_INUSE_SPACE },
		{ "inuse_objects", no_argument, NULL, O_INUSE_OBJECTS },
		{ "alloc_space", no_argument, NULL, O_ALLOC_SPACE },
		{ "alloc_objects", no_argument, NULL, O_ALLOC_OBJECTS },
		{ "root", required_argument, NULL, O_ROOT },
		{ "base", required_argument, NULL, O_BASE },
		{ "focus", required_argument, NULL, O_FOCUS },
		{ "ignore", required_argument, NULL, O_IGNORE },
		{ "thread", required_argument, NULL, O_THREAD },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int metric = JEHEAP_INUSE_SPACE, c;
	long limit = -1;
	const char *root = NULL, *outpath = NULL, *basepath = NULL;
	struct jeheap_query q = { 0 };
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case O_INUSE_SPACE:
		case O_INUSE_OBJECTS:
		case O_ALLOC_SPACE:
		case O_ALLOC_OBJECTS:
			metric = c - O_INUSE_SPACE;
			break;
		case 'n': {
			char *end;
			errno = 0;
			limit = strtol(optarg, &end, 10);
			if (errno || *end || limit < 0) {
				fprintf(stderr, "jeheap: -n '%s': expected a number of lines\n", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case 'o':
			outpath = optarg;
			break;
		case O_ROOT:
			root = optarg;
			break;
		case O_BASE:
			basepath = optarg;
			break;
		case O_FOCUS:
			q.focus = optarg;
			break;
		case O_IGNORE:
			q.ignore = optarg;
			break;
		case O_THREAD: {
			char *end;
			errno = 0;
			unsigned long long v = strtoull(optarg, &end, 10);
			if (errno || *end || !*optarg || *optarg == '-') {
				fprintf(stderr, "jeheap: --thread '%s': expected jemalloc's thread number\n",
					optarg);
				return EXIT_USAGE;
			}
			q.per_thread = 1;
			q.thread = v;
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		case O_VERSION:
			printf("jeheap %s (libjeheap %s)\n", PACKAGE_VERSION, JEHEAP_VERSION_STRING);
			return 0;
		case ':':
			fprintf(stderr, "jeheap: option %s needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			fprintf(stderr, "jeheap: unknown option '%s'; see jeheap --help\n",
				argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "jeheap: no command; see jeheap --help\n");
		return EXIT_USAGE;
	}
	const char *cmd = argv[optind++];
	int collapsed = !strcmp(cmd, "collapsed"), json = !strcmp(cmd, "json"),
	    flame = !strcmp(cmd, "flame");
	if (strcmp(cmd, "top") && !collapsed && !json && !flame) {
		fprintf(stderr,
			"jeheap: unknown command '%s'; this version has: top, collapsed, flame, json\n",
			cmd);
		return EXIT_USAGE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "jeheap: %s takes one PROFILE\n", cmd);
		return EXIT_USAGE;
	}
	q.metric = metric;
	jeheap_profile *p = NULL, *base = NULL;
	jeheap_symbolizer *s = NULL, *bs = NULL;
	jeheap_top *t = NULL;
	FILE *out = NULL;
	int rc = 0, e;
	if (read_profile(argv[optind], &p) || (basepath && read_profile(basepath, &base))) {
		rc = EXIT_INPUT;
		goto out;
	}
	if ((e = jeheap_symbolizer_new(p, root, &s)) ||
	    (base && (e = jeheap_symbolizer_new(base, root, &bs)))) {
		fprintf(stderr, "jeheap: %s\n", jeheap_strerror(e));
		rc = EXIT_INPUT;
		goto out;
	}
	q.base = base;
	q.base_symbolizer = bs;
	if (!collapsed && !flame && (e = jeheap_top_query(p, s, &q, &t))) {
		fprintf(stderr, "jeheap: %s%s\n", jeheap_strerror(e),
			e == JEHEAP_EINVAL ? " (is the --focus/--ignore regex valid?)" : "");
		rc = e == JEHEAP_EINVAL ? EXIT_USAGE : EXIT_INPUT;
		goto out;
	}
	out = outpath ? fopen(outpath, "we") : stdout;
	if (!out) {
		fprintf(stderr, "jeheap: cannot write %s: %s\n", outpath, strerror(errno));
		rc = EXIT_OUTPUT;
		goto out;
	}
	struct fold_out fo = { out, base != NULL, limit };
	if (collapsed && (e = jeheap_collapsed(p, s, &q, print_folded, &fo)) && e != FOLD_DONE) {
		fprintf(stderr, "jeheap: %s%s\n", jeheap_strerror(e),
			e == JEHEAP_EINVAL ? " (is the --focus/--ignore regex valid?)" : "");
		rc = e == JEHEAP_EINVAL ? EXIT_USAGE : EXIT_INPUT;
	}
	if (flame && (e = jeheap_flamegraph_svg(p, s, &q, argv[optind], out))) {
		fprintf(stderr, "jeheap: %s%s\n", jeheap_strerror(e),
			e == JEHEAP_EINVAL ? " (is the --focus/--ignore regex valid?)" : "");
		rc = e == JEHEAP_EINVAL ? EXIT_USAGE : EXIT_INPUT;
	}
	if (json)
		print_json(out, t, &q, limit);
	else if (!collapsed && !flame)
		print_top(out, t, metric, limit);
	if (ferror(out) || (outpath ? fclose(out) : fflush(out))) {
		fprintf(stderr, "jeheap: cannot write %s: %s\n", outpath ? outpath : "output",
			strerror(errno));
		rc = EXIT_OUTPUT;
	}
	out = NULL;
out:
	if (out && out != stdout)
		fclose(out);
	jeheap_top_free(t);
	jeheap_symbolizer_free(bs);
	jeheap_symbolizer_free(s);
	jeheap_profile_free(base);
	jeheap_profile_free(p);
	return rc;
}
