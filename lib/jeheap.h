/* SPDX-License-Identifier: BSD-2-Clause */
/* libjeheap: read and analyse jemalloc heap profiles.
 *
 * Opaque handles with create/free pairs (every free accepts NULL), error
 * codes from one list (jeheap_strerror), the place of a parse error (line,
 * column). The library never prints and never exits; it keeps no global
 * state, so different handles may be used from different threads. */
#ifndef JEHEAP_H
#define JEHEAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of libjeheap's header a program is compiled with ... */
#define JEHEAP_VERSION_STRING "0.1.0"
/* ... and of the library it runs with (the shared object it loaded, which
 * may be another release). */
const char *jeheap_version(void);

enum jeheap_error {
	JEHEAP_OK = 0,
	JEHEAP_ENOMEM = 1,   /* out of memory */
	JEHEAP_EIO = 2,      /* cannot read the input (errno tells more) */
	JEHEAP_EFORMAT = 3,  /* not a heap profile, or a malformed line */
	JEHEAP_EINVAL = 4,   /* bad argument */
	JEHEAP_ENOENT = 5,   /* no such thing (file, symbol, entry) */
};
const char *jeheap_strerror(int err);

/* Where and why reading failed. line and column are 1-based; 0 if not a
 * parse error. */
struct jeheap_error_info {
	int code;
	unsigned long line, column;
	char message[160];
};

typedef struct jeheap_profile jeheap_profile;

enum jeheap_format {
	JEHEAP_FORMAT_THREADED = 1, /* jemalloc 4.0+: heap_v2/N, t*: and tN: lines */
	JEHEAP_FORMAT_ONELINE = 2,  /* jemalloc 3.x and gperftools: "heap profile: ..." */
};

int jeheap_profile_read_file(const char *path, jeheap_profile **out,
			     struct jeheap_error_info *ei);
int jeheap_profile_read_memory(const void *buf, size_t len, jeheap_profile **out,
			       struct jeheap_error_info *ei);
/* Reads line by line: the profile is never held whole in memory twice. */
int jeheap_profile_read_stream(FILE *f, jeheap_profile **out, struct jeheap_error_info *ei);
void jeheap_profile_free(jeheap_profile *p);

int jeheap_profile_format(const jeheap_profile *p);
/* The mean sampling interval in bytes (2^lg_prof_sample); 0: not sampled. */
uint64_t jeheap_profile_sample_period(const jeheap_profile *p);
size_t jeheap_profile_stack_count(const jeheap_profile *p);
/* The MAPPED_LIBRARIES section (a copy of /proc/PID/maps), "" if none. */
const char *jeheap_profile_mappings(const jeheap_profile *p);

/* Counts of one stack or a sum; doubles because un-sampling scales them. */
struct jeheap_counts {
	double inuse_objects, inuse_bytes, alloc_objects, alloc_bytes;
};

enum jeheap_scale {
	JEHEAP_RAW = 0,       /* as written in the file */
	JEHEAP_UNSAMPLED = 1, /* each line un-sampled as jeprof and pprof do */
};

/* Sum over all stacks (their t*: lines). */
int jeheap_profile_totals(const jeheap_profile *p, int scale, struct jeheap_counts *out);

/* pcs: leaf first, as in the file (return addresses). A non-zero return from
 * the callback stops the walk and is returned. */
typedef int (*jeheap_stack_cb)(const uint64_t *pcs, size_t npcs, const struct jeheap_counts *c,
			       void *arg);
int jeheap_profile_foreach_stack(const jeheap_profile *p, int scale, jeheap_stack_cb cb,
				 void *arg);

/* jemalloc's threads, as the header's tN: lines list them: the thread's
 * number (jemalloc's own thread uid, not the OS thread id), its name (what
 * thread.prof.name or opt.prof_sys_thread_name set; jeattach
 * --name-threads writes "comm/TID"), or NULL, and what it holds. A
 * non-zero return from the callback stops the walk and is returned. */
typedef int (*jeheap_thread_cb)(uint64_t thread, const char *name,
				const struct jeheap_counts *c, void *arg);
int jeheap_profile_foreach_thread(const jeheap_profile *p, int scale, jeheap_thread_cb cb,
				  void *arg);
/* Thread `thread`'s name, or NULL (no name, or no such thread). */
const char *jeheap_profile_thread_name(const jeheap_profile *p, uint64_t thread);
/* The number of the (first) thread named name: 0, or JEHEAP_ENOENT. */
int jeheap_profile_thread_by_name(const jeheap_profile *p, const char *name, uint64_t *thread);

/* ---- symbols ---- */
typedef struct jeheap_symbolizer jeheap_symbolizer;

/* Symbolizes addresses of profile p through its MAPPED_LIBRARIES: address ->
 * file offset -> ELF virtual address (program headers) -> .symtab or .dynsym.
 * root: a sysroot to find the files under (NULL: "/"). Each object is opened
 * and indexed once. */
int jeheap_symbolizer_new(const jeheap_profile *p, const char *root, jeheap_symbolizer **out);
/* The same for a profile of the live process pid, made just now: each
 * object is read through /proc/PID/map_files/ (the very file the process
 * mapped, even if replaced or deleted since; needs CAP_SYS_ADMIN), else
 * under /proc/PID/root (its mount namespace). */
int jeheap_symbolizer_new_pid(const jeheap_profile *p, int pid, jeheap_symbolizer **out);
void jeheap_symbolizer_free(jeheap_symbolizer *s);
/* Read the profile's main executable from path instead of the file its
 * maps name (jeprof's PROGRAM argument): the mapped file named like path,
 * else the lowest-mapped one. Before the first lookup. JEHEAP_ENOENT: the
 * profile maps no file; JEHEAP_EIO: path is not a readable regular file. */
int jeheap_symbolizer_set_program(jeheap_symbolizer *s, const char *path);

/* Objects whose addresses could not be named from their file, known once
 * the addresses were looked up (after an analysis): */
enum jeheap_object_state {
	JEHEAP_OBJECT_MISSING = 1,  /* no such file here: its addresses stay raw */
	JEHEAP_OBJECT_REPLACED = 2, /* the file there is not the one profiled (another
				     * build id; another inode on the boot that made
				     * the profile): not used, addresses stay raw */
	JEHEAP_OBJECT_NEWER = 3,    /* nothing proves it either way, but it was
				     * written after the profile: used, names may
				     * be wrong */
};
/* cb once per such object (its path, its state); a non-zero return stops
 * and is returned. */
typedef int (*jeheap_object_cb)(const char *path, int state, void *arg);
int jeheap_symbolizer_foreach_problem(const jeheap_symbolizer *s, jeheap_object_cb cb,
				      void *arg);

/* Objects that lacked line data (file:line comes from DWARF): each object
 * an address of which was looked up (jeheap_symbolize_frames, or an
 * analysis naming its stacks) and that has no DWARF, known once the
 * addresses were looked up, as jeheap_symbolizer_foreach_problem's. A
 * shared libjemalloc (whose frames analyses drop) and objects
 * jeheap_symbolizer_foreach_problem names (no file to read) are left out.
 * Since libjeheap 6 (soname libjeheap.so.4). */
enum jeheap_lines_state {
	JEHEAP_LINES_NO_DEBUG_INFO = 1, /* no DWARF in the file, nor a debug file with
					 * it where libjeheap looks (build id, then
					 * .gnu_debuglink, as gdb does) */
	JEHEAP_LINES_UNREADABLE = 2,    /* DWARF is there but could not be read
					 * (malformed, or compressed beyond the bound
					 * libjeheap inflates) */
	JEHEAP_LINES_NOT_BUILT = 3,     /* this libjeheap was built without libdw:
					 * no object has lines */
};
struct jeheap_lineless {
	const char *path;       /* the object as the profile maps it (or PROGRAM's file) */
	const char *build_id;   /* its GNU build id, lower-case hex; NULL: it has none */
	const char *debug_path; /* the build-id debug file looked for, under the
				 * symbolizer's root: "/usr/lib/debug/.build-id/"
				 * the id's first two digits "/" the rest ".debug";
				 * NULL without a build id */
	int state;              /* enum jeheap_lines_state */
};
/* cb once per such object, its strings valid during the call (path and
 * build_id as long as s). A non-zero return stops and is returned. */
typedef int (*jeheap_lineless_cb)(const struct jeheap_lineless *o, void *arg);
int jeheap_symbolizer_foreach_lineless(const jeheap_symbolizer *s, jeheap_lineless_cb cb,
				       void *arg);

/* The function containing addr (as jeprof names it), or NULL. An address
 * inside a mapped object's file but in no symbol's extent (a stripped
 * object's internal function) is named "file+0xVADDR": the object's file
 * name and the address as the file links it (addr2line -e file VADDR). */
const char *jeheap_symbolize(jeheap_symbolizer *s, uint64_t addr);

/* One frame at an address. */
struct jeheap_frame {
	const char *function; /* demangled and shortened as jeprof shows it; NULL: unknown */
	const char *file;     /* source file from DWARF, or NULL */
	unsigned long line;   /* its line, 0 when unknown */
	unsigned discriminator; /* DWARF's block discriminator of the line, 0: none */
};
/* The frames at addr: the functions inlined there, innermost first, then
 * the function containing addr. Returns how many there are (0: nothing
 * known); at most max are stored in out. The strings live as long as s.
 * Lines and inlined frames need DWARF (the object's own, or its debug
 * file's) and a libjeheap built with libdw. */
size_t jeheap_symbolize_frames(jeheap_symbolizer *s, uint64_t addr, struct jeheap_frame *out,
			       size_t max);

/* jeprof's symbolized form (its --raw): a "--- symbol" section naming,
 * through s, every address of p that jeprof looks up, "binary=" binary
 * (NULL: the one p came with, if any), then "--- heap" and text, the
 * profile as read (len bytes: a plain profile, not a symbolized one). Such
 * a file is read without the binaries, by jeheap and by jeprof. Since
 * libjeheap 4. */
int jeheap_write_symbolized(const jeheap_profile *p, jeheap_symbolizer *s, const char *binary,
			    const void *text, size_t len, FILE *out);

/* ---- analyses ---- */
enum jeheap_metric {
	JEHEAP_INUSE_SPACE = 0,
	JEHEAP_INUSE_OBJECTS = 1,
	JEHEAP_ALLOC_SPACE = 2,
	JEHEAP_ALLOC_OBJECTS = 3,
};

/* What a row or a frame of a stack stands for (jeprof --functions, --lines,
 * --addresses). Lines need DWARF; without it a line is "??:?". */
enum jeheap_granularity {
	JEHEAP_FUNCTIONS = 0, /* "function", inlined ones as "function (inline)" */
	JEHEAP_LINES = 1,     /* "function file:line" */
	JEHEAP_ADDRESSES = 2, /* "00005619... function file:line" */
};

/* What to compute, and over what. */
struct jeheap_query {
	int metric;                        /* enum jeheap_metric */
	const jeheap_profile *base;        /* subtract this profile (jeprof --base), or NULL */
	jeheap_symbolizer *base_symbolizer; /* the base's own symbolizer (its own maps) */
	const char *focus;  /* keep only stacks through a function matching this
			     * POSIX extended regex (jeprof --focus), or NULL */
	const char *ignore; /* drop stacks through a matching function, or NULL */
	int per_thread;     /* non-zero: only what jemalloc thread `thread` holds */
	uint64_t thread;    /* (its tN: lines; jeprof --thread) */
	int granularity;    /* enum jeheap_granularity */
	/* More profiles to add to the first (jeprof PROFILE PROFILE...), each
	 * with its own symbolizer (may be NULL): nmore of each. */
	const jeheap_profile *const *more;
	jeheap_symbolizer *const *more_symbolizers;
	size_t nmore;
	/* Since libjeheap 4 (soname .so.4: the struct grew). Single frames,
	 * not stacks, after the allocator's are pruned (jeprof's FilterFrames):
	 * drop the frames whose containing function matches exclude, keep only
	 * those matching retain (POSIX extended regexes, or NULL); a stack left
	 * with no frame is dropped. */
	const char *exclude;
	const char *retain;
	/* With a base: a stack the base holds more of counts as 0 rather than
	 * negative, and stacks only the base has are not subtracted (jeprof
	 * --drop_negative; stacks are matched by their addresses). */
	int drop_negative;
};

/* What the query's stacks hold before any reduction: the profile's and
 * q->more's, less q->base's, of q->metric, un-sampled (one thread's with
 * q->per_thread; after q->drop_negative). Allocator-only stacks and what
 * focus, ignore, exclude and retain drop are counted: jeprof --text's
 * "Total:" line (FilterAndPrint's TotalProfile). Since libjeheap 4. */
int jeheap_query_total(const jeheap_profile *p, const struct jeheap_query *q, double *out);

struct jeheap_top_entry {
	const char *name; /* function, or 0x... address when unknown */
	double flat, cum;
};

typedef struct jeheap_top jeheap_top;

/* jeprof --text's table: un-sampled values per function, allocator frames
 * pruned as jeprof prunes them, caller addresses minus one; sorted by flat
 * value, then name. s may be NULL (addresses only). */
int jeheap_top_new(const jeheap_profile *p, jeheap_symbolizer *s, int metric, jeheap_top **out);
/* The same for a whole query (a base, more profiles, focus or ignore, one
 * thread, a granularity). JEHEAP_EINVAL for a bad regex.
 * s (and the query's other symbolizers: q->base_symbolizer,
 * q->more_symbolizers) must outlive the result: names point into them. */
int jeheap_top_query(const jeheap_profile *p, jeheap_symbolizer *s, const struct jeheap_query *q,
		     jeheap_top **out);
void jeheap_top_free(jeheap_top *t);
double jeheap_top_total(const jeheap_top *t);
size_t jeheap_top_count(const jeheap_top *t);
const struct jeheap_top_entry *jeheap_top_entry(const jeheap_top *t, size_t i);

/* Collapsed stacks: cb once per distinct stack, in byte order of the
 * stack text ("root;...;leaf"), with its value and (with a base) the base's.
 * A non-zero return from cb stops and is returned. */
typedef int (*jeheap_collapsed_cb)(const char *stack, double value, double base_value,
				   void *arg);
int jeheap_collapsed(const jeheap_profile *p, jeheap_symbolizer *s, const struct jeheap_query *q,
		     jeheap_collapsed_cb cb, void *arg);

/* A self-contained interactive SVG flame graph of the query's metric, title
 * on top, to out. With q->base, a differential one: widths are this
 * profile, colours the change since the base (red grew, blue shrank). */
int jeheap_flamegraph_svg(const jeheap_profile *p, jeheap_symbolizer *s,
			  const struct jeheap_query *q, const char *title, FILE *out);

/* A graphviz call graph (jeprof --dot): the functions whose cumulative
 * value is at least 0.5% of the total, at most max_nodes of them (0: 80),
 * and the caller -> callee edges of at least 0.1%. */
int jeheap_dot(const jeheap_profile *p, jeheap_symbolizer *s, const struct jeheap_query *q,
	       const char *title, size_t max_nodes, FILE *out);

/* jeheap_dot with jeprof's other call-graph knobs (since libjeheap 4):
 * --nodecount (max_nodes, 0: 80), --nodefraction (node_fraction: drop
 * functions whose |cum| is below this share of the total; jeheap_dot:
 * 0.005) and --edgefraction (edge_fraction; jeheap_dot: 0.001).
 * JEHEAP_EINVAL for a negative fraction. */
struct jeheap_dot_options {
	size_t max_nodes;
	double node_fraction, edge_fraction;
};
int jeheap_dot_opts(const jeheap_profile *p, jeheap_symbolizer *s, const struct jeheap_query *q,
		    const char *title, const struct jeheap_dot_options *o, FILE *out);

/* pprof's profile.proto, gzipped, to out: the four values of a Go heap
 * profile (inuse_space by default, or the query's metric), stacks reduced
 * as for top, one location per address with its frames as lines; a base is
 * written as negative samples. Read by `go tool pprof`, Pyroscope, ... */
int jeheap_pprof(const jeheap_profile *p, jeheap_symbolizer *s, const struct jeheap_query *q,
		 FILE *out);

/* How jeheap_flamegraph_svg_opts draws: zero it, set what you want. */
struct jeheap_flame_options {
	const char *title;       /* NULL: "Heap flame graph of PROGRAM", the profile's
				  * first executable mapping */
	const char *subtitle;    /* NULL: the source, the metric, the total (and with a
				  * base the change) */
	const char *source;      /* what the profile is called (its file), for the default
				  * subtitle, or NULL */
	const char *base_source; /* the same for the query's base, or NULL */
	int inverted;            /* non-zero: an icicle graph, the root on top */
};
/* jeheap_flamegraph_svg with options (o may be NULL: all defaults). The
 * SVG has a search box (matches turn purple; the share they hold, nested
 * matches counted once), click-to-zoom with labels cut again for the new
 * widths, a reset control, values in B/KiB/MiB/GiB or objects. With
 * q->base each frame's colour is its own change (what the stacks ending in
 * it gained or lost), as flamegraph.pl's difffolded graphs colour. Text
 * from the profile is escaped, invalid UTF-8 and control characters
 * written as U+FFFD. jeheap_flamegraph_svg(p, s, q, title, out) is this
 * with only the title set. */
int jeheap_flamegraph_svg_opts(const jeheap_profile *p, jeheap_symbolizer *s,
			       const struct jeheap_query *q,
			       const struct jeheap_flame_options *o, FILE *out);

/* ---- trends over a series of dumps (since libjeheap 5) ---- */

/* Where jeheap_profile_time found the time. */
enum jeheap_time_source {
	JEHEAP_TIME_STAMP = 1, /* jeattach's dump-time stamp: CLOCK_REALTIME when
				* jemalloc's prof.dump returned */
	JEHEAP_TIME_FILE = 2,  /* the file's mtime: when it was last written (a
				* copy that did not keep times has its own) */
};
/* When profile p was dumped, in seconds since the epoch, and (source, may be
 * NULL) where that came from: jeattach's stamp if the block it appends
 * holds one, else the mtime of the file it was read from. JEHEAP_ENOENT:
 * neither (no stamp, read from memory or a stream). */
int jeheap_profile_time(const jeheap_profile *p, double *seconds, int *source);
/* 1 if p was written by jeattach --sample (its stamp block says so: the
 * sampler's objects, allocated during its window and live at its end),
 * else 0 (since libjeheap 7). */
int jeheap_profile_from_sampler(const jeheap_profile *p);

/* One dump of a series, as the caller has it. */
struct jeheap_trend_dump {
	const jeheap_profile *profile;
	jeheap_symbolizer *symbolizer; /* its own (each dump has its maps), or NULL */
	double time;      /* when it was dumped, in seconds (jeheap_profile_time) */
	const char *name; /* what to call it in an error message (its file), or NULL */
};

/* How a stack's line through its values is judged (fit: R^2 of the
 * least-squares line, from 0 to 1). */
enum jeheap_trend_verdict {
	JEHEAP_TREND_GROWING = 0,   /* slope > 0 and fit >= min_fit: steady growth,
				     * the shape of a leak */
	JEHEAP_TREND_UNSTEADY = 1,  /* fit < min_fit, or no slope: noise, or flat */
	JEHEAP_TREND_SHRINKING = 2, /* slope < 0 and fit >= min_fit */
};

/* One stack of a trend (or the total: no frames), its values over time. */
struct jeheap_trend_stack {
	const char *const *frames; /* names as the query's granularity gives them,
				    * the allocating frame first */
	size_t nframes;
	const double *values; /* one per dump, in time order, un-sampled */
	double slope;         /* least squares, metric units per second */
	double fit;           /* R^2 of that line; 0 for values that do not change */
	int verdict;          /* enum jeheap_trend_verdict */
};

typedef struct jeheap_trend jeheap_trend;

/* The query's metric of each stack in each dump, stacks matched across
 * dumps by their reduced names (as jeheap_top and jeheap_collapsed reduce
 * them: allocator frames pruned, callers' addresses minus one, each dump
 * through its own symbolizer), so that a site keeps its identity across
 * dumps of one process whatever moved in memory. A stack absent from a
 * dump holds 0 there. Ranked: JEHEAP_TREND_GROWING first, then UNSTEADY,
 * then SHRINKING, each by slope, largest first (ties: first seen first).
 * n >= 2 dumps with distinct finite times, in any order (sorted here);
 * q->base and q->more must be NULL (the dumps are the inputs); min_fit in
 * [0, 1]. Errors: JEHEAP_EINVAL (too few dumps, equal or non-finite times,
 * a bad query), JEHEAP_EFORMAT (a count that un-samples to no finite
 * number: an absurd profile), JEHEAP_ENOMEM; ei (may be NULL) says which
 * dump, by its name. The symbolizers must outlive the trend (its names
 * point into them). */
int jeheap_trend_new(const struct jeheap_trend_dump *dumps, size_t n,
		     const struct jeheap_query *q, double min_fit, jeheap_trend **out,
		     struct jeheap_error_info *ei);
void jeheap_trend_free(jeheap_trend *t);
size_t jeheap_trend_dump_count(const jeheap_trend *t);
/* The i-th dump in time order: its time, and its position among those given. */
double jeheap_trend_dump_time(const jeheap_trend *t, size_t i);
size_t jeheap_trend_dump_given(const jeheap_trend *t, size_t i);
size_t jeheap_trend_count(const jeheap_trend *t);
/* The stack of rank i (0: the first), or NULL past the end. */
const struct jeheap_trend_stack *jeheap_trend_stack(const jeheap_trend *t, size_t i);
/* All stacks together: each dump's sum, its slope and fit. */
const struct jeheap_trend_stack *jeheap_trend_total(const jeheap_trend *t);
/* A self-contained SVG chart: the total and the first top stacks (by rank)
 * over time, axes with units, a legend naming each line with its slope
 * and fit; title NULL: a default one. Names are escaped as for the flame
 * graph (any bytes give a well-formed document). JEHEAP_EIO on a write
 * error. */
int jeheap_trend_svg(const jeheap_trend *t, size_t top, const char *title, FILE *out);
/* ---- jemalloc's record of recent allocations (since libjeheap 5) ----
 * The file jeattach --recent writes: jemalloc 5.3's
 * experimental.prof_recent.alloc_dump JSON (its last sampled allocations,
 * each with its stack, thread and time, and where released its free's)
 * with jeattach's block added (pid, the clock jemalloc stamped the records
 * with and its reading then, the process's maps and jeattach's stamp
 * lines). jemalloc's JSON alone is read too (no names, ages from the
 * newest record). Every number and string is checked: the file comes from
 * inside the profiled process. */
typedef struct jeheap_recent jeheap_recent;

/* JEHEAP_EFORMAT with the place (line, column) for what is not such a
 * record; JEHEAP_EIO, JEHEAP_ENOENT for a file that cannot be read. A
 * record with no allocations is read (jeheap_recent_count() 0). */
int jeheap_recent_read_file(const char *path, jeheap_recent **out,
			    struct jeheap_error_info *ei);
/* buf[0..len): JSON text. */
int jeheap_recent_read_memory(const void *buf, size_t len, jeheap_recent **out,
			      struct jeheap_error_info *ei);
void jeheap_recent_free(jeheap_recent *r);

/* What the record says of itself. Times are the record's clock, in ns. */
struct jeheap_recent_info {
	uint64_t sample_interval; /* mean bytes between samples (2^lg_prof_sample) */
	int64_t recent_alloc_max; /* how many records jemalloc kept (-1: no limit) */
	size_t records, live;     /* records; those not released when recorded */
	size_t free_unknown;      /* released, but no free recorded (the freeing
				   * thread had never allocated: jemalloc records
				   * no free for it) */
	int has_jeattach;         /* jeattach's block is there: the fields below */
	long pid;
	double time;              /* when recorded, Unix seconds */
	const char *clock;        /* "monotonic" (CLOCK_MONOTONIC_COARSE) or "realtime" */
	uint64_t now;             /* the clock when recorded (no block: newest below) */
	uint64_t oldest, newest;  /* alloc_time of the first and last allocation */
};
int jeheap_recent_get_info(const jeheap_recent *r, struct jeheap_recent_info *out);

/* The record's maps and stamps as a profile of no stacks: give it to
 * jeheap_symbolizer_new (binaries checked against the stamps as a heap
 * profile's are). Lives as long as r. */
const jeheap_profile *jeheap_recent_profile(const jeheap_recent *r);

/* Name every stack of the record through s (NULL: addresses only), at a
 * granularity (enum jeheap_granularity), as heap profiles' stacks are
 * reduced: callers minus one, the allocator's and jemalloc's own frames
 * pruned. Stacks that reduce to the same names become one stack. Before
 * any call below that names a stack; again to change s or granularity.
 * s must outlive the names. */
int jeheap_recent_symbolize(jeheap_recent *r, jeheap_symbolizer *s, int granularity);

#define JEHEAP_RECENT_NONE ((size_t)-1)

/* One allocation of the record. Stacks are ids for jeheap_recent_stack. */
struct jeheap_recent_record {
	uint64_t size, usize; /* requested, and the size class given */
	int released;         /* freed before the record was taken */
	int free_known;       /* released, and the free's thread, time and stack recorded */
	uint64_t alloc_thread, free_thread;       /* jemalloc's thread uids */
	const char *alloc_thread_name, *free_thread_name; /* or NULL */
	uint64_t alloc_time, free_time;           /* ns, the record's clock */
	size_t alloc_stack, free_stack;           /* JEHEAP_RECENT_NONE: none */
};
size_t jeheap_recent_count(const jeheap_recent *r);
/* Record i (0 the oldest, as jemalloc lists them): 0, or JEHEAP_EINVAL. */
int jeheap_recent_get(const jeheap_recent *r, size_t i, struct jeheap_recent_record *out);
/* The frames of stack id (after jeheap_recent_symbolize), leaf first
 * (the allocating or freeing call first): how many; *frames points to
 * them (names live as long as r and its symbolizer). 0: an unknown id,
 * or a stack of allocator frames only. */
size_t jeheap_recent_stack(const jeheap_recent *r, size_t id, const char *const **frames);
size_t jeheap_recent_stack_count(const jeheap_recent *r);

/* cb(record index, record, arg) per record; non-zero stops and is
 * returned. */
typedef int (*jeheap_recent_cb)(size_t i, const struct jeheap_recent_record *rec, void *arg);
enum jeheap_recent_order { JEHEAP_RECENT_BY_AGE = 0, JEHEAP_RECENT_BY_SIZE = 1 };
/* The records still live when recorded and allocated at most max_age ns
 * before (0: any age), youngest first or largest first. */
int jeheap_recent_live(const jeheap_recent *r, uint64_t max_age, int order,
		       jeheap_recent_cb cb, void *arg);

/* Records grouped: counts are of the record's samples (each sampled
 * allocation once), est_* un-sampled as heap profiles' lines are
 * (jeprof's formula, per allocation of usize bytes). */
struct jeheap_recent_group {
	size_t alloc_stack, free_stack; /* free_stack: JEHEAP_RECENT_NONE unless cross-thread */
	size_t count, live, freed, cross_thread;
	uint64_t bytes, live_bytes, freed_bytes; /* usize sums */
	double est_count, est_bytes;
	uint64_t alloc_thread, free_thread; /* of the group's first record */
	const char *alloc_thread_name, *free_thread_name;
};
typedef int (*jeheap_recent_group_cb)(const struct jeheap_recent_group *g, void *arg);
enum jeheap_recent_grouping {
	JEHEAP_RECENT_BY_STACK = 0,   /* per allocation stack, all records */
	JEHEAP_RECENT_CROSS_THREAD = 1, /* freed by another thread than allocated:
					 * per (allocation stack, free stack) */
};
/* cb per group, most bytes first (then most records, then stack ids). */
int jeheap_recent_groups(const jeheap_recent *r, int grouping, jeheap_recent_group_cb cb,
			 void *arg);

/* Lifetimes (free_time - alloc_time) in log2 buckets: bucket 0 holds
 * [0, 2) ns, bucket k [2^k, 2^(k+1)) ns. */
#define JEHEAP_RECENT_BUCKETS 64
struct jeheap_recent_lifetimes {
	size_t freed, live, unknown; /* unknown: released, the free not recorded */
	size_t count[JEHEAP_RECENT_BUCKETS];
	uint64_t bytes[JEHEAP_RECENT_BUCKETS];
	uint64_t min, max, median; /* of the freed, ns */
};
/* Over all records, or only those allocated at stack (JEHEAP_RECENT_NONE:
 * all). */
int jeheap_recent_lifetimes(const jeheap_recent *r, size_t stack,
			    struct jeheap_recent_lifetimes *out);

#ifdef __cplusplus
}
#endif
#endif
