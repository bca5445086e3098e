/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap's one runner, for its own command line (jeheap_main.c) and for
 * jeprof's (jeheap_jeprof.c): the operands checked, the profiles read with
 * their symbolizers (PROGRAM applied), the analysis run and written. */
#include "config.h"

#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jeheap.h"
#include "jeheap_cli.h"
#include "jeheap_graphviz.h"
#include "jeheap_lineless.h"
#include "jeheap_list.h"
#include "jeheap_program.h"
#include "jeheap_raw.h"
#include "jeheap_text.h"
#include "jeheap_thread.h"
#include "jeheap_trend.h"
#include "jeheap_warn.h"

static int read_profile(const char *path, jeheap_profile **p)
{
	struct jeheap_error_info ei;
	if (!jeheap_profile_read_file(path, p, &ei))
		return 0;
	if (ei.line)
		fprintf(stderr, "jeheap: %s:%lu:%lu: %s\n", path, ei.line, ei.column, ei.message);
	else if (!strncmp(ei.message, path, strlen(path))) /* the library named the file */
		fprintf(stderr, "jeheap: %s\n", ei.message);
	else
		fprintf(stderr, "jeheap: %s: %s\n", path, ei.message);
	return -1;
}

/* The profiles named on the command line, each with its symbolizer. */
struct inputs {
	jeheap_profile **p;
	jeheap_symbolizer **s;
	size_t n;
	jeheap_profile *base;
	jeheap_symbolizer *base_s;
};

static int load_inputs(struct inputs *in, const struct args *a)
{
	char **paths = a->profiles;
	size_t n = a->nprofiles;
	const char *basepath = a->basepath, *root = a->root;
	in->p = calloc(n, sizeof(*in->p));
	in->s = calloc(n, sizeof(*in->s));
	if (!in->p || !in->s) {
		fprintf(stderr, "jeheap: out of memory\n");
		return -1;
	}
	in->n = n;
	for (size_t i = 0; i < n; i++)
		if (read_profile(paths[i], &in->p[i]))
			return -1;
	if (basepath && read_profile(basepath, &in->base))
		return -1;
	int e = 0;
	for (size_t i = 0; i < n && !e; i++)
		e = jeheap_symbolizer_new(in->p[i], root, &in->s[i]);
	if (!e && in->base)
		e = jeheap_symbolizer_new(in->base, root, &in->base_s);
	if (e) {
		fprintf(stderr, "jeheap: %s\n", jeheap_strerror(e));
		return -1;
	}
	/* jeprof reads every profile's (and the base's) main executable from
	 * its one PROGRAM */
	for (size_t i = 0; a->program && i < n; i++)
		if (use_program(in->s[i], a->program))
			return -1;
	if (a->program && in->base_s && use_program(in->base_s, a->program))
		return -1;
	return 0;
}

static void free_inputs(struct inputs *in)
{
	for (size_t i = 0; i < in->n; i++) {
		jeheap_symbolizer_free(in->s[i]);
		jeheap_profile_free(in->p[i]);
	}
	free(in->s);
	free(in->p);
	jeheap_symbolizer_free(in->base_s);
	jeheap_profile_free(in->base);
}

/* A library error as a message and an exit code. */
static int analysis_failed(int e)
{
	fprintf(stderr, "jeheap: %s%s\n", jeheap_strerror(e),
		e == JEHEAP_EINVAL ? " (is the --focus/--ignore regex valid?)" : "");
	return e == JEHEAP_EINVAL ? EXIT_USAGE : e == JEHEAP_EIO ? EXIT_OUTPUT : EXIT_INPUT;
}

/* top and json, and jeprof --text: the table. */
static int run_top(const struct args *a, const struct inputs *in, FILE *out)
{
	jeheap_top *t = NULL;
	int e = jeheap_top_query(in->p[0], in->s[0], &a->q, &t);
	struct top_style st = { a->q.metric, a->jeprof.show_bytes, a->jeprof.by_cum, a->limit,
				a->jeprof.on, 0 };
	if (!e && a->jeprof.on)
		e = jeheap_query_total(in->p[0], &a->q, &st.whole_total);
	if (!e && a->cmd == CMD_JSON)
		print_json(out, in->p[0], t, &a->q, a->limit);
	else if (!e && print_top(out, t, &st))
		e = JEHEAP_ENOMEM;
	jeheap_top_free(t);
	return e ? analysis_failed(e) : 0;
}

/* dot, and jeprof --svg/--pdf through graphviz. */
static int run_dot(const struct args *a, const struct inputs *in, FILE *out)
{
	const struct jeheap_dot_options o = { a->limit > 0 ? (size_t)a->limit : 0,
					      a->jeprof.node_fraction, a->jeprof.edge_fraction };
	struct graphviz g;
	int rc = 0;
	if (a->jeprof.graphviz && (rc = graphviz_start(&g, a->jeprof.graphviz, out)))
		return rc;
	int e = jeheap_dot_opts(in->p[0], in->s[0], &a->q, a->profiles[0], &o,
				a->jeprof.graphviz ? g.in : out);
	if (a->jeprof.graphviz)
		rc = graphviz_finish(&g);
	return e ? analysis_failed(e) : rc;
}

static int run(const struct args *a, const struct inputs *in, FILE *out)
{
	jeheap_profile *p = in->p[0];
	jeheap_symbolizer *s = in->s[0];
	const struct jeheap_query *q = &a->q;
	int e = 0;
	switch (a->cmd) {
	case CMD_TOP:
	case CMD_JSON:
		return run_top(a, in, out);
	case CMD_DOT:
		return run_dot(a, in, out);
	case CMD_TREND:
		return run_trend(a, in->p, in->s, in->n, out);
	case CMD_RAW:
		return write_raw(a->profiles[0], p, s, a->program, out);
	case CMD_LIST:
		return print_listing(out, p, s, q, a->jeprof.list_re, a->jeprof.show_bytes);
	case CMD_COLLAPSED: {
		struct fold_out fo = { out, in->base != NULL, a->limit };
		if ((e = jeheap_collapsed(p, s, q, print_folded, &fo)) == FOLD_DONE)
			e = 0;
		break;
	}
	case CMD_FLAME:
		e = jeheap_flamegraph_svg_opts(p, s, q, &a->flame, out);
		break;
	case CMD_PPROF:
		e = jeheap_pprof(p, s, q, out);
		break;
	}
	return e ? analysis_failed(e) : 0;
}

/* The operands: a leading PROGRAM, the profiles; then every check that
 * needs no file: the regexes (as libjeheap compiles them) before any
 * profile is read or the output file created. */
int jeheap_operands(int argc, char **argv, int i, struct args *a)
{
	/* jeprof's PROGRAM PROFILE...: an ELF file first, profiles after */
	if (i < argc && is_program(argv[i])) {
		if (argc - i < 2) {
			fprintf(stderr, "jeheap: %s is a program (an ELF file); the PROFILE comes "
					"after it\n",
				argv[i]);
			return EXIT_USAGE;
		}
		a->program = argv[i++];
	}
	if (i >= argc) {
		fprintf(stderr, "jeheap: %s needs a PROFILE (a file jeattach --dump or "
				"jemalloc's prof.dump wrote)\n",
			a->name);
		return EXIT_USAGE;
	}
	a->profiles = argv + i;
	a->nprofiles = (size_t)(argc - i);
	static const char *const what[] = { "focus", "ignore", "exclude", "retain", "list" };
	const char *res[] = { a->q.focus, a->q.ignore, a->q.exclude, a->q.retain,
			      a->jeprof.list_re };
	for (size_t k = 0; k < sizeof(res) / sizeof(res[0]); k++) {
		regex_t re;
		if (!res[k])
			continue;
		if (regcomp(&re, res[k], REG_EXTENDED | REG_NOSUB)) {
			fprintf(stderr, "jeheap: --%s '%s': not a POSIX extended regular expression\n",
				what[k], res[k]);
			return EXIT_USAGE;
		}
		regfree(&re);
	}
	int rc = trend_operands(a);
	if (rc >= 0)
		return rc;
	if (a->cmd == CMD_PPROF && !a->outpath && isatty(STDOUT_FILENO)) {
		fprintf(stderr, "jeheap: pprof writes gzipped binary; give -o FILE or a pipe\n");
		return EXIT_USAGE;
	}
	return -1;
}

/* Read, analyse, write. */
int jeheap_execute(struct args *a)
{
	struct inputs in = { 0 };
	FILE *out = NULL;
	int rc = 0;
	if (load_inputs(&in, a)) {
		rc = EXIT_INPUT;
		goto out;
	}
	if (a->thread_name && thread_resolve(in.p[0], a->profiles[0], a->thread_name, &a->q.thread)) {
		rc = EXIT_USAGE;
		goto out;
	}
	a->q.base = in.base;
	a->q.base_symbolizer = in.base_s;
	a->q.more = (const jeheap_profile *const *)in.p + 1;
	a->q.more_symbolizers = in.s + 1;
	a->q.nmore = in.n - 1;
	out = a->outpath ? fopen(a->outpath, "we") : stdout;
	if (!out) {
		fprintf(stderr, "jeheap: cannot write %s: %s\n", a->outpath, strerror(errno));
		rc = EXIT_OUTPUT;
		goto out;
	}
	a->flame.source = a->profiles[0];
	a->flame.base_source = a->basepath;
	rc = run(a, &in, out);
	warn_no_samples(in.p, a->profiles, in.n);
	warn_objects(in.s, in.n);
	warn_objects(&in.base_s, 1);
	if (a->q.granularity != JEHEAP_FUNCTIONS || a->jeprof.list_re) {
		note_lineless(in.s, in.n, a->root);
		note_lineless(&in.base_s, 1, a->root);
	}
	if (ferror(out) || (a->outpath ? fclose(out) : fflush(out))) {
		fprintf(stderr, "jeheap: cannot write %s: %s\n", a->outpath ? a->outpath : "output",
			strerror(errno));
		rc = EXIT_OUTPUT;
	}
	out = NULL;
out:
	if (out && out != stdout)
		fclose(out);
	free_inputs(&in);
	return rc;
}
