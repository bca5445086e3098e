/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap: the command over libjeheap. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "jeheap.h"

enum { EXIT_USAGE = 2, EXIT_INPUT = 3, EXIT_OUTPUT = 4 };
enum { O_INUSE_SPACE = 256, O_INUSE_OBJECTS, O_ALLOC_SPACE, O_ALLOC_OBJECTS, O_ROOT, O_VERSION };

static void usage(FILE *f)
{
	fputs("Usage: jeheap top [OPTION...] PROFILE\n"
	      "Analyse a jemalloc heap profile (jemalloc 4+ heap_v2, 3.x/gperftools one-line).\n"
	      "\n"
	      "Commands:\n"
	      "  top                   functions by memory, as `jeprof --text` prints them\n"
	      "\n"
	      "Options:\n"
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

static int print_top(FILE *out, const jeheap_top *t, int metric, long limit)
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
	return ferror(out) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "inuse_space", no_argument, NULL, O_INUSE_SPACE },
		{ "inuse_objects", no_argument, NULL, O_INUSE_OBJECTS },
		{ "alloc_space", no_argument, NULL, O_ALLOC_SPACE },
		{ "alloc_objects", no_argument, NULL, O_ALLOC_OBJECTS },
		{ "root", required_argument, NULL, O_ROOT },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int metric = JEHEAP_INUSE_SPACE, c;
	long limit = -1;
	const char *root = NULL, *outpath = NULL;
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
	if (strcmp(cmd, "top")) {
		fprintf(stderr, "jeheap: unknown command '%s'; this version has: top\n", cmd);
		return EXIT_USAGE;
	}
	if (optind != argc - 1) {
		fprintf(stderr, "jeheap: top takes one PROFILE\n");
		return EXIT_USAGE;
	}
	const char *path = argv[optind];
	struct jeheap_error_info ei;
	jeheap_profile *p;
	if (jeheap_profile_read_file(path, &p, &ei)) {
		if (ei.line)
			fprintf(stderr, "jeheap: %s:%lu:%lu: %s\n", path, ei.line, ei.column, ei.message);
		else
			fprintf(stderr, "jeheap: %s: %s\n", path, ei.message);
		return EXIT_INPUT;
	}
	jeheap_symbolizer *s = NULL;
	jeheap_top *t = NULL;
	int rc = 0, e = jeheap_symbolizer_new(p, root, &s);
	if (!e)
		e = jeheap_top_new(p, s, metric, &t);
	if (e) {
		fprintf(stderr, "jeheap: %s: %s\n", path, jeheap_strerror(e));
		rc = EXIT_INPUT;
		goto out;
	}
	FILE *out = outpath ? fopen(outpath, "we") : stdout;
	if (!out) {
		fprintf(stderr, "jeheap: cannot write %s: %s\n", outpath, strerror(errno));
		rc = EXIT_OUTPUT;
		goto out;
	}
	if (print_top(out, t, metric, limit) || (outpath ? fclose(out) : fflush(out))) {
		fprintf(stderr, "jeheap: cannot write %s: %s\n", outpath ? outpath : "output",
			strerror(errno));
		rc = EXIT_OUTPUT;
	}
out:
	jeheap_top_free(t);
	jeheap_symbolizer_free(s);
	jeheap_profile_free(p);
	return rc;
}
