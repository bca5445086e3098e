/* SPDX-License-Identifier: BSD-2-Clause */
/* jeheap's commands and options, one row each (jeheap_table.h). A row's
 * commands are the ones it means something to: its help and completion
 * list it, and any other command refuses it (jeheap_mistake.c), though
 * the profile commands' one parser reads the options of all of them. */
#include "config.h"

#include <string.h>
#include "jeheap_table.h"

/* Exit status 3 of a profile command. */
#define BAD_PROFILE "unreadable or malformed profile"

static const struct jh_command_row commands[JH_NCOMMANDS] = {
	[JH_TOP] = { "top", "[PROGRAM] PROFILE...", JH_VALUE_PROFILE, 0, 0,
		     "functions by memory, as `jeprof --text` prints them", NULL, BAD_PROFILE },
	[JH_COLLAPSED] = { "collapsed", "[PROGRAM] PROFILE...", JH_VALUE_PROFILE, 0, 0,
			   "folded stacks for flamegraph.pl, speedscope, inferno (with --base: "
			   "flamegraph's difffolded form)",
			   NULL, BAD_PROFILE },
	[JH_FLAME] = { "flame", "[PROGRAM] PROFILE...", JH_VALUE_PROFILE, 0, 0,
		       "a self-contained interactive SVG flame graph: click to zoom, search "
		       "(regex) for the share of matching frames (with --base: a differential "
		       "one, each frame coloured by its own change, red grew, blue shrank)",
		       NULL, BAD_PROFILE },
	[JH_DOT] = { "dot", "[PROGRAM] PROFILE...", JH_VALUE_PROFILE, 0, 0,
		     "a graphviz call graph (as jeprof --dot; -n: nodes, default 80)", NULL,
		     BAD_PROFILE },
	[JH_PPROF] = { "pprof", "[PROGRAM] PROFILE...", JH_VALUE_PROFILE, 0, 0,
		       "pprof's profile.proto, gzipped, for go tool pprof, Pyroscope, ... "
		       "(binary: needs -o or a pipe)",
		       NULL, BAD_PROFILE },
	[JH_JSON] = { "json", "[PROGRAM] PROFILE...", JH_VALUE_PROFILE, 0, 0,
		      "top as one JSON object (values un-sampled, not rounded)", NULL, BAD_PROFILE },
	[JH_TREND] = { "trend", "[PROGRAM] DUMP DUMP...", JH_VALUE_PROFILE, 0, 0,
		       "what keeps growing over a series of dumps of one process (jeattach "
		       "--every)",
		       "Per stack, a least-squares line through its values over time, its slope "
		       "and fit (R^2); steady growth (slope > 0, fit >= --min-fit: \"likely "
		       "leak\") first, by rate; then the rest, shrinking last. Times: jeattach's "
		       "dump-time stamps, else each file's mtime (with a warning), or --times.",
		       BAD_PROFILE ", or dumps whose times are equal or unknown" },
	[JH_JEPROF] = { "jeprof", "[PROGRAM] PROFILE...", JH_VALUE_PROFILE, 1, 1,
			"jeprof's own command line: --text, --svg, --raw, --list=RE, ... (also "
			"as jeheap-jeprof)",
			"jeprof's options as jeprof reads them: --opt=value or --opt value, one "
			"dash or two, unique abbreviations; one output mode (--text unless another "
			"is given). PROGRAM (an ELF file) symbolizes the profile's main "
			"executable; without it the path the profile's maps name is read. Regexes "
			"are POSIX extended. Other jeprof options are refused with what to use "
			"instead (exit 2). jeheap also reads this command line when its first word "
			"is an option only jeprof has (jeheap --text PROGRAM PROFILE). Differences "
			"from jeprof: jeheap(1), JEPROF COMPATIBILITY.",
			BAD_PROFILE },
	[JH_RECENT] = { "recent", "FILE", JH_VALUE_RECORD, 1, 0,
			"the record of recent allocations jeattach --recent writes: live ones, "
			"cross-thread frees, lifetimes",
			"FILE is what `jeattach -p PID --recent N --for D` writes (jemalloc 5.3's "
			"experimental.prof_recent): the last sampled allocations with their "
			"stacks, threads and times, and their frees. Only sampled allocations are "
			"recorded (about one per sample_interval bytes allocated): counts are "
			"samples, not totals; est. columns un-sample each allocation as heap "
			"profiles are. Views (several may be given; default --top): --top, --live, "
			"--cross-thread, --lifetimes.",
			"unreadable, malformed or empty record" },
	[JH_HELP] = { "help", "[COMMAND]", JH_VALUE_COMMAND, 1, 0,
		      "this text, or a command's options (as jeheap COMMAND --help)", NULL, NULL },
};

#define ON JH_ON
#define PROFILE JH_PROFILE_COMMANDS
#define JEPROF ON(JH_JEPROF)
#define RECENT ON(JH_RECENT)
#define TREND ON(JH_TREND)
#define FLAME ON(JH_FLAME)
#define REQ JH_ARG_REQUIRED
#define OPT JH_ARG_OPTIONAL
#define REFUSED(n, use) { .name = n, .id = JO_REFUSED, .commands = JEPROF, .refused = use }
#define REFUSED_VALUE(n, use)                                                                  \
	{ .name = n, .id = JO_REFUSED, .arg = REQ, .commands = JEPROF, .refused = use }

/* In every help's order: what to write, what to count, the flame graph's
 * and trend's own, jeprof's graph, the rest. */
static const struct jh_option_row options[] = {
	{ .name = "text", .id = JO_TEXT, .commands = JEPROF, .help = "the table (the default)" },
	{ .name = "dot", .id = JO_DOT, .commands = JEPROF, .help = "a graphviz call graph" },
	{ .name = "svg", .id = JO_JEPROF_SVG, .commands = JEPROF,
	  .help = "the call graph as SVG (graphviz's dot)" },
	{ .name = "pdf", .id = JO_PDF, .commands = JEPROF,
	  .help = "the call graph as PDF (graphviz's dot)" },
	{ .name = "raw", .id = JO_RAW, .commands = JEPROF,
	  .help = "jeprof's symbolized form, readable without the binaries" },
	{ .name = "collapsed", .id = JO_COLLAPSED, .commands = JEPROF,
	  .help = "folded stacks (jeheap collapsed)" },
	{ .name = "list", .id = JO_LIST, .arg = REQ, .metavar = "RE", .commands = JEPROF,
	  .help = "the annotated source of each function matching RE" },

	{ .name = "top", .id = JO_RECENT_TOP, .arg = OPT, .metavar = "N", .commands = RECENT,
	  .help = "allocation stacks by sampled bytes, live/freed split (N: rows)" },
	{ .name = "live", .id = JO_LIVE, .arg = OPT, .metavar = "D", .commands = RECENT,
	  .help = "allocations still live (and younger than D: 500ms, 2s, 1m), youngest first" },
	{ .name = "by-size", .id = JO_BY_SIZE, .commands = RECENT,
	  .help = "--live: largest first" },
	{ .name = "cross-thread", .id = JO_CROSS, .commands = RECENT,
	  .help = "allocations freed by another thread than the one that allocated them, by "
		  "(allocation stack, free stack)" },
	{ .name = "lifetimes", .id = JO_LIFETIMES, .commands = RECENT,
	  .help = "histogram of the freed allocations' lifetimes (log2)" },
	{ .name = "per-stack", .id = JO_PER_STACK, .commands = RECENT,
	  .help = "--lifetimes: one histogram per top allocation stack" },

	{ .name = "base", .id = JO_BASE, .arg = REQ, .metavar = "FILE",
	  .commands = (PROFILE & ~TREND) | JEPROF, .value = JH_VALUE_PROFILE,
	  .help = "subtract this earlier profile (what grew since)" },
	{ .name = "focus", .id = JO_FOCUS, .arg = REQ, .metavar = "RE",
	  .commands = PROFILE | JEPROF,
	  .help = "only stacks through a function matching RE" },
	{ .name = "ignore", .id = JO_IGNORE, .arg = REQ, .metavar = "RE",
	  .commands = PROFILE | JEPROF,
	  .help = "drop stacks through a function matching RE" },
	{ .name = "retain", .id = JO_RETAIN, .arg = REQ, .metavar = "RE", .commands = JEPROF,
	  .help = "keep only the frames whose function matches RE" },
	{ .name = "exclude", .id = JO_EXCLUDE, .arg = REQ, .metavar = "RE", .commands = JEPROF,
	  .help = "drop the frames whose function matches RE" },
	{ .name = "thread", .id = JO_THREAD, .arg = REQ, .metavar = "N|NAME", .commands = PROFILE,
	  .help = "only what jemalloc's thread N holds (its tN: lines), or the thread named "
		  "NAME (jeattach --name-threads: comm/TID; comm alone finds it)" },
	{ .name = "functions", .id = JO_FUNCTIONS, .commands = PROFILE | JEPROF | RECENT,
	  .help = "a row per function (default; inlined ones marked)" },
	{ .name = "lines", .id = JO_LINES, .commands = PROFILE | JEPROF | RECENT,
	  .help = "a row per source line (needs DWARF debug info)" },
	{ .name = "addresses", .id = JO_ADDRESSES, .commands = PROFILE | JEPROF | RECENT,
	  .help = "a row per instruction address" },
	{ .name = "inuse_space", .id = JO_INUSE_SPACE, .commands = PROFILE | JEPROF,
	  .help = "bytes in use (default)" },
	{ .name = "inuse_objects", .id = JO_INUSE_OBJECTS, .commands = PROFILE | JEPROF,
	  .help = "objects in use" },
	{ .name = "alloc_space", .id = JO_ALLOC_SPACE, .commands = PROFILE | JEPROF,
	  .help = "bytes allocated over time (needs prof_accum)" },
	{ .name = "alloc_objects", .id = JO_ALLOC_OBJECTS, .commands = PROFILE | JEPROF,
	  .help = "objects allocated over time (needs prof_accum)" },
	{ .name = "show_bytes", .id = JO_SHOW_BYTES, .commands = JEPROF,
	  .help = "bytes as integers, unit B" },
	{ .name = "cum", .id = JO_CUM, .commands = JEPROF, .help = "rows by cumulative value" },
	{ .name = "drop_negative", .id = JO_DROP_NEGATIVE, .commands = JEPROF,
	  .help = "with --base: each stack less the base's, never below 0" },

	{ .name = "title", .id = JO_TITLE, .arg = REQ, .metavar = "TEXT", .commands = FLAME | TREND,
	  .help = "the title (flame: the profiled program; trend's chart: the metric and the "
		  "number of dumps)" },
	{ .name = "subtitle", .id = JO_SUBTITLE, .arg = REQ, .metavar = "TEXT", .commands = FLAME,
	  .help = "the subtitle (default: the profile, the metric, the total)" },
	{ .name = "inverted", .id = JO_INVERTED, .commands = FLAME,
	  .help = "an icicle graph, the root on top" },
	{ .name = "json", .id = JO_JSON, .commands = TREND | RECENT,
	  .help = "one JSON object instead of text (doc/json.md)" },
	{ .name = "svg", .id = JO_SVG, .commands = TREND,
	  .help = "an SVG chart, the total and the top stacks over time (implied by -o FILE.svg)" },
	{ .name = "top", .id = JO_TOP, .arg = REQ, .metavar = "N", .commands = TREND,
	  .help = "N stacks (text and SVG default 10; JSON: all)" },
	{ .name = "min-fit", .id = JO_MIN_FIT, .arg = REQ, .metavar = "R", .commands = TREND,
	  .help = "the fit (0 to 1) steady growth needs (default 0.9)" },
	{ .name = "times", .id = JO_TIMES, .arg = REQ, .metavar = "T,T,...", .commands = TREND,
	  .help = "each dump's time in seconds, in the order given, instead of its stamp or its "
		  "file's mtime" },

	{ .name = "nodecount", .id = JO_NODECOUNT, .arg = REQ, .metavar = "N", .commands = JEPROF,
	  .help = "the graph: at most N nodes (default 80; --text prints every row)" },
	{ .name = "nodefraction", .id = JO_NODEFRACTION, .arg = REQ, .metavar = "F",
	  .commands = JEPROF,
	  .help = "the graph: no node below F of the total (default 0.005)" },
	{ .name = "edgefraction", .id = JO_EDGEFRACTION, .arg = REQ, .metavar = "F",
	  .commands = JEPROF,
	  .help = "the graph: no edge below F of the total (default 0.001)" },
	{ .letter = 'n', .id = JO_LIMIT, .arg = REQ, .metavar = "N",
	  .commands = ON(JH_TOP) | ON(JH_COLLAPSED) | ON(JH_DOT) | ON(JH_JSON),
	  .help = "print the first N lines only (dot: at most N nodes)" },
	{ .letter = 'n', .id = JO_LIMIT, .arg = REQ, .metavar = "N", .commands = RECENT,
	  .help = "at most N rows per view (default 20; 0: all)" },
	{ .name = "depth", .id = JO_DEPTH, .arg = REQ, .metavar = "N", .commands = RECENT,
	  .help = "frames shown per stack in text (default 6; 0: all)" },
	{ .name = "root", .id = JO_ROOT, .arg = REQ, .metavar = "DIR",
	  .commands = PROFILE | JEPROF | RECENT, .value = JH_VALUE_DIR,
	  .help = "find the profiled binaries under DIR (a sysroot)" },
	{ .name = "lib_prefix", .id = JO_LIB_PREFIX, .arg = REQ, .metavar = "DIR",
	  .commands = JEPROF, .value = JH_VALUE_DIR,
	  .help = "a sysroot, as --root=DIR (one directory, not a list)" },
	{ .letter = 'o', .id = JO_OUTPUT, .arg = REQ, .metavar = "FILE",
	  .commands = PROFILE | RECENT, .value = JH_VALUE_FILE,
	  .help = "write to FILE instead of standard output" },
	{ .name = "help", .letter = 'h', .id = JO_HELP, .commands = PROFILE | RECENT,
	  .help = "this text" },
	/* jeprof's has no -h: its one-dash long options would make -h an
	 * abbreviation of --help and --heapcheck */
	{ .name = "help", .id = JO_HELP, .commands = JEPROF, .help = "this text" },
	{ .name = "version", .id = JO_VERSION, .commands = PROFILE | JEPROF, .help = "version" },

	/* jeprof's options jeheap refuses, each with what to use instead
	 * (jeheap_jeprof.c says it; jeheap(1), JEPROF COMPATIBILITY); a
	 * VALUE one takes its value, so that the value is not read as an
	 * operand. */
	REFUSED("web", "use --svg > FILE.svg and open it in a browser"),
	REFUSED("gv", "use --pdf > FILE.pdf or --svg > FILE.svg and open it"),
	REFUSED("evince", "use --pdf > FILE.pdf and open it"),
	REFUSED("ps", "use --pdf, or --dot | dot -Tps"),
	REFUSED("gif", "use --dot | dot -Tgif"),
	REFUSED("callgrind", "use jeheap pprof -o FILE and go tool pprof -callgrind FILE"),
	REFUSED_VALUE("disasm", "use --list=RE (source lines) or --addresses"),
	REFUSED("symbols", "use --addresses (jeheap top --addresses) for names of addresses"),
	REFUSED("interactive", "use --text, --list=RE or --svg (no interactive mode)"),
	REFUSED_VALUE("seconds",
		"jeheap reads profile files, not URLs: take one with jeattach -p PID --dump FILE"),
	REFUSED_VALUE("add_lib", "put the library under a sysroot and give --root=DIR"),
	REFUSED("files", "use --lines (a row per source line)"),
	REFUSED_VALUE("maxdegree", "use --nodecount=N and --edgefraction=F"),
	REFUSED_VALUE("scale", "it scales --gv only; use --svg or --pdf"),
	REFUSED("heapcheck", "use --inuse_objects"),
	REFUSED_VALUE("thread", "use jeheap top --thread N|NAME"),
	REFUSED("total_delay", "contention profiles are not heap profiles"),
	REFUSED("contentions", "contention profiles are not heap profiles"),
	REFUSED("mean_delay", "contention profiles are not heap profiles"),
	REFUSED_VALUE("tools",
		"jeheap reads ELF and DWARF itself, without objdump, nm or addr2line"),
	REFUSED("test", "jeheap's tests are make check"),
	REFUSED("debug", "jeheap has no debug output"),
	REFUSED("debug-syms-by-id", "jeheap always finds debug files by build id"),
	REFUSED_VALUE("test_stride", "jeprof's own unit tests only"),

	/* For the bash completion script, which asks the jeheap it completes
	 * (completions/jeheap). */
	{ .name = "list-options", .id = JO_LIST_OPTIONS, .commands = PROFILE, .hidden = 1,
	  .help = "the options, one a line" },
	{ .name = "list-commands", .id = JO_LIST_COMMANDS, .commands = PROFILE, .hidden = 1,
	  .help = "the commands, one a line" },
};

#define NOPTIONS (sizeof(options) / sizeof(options[0]))
_Static_assert(NOPTIONS <= JH_MAX_OPTIONS, "JH_MAX_OPTIONS is too small for the table");

const struct jh_command_row *jh_commands(void)
{
	return commands;
}

const struct jh_option_row *jh_options(size_t *n)
{
	*n = NOPTIONS;
	return options;
}

int jh_command_find(const char *name)
{
	for (int i = 0; i < JH_NCOMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return i;
	return -1;
}

const struct jh_option_row *jh_option_find(const char *name, size_t len, unsigned mask)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if ((options[i].commands & mask) && options[i].name &&
		    strlen(options[i].name) == len && !strncmp(options[i].name, name, len))
			return &options[i];
	return NULL;
}

const struct jh_option_row *jh_option_by_id(int id, unsigned mask)
{
	for (size_t i = 0; i < NOPTIONS; i++)
		if (options[i].id == id && (options[i].commands & mask) && !options[i].hidden)
			return &options[i];
	return NULL;
}

unsigned jh_option_takers(const struct jh_option_row *r)
{
	unsigned takers = 0;
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct jh_option_row *o = &options[i];
		int same = r->name ? o->name && !strcmp(o->name, r->name)
				   : !o->name && o->letter == r->letter;
		if (same && jh_listed(o))
			takers |= o->commands;
	}
	return takers;
}

size_t jh_getopt_spec(unsigned mask, struct option *longopts, char *shortopts)
{
	static const int has_arg[] = { no_argument, required_argument, optional_argument };
	size_t n = 0;
	char *s = shortopts;
	*s++ = ':'; /* a missing value is told apart from an unknown option */
	*s = 0;
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct jh_option_row *r = &options[i];
		if (!(r->commands & mask) || r->hidden)
			continue;
		if (r->name)
			longopts[n++] = (struct option){ r->name, has_arg[r->arg], NULL, r->id };
		if (r->letter && !strchr(shortopts, r->letter)) {
			*s++ = r->letter;
			if (r->arg != JH_ARG_NONE)
				*s++ = ':';
			if (r->arg == JH_ARG_OPTIONAL)
				*s++ = ':';
		}
		*s = 0;
	}
	longopts[n] = (struct option){ NULL, 0, NULL, 0 };
	return n;
}

size_t jh_option_names(unsigned mask, const char **names)
{
	size_t n = 0;
	for (size_t i = 0; i < NOPTIONS; i++)
		if ((options[i].commands & mask) && options[i].name && jh_listed(&options[i]))
			names[n++] = options[i].name;
	return n;
}
