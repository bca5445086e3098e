/* SPDX-License-Identifier: BSD-2-Clause */
/* act_: the actions a user asks for (--status, --activate, --dump...). They
 * speak jemalloc through rctl_ and never see a register. Results are data
 * (fields and a message); the CLI decides how to show them. */
#ifndef JEATTACH_ACT_H
#define JEATTACH_ACT_H

#include <stdio.h>
#include <time.h>
#include "act_counters.h"
#include "core_clock.h"
#include "exitcode.h"
#include "rctl.h"
#include "target.h"

enum act_kind {
	ACT_STATUS, ACT_ACTIVATE, ACT_DEACTIVATE, ACT_DUMP, ACT_GET, ACT_SET,
	ACT_STATS, ACT_STATS_FULL, ACT_RESET, ACT_GDUMP, ACT_THREAD_ACTIVE_INIT, ACT_PURGE,
	ACT_DECAY,
	ACT_FOR_BEGIN, /* --for: remember prof.active, activate, maybe a baseline dump */
	ACT_FOR_END,   /* --for: put prof.active back */
	ACT_WAIT,      /* no thread held, no tracer attached: run by the CLI */
	ACT_NAME_THREADS, /* --name-threads: each thread's profile data named comm/TID */
	ACT_FRAG,         /* --frag: where the gap between allocated and resident comes from */
	ACT_RECENT_BEGIN, /* --recent N: keep the last N sampled allocations */
	ACT_RECENT_DUMP,  /* --recent: jemalloc's record of them, to a file */
	ACT_RECENT_END,   /* --recent: put the number kept back */
	ACT_SAMPLE_BEGIN, /* --sample: the sampler's hooks put in (n: mean bytes, us: window) */
	ACT_SAMPLE_END,   /* --sample: taken out; its profile to arg (--dump FILE) */
	ACT_SAMPLE_SNAPSHOT, /* --sample --every: the live samples so far to arg, no hold */
};

/* --recent N at most. jemalloc writes the record with its dump lock held
 * (prof_recent_alloc_dump holds prof_recent_dump_mtx across every
 * write_cb), into a mapping of 256 MiB (rproc.c FULL_ROOM) that strcat
 * appends to, rescanning it at every 64 KiB chunk: a record that outgrew
 * the mapping faulted inside jemalloc and left that lock taken for good
 * (every later dump of the process hung), and a large one held the thread
 * for tens of seconds. A record takes 0.5 to 4.5 KB (two traces of up to
 * 128 frames): 10,000 make at most ~45 MB. */
#define ACT_RECENT_MAX 10000
/* A profile is what the target wrote into jeattach's pipe: its size is
 * the target's choice (a thread of it can write into the pipe without end),
 * so a dump is refused past this, unless --max-dump says otherwise. 2^20
 * distinct stacks make about 0.5 GB. */
#define ACT_DEFAULT_MAX_DUMP (4ULL << 30)

/* What --activate and --for do on a jemalloc whose activation does not
 * reach threads that already allocated (5.2.x, act_rearm.c). */
enum act_rearm {
	ACT_REARM_AUTO,    /* re-arm every thread, unless samples would be lost */
	ACT_REARM_OFF,     /* --no-rearm: prof.active only (new threads sample) */
	ACT_REARM_DISCARD, /* --discard-samples: re-arm even if samples are lost */
};

/* --dump DIR/: a directory of dumps jeattach names itself (keep.h's
 * TIME.COMM.PID.SEQ.heap), with a bound on them (--keep, --keep-bytes):
 * after each dump lands, the oldest of its files beyond the bound are
 * removed (act_keep.c). */
struct act_keep {
	const char *dir;  /* as given (a trailing '/' or not) */
	uint64_t files;   /* --keep N: at most N files; 0 no bound */
	uint64_t bytes;   /* --keep-bytes SIZE: at most SIZE bytes; 0 no bound */
};

/* One step of the plan (plan.h), or an action as given on the command line. */
struct act {
	enum act_kind kind;
	/* A dump's file pattern (ACT_DUMP: --dump FILE, NULL for jemalloc's
	 * automatic name; ACT_FOR_BEGIN with baseline: FILE.base), --get NAME,
	 * --set NAME=VALUE, --gdump/--thread-active-init on|off, --reset
	 * LG_SAMPLE, --stats=full "json" for its JSON form, --frag the heap
	 * profile of --frag-profile (NULL: none) */
	const char *arg;
	int64_t us;     /* ACT_WAIT: how long */
	int baseline;   /* ACT_FOR_BEGIN: also dump, to arg */
	unsigned seq;   /* %n of a dump pattern */
	int symbolize;  /* a dump in jeprof's symbolized form (--symbolize) */
	int force;      /* a dump may replace an existing file (--force) */
	uint64_t max_bytes; /* a dump: refused past this size (--max-dump) */
	long n;             /* ACT_RECENT_BEGIN: how many allocations to keep */
	/* ACT_SAMPLE_BEGIN: how long after the window the hooks wait for
	 * jeattach to take them out before they remove themselves (it died) */
	int64_t grace_us;
	enum act_rearm rearm; /* ACT_ACTIVATE, ACT_FOR_BEGIN */
	/* ACT_DUMP into a directory (arg is then NULL), or NULL: arg says */
	const struct act_keep *keep;
};

struct act_sampler;
/* What actions of one target share across holds (--for's two halves). */
struct act_session {
	int prev_active; /* prof.active before --for: 0, 1, or -1 unknown */
	int interrupted; /* the user ended a wait early */
	/* The per-thread pass the CLI runs after this hold (cli_each.c):
	 * pass_rearm, prof.reset was done and every thread must make one
	 * profiling mallctl itself; pass_name, name each thread's data. */
	int pass_rearm, pass_name;
	/* pass_settle: --sample installed or removed jemalloc's hooks, which
	 * leaves every thread's tsd in the "recompute" state until the
	 * thread next enters jemalloc; a thread that exits before that is
	 * not cleaned up (5.2.0-5.3.x src/tsd.c tsd_cleanup has no case for
	 * tsd_state_nominal_recompute) and stays in jemalloc's list of
	 * threads after its memory is reused: the list is corrupted and a
	 * later thread's exit crashes. Each thread makes one mallctl
	 * itself, whose tsd_fetch recomputes its state. */
	int pass_settle;
	int pass_step; /* the step whose report gets the pass's fields; -1 none */
	/* Where the threads' counters are, learnt in the hold that asked for
	 * the pass: a thread whose counters read zero is not borrowed. */
	struct act_counters counters;
	int warned_inactive; /* a dump already said that profiling is off */
	/* --recent: experimental.prof_recent.alloc_max as found, to put back
	 * (recent_set: it was changed, and not put back yet). */
	int64_t recent_prev;
	int64_t recent_to; /* what jeattach set it to */
	int recent_set;
	/* --sample: the sampler put in and not taken out yet (act_sample.c). */
	struct act_sampler *sampler;
	/* prof.prefix as this run's --set gave it ("": not given): where
	 * jemalloc's own files go from then on (act_files.c). */
	char prof_prefix[4096];
};

/* Does a hold's work ask for the per-thread pass (cli_each.c)? */
static inline int act_session_pass_wanted(const struct act_session *s)
{
	return s->pass_rearm || s->pass_name || s->pass_settle;
}

struct act_field {
	char key[48];
	struct rctl_value v; /* a null string when absent */
	int bytes;           /* v.u counts bytes: human units in text on a terminal */
};

/* What act_dump leaves, during the hold, for act_dump_finish, after the
 * release: a typed value, so the finishing step never looks for what it
 * needs among the fields meant for the report. */
struct act_dump_out {
	int fd;             /* our handle on the profile, copied after release; -1: none */
	core_usec_t us;       /* time jemalloc took to write it */
	struct timespec done; /* CLOCK_REALTIME when prof.dump returned: the
			       * dump's time, stamped into the file */
	char *prof_prefix;  /* opt.prof_prefix, which starts jemalloc's automatic
			     * name (malloc'd; NULL if unreadable or unset) */
	int prof_active;    /* prof.active when it was written: 0 means it holds
			     * only samples taken before */
	uint64_t max;       /* keep at most this many bytes (--max-dump; 0: the
			     * default), set before act_dump */
	uint64_t received;  /* what jemalloc sent: more than fd holds past max */
	uint64_t pipe_ino;  /* the pipe made in the target for it (0: none), */
	long pipe_fd[2];    /* its ends' numbers there, and */
	double pipe_born;   /* when, in clock ticks since boot: the children
			     * forked since may hold its ends (act_dump_children.c) */
	/* --dump DIR/ with a bound: the files its retention removed after
	 * this dump landed, as paths (malloc'd; kept for the report until
	 * act_result_free) */
	char **removed;
	size_t nremoved;
};

/* A profile's header totals: sampled objects and bytes in use, and
 * (opt.prof_accum) ever allocated. */
struct act_totals {
	unsigned long long objs, bytes, accum_objs, accum_bytes;
};

/* What --frag collects during the hold for act_frag_finish, after the
 * release, to analyse (frag.h): nothing is parsed while a thread is held. */
struct frag_report;
struct act_frag_out {
	char *text;     /* jemalloc's JSON report (malloc'd) */
	int prof_stats; /* opt.prof_stats: 1, 0, or -1 absent (ENOENT: before 5.3) */
	int background; /* the background_thread control: 1, 0, or -1 unreadable */
	struct frag_report *report; /* its analysis (frag.h), once finished */
};

/* --stats=full: jemalloc's own report (malloc'd), in its JSON form or not. */
struct act_full_out {
	char *text;
	int json;
};

/* --recent: jemalloc's record, re-encoded (malloc'd), for act_recent_finish,
 * and its clock's reading when it was taken (nanoseconds). */
struct act_recent_out {
	char *json;
	uint64_t now_ns;
};

struct sampler_sample;
/* --sample: the sampled objects still allocated at the window's end,
 * unwound (malloc'd), for act_sample_finish. */
struct act_sample_out {
	struct sampler_sample *v;
	size_t n;
	uint64_t mean;
};

/* Which of the outputs below an action's result carries (its row's). */
enum act_out_kind {
	ACT_RES_FIELDS, /* fields only */
	ACT_RES_DUMP,   /* a profile: out.dump */
	ACT_RES_FULL,   /* out.full */
	ACT_RES_FRAG,   /* out.frag */
	ACT_RES_RECENT, /* out.recent */
	ACT_RES_SAMPLE, /* out.sample */
};

struct act_result {
	const char *action; /* "status", "activate"... */
	int ran;
	enum ja_exit code;  /* JA_EXIT_OK or why it failed */
	char msg[768];      /* "what happened: why; what to do" when code != OK */
	char warning[256];  /* the result is true but may mislead: why ("" none) */
	struct act_field *f; /* grown as fields are added */
	size_t nf, capf;
	int skipped;        /* not run: the user interrupted a periodic series */
	enum act_kind kind;
	/* Its own output beyond the fields, the one its row names (act_row's
	 * out): read through act_result_out_kind, never guessed. */
	union {
		struct act_dump_out dump;     /* --dump, --for --baseline */
		struct act_full_out full;     /* --stats=full */
		struct act_frag_out frag;     /* --frag, from the hold to the finish */
		struct act_recent_out recent; /* --recent's record */
		struct act_sample_out sample; /* --sample's live objects */
	} out;
};

/* What an action writes to a file of the user's. */
enum act_output {
	ACT_OUT_NONE,
	ACT_OUT_PROFILE, /* a heap profile: --dump, --for's --baseline */
	ACT_OUT_RECORD,  /* jemalloc's record of recent allocations: --recent-out */
};

/* One row per action (act_rows.c): what the command line and the actions
 * know of it. What runs it is act_dispatch.c's (act_run, act_finish). */
struct act_row {
	const char *name; /* in --json: "status", "dump"... */
	unsigned needs;         /* what rproc_prepare must set up: RPROC_* */
	enum act_out_kind out;  /* what its result carries beyond fields */
	enum act_output output; /* what it writes (act_step_output for a step) */
	const char *restores;   /* a series' end step: the control it puts back */
	/* What a long call makes of it, for the warning when it must run on a
	 * busy thread ("the dump will run on..."), or NULL: not long. */
	const char *long_call;
	/* Run with no thread held: it only reads the target's memory. A
	 * segment of such steps alone makes no stop. */
	int holdless;
};
const struct act_row *act_row(enum act_kind kind);
const char *act_name(enum act_kind kind);
/* What this step writes: its row's output, or a profile for --for's
 * beginning with --baseline. */
enum act_output act_step_output(const struct act *a);
/* What the step's long call makes ("dump", "full report"...), or NULL:
 * it is not known to be long (act_rows.c). */
const char *act_step_long(const struct act *a);
/* The option that names that file: "--dump", "--recent-out"; NULL none. */
const char *act_output_option(enum act_output o);
/* Before the hold, with no thread stopped: the part of the action that
 * needs none (act_run then adds the rest). */
void act_before(struct target *t, const struct act *a, struct act_result *r);
/* Run during the hold. Returns the result's code. */
enum ja_exit act_run(struct target *t, struct act_session *s, const struct act *a,
		     struct act_result *r);
/* After the target is released: work that needs no hold (writing a dump
 * to the file its step names). */
enum ja_exit act_finish(struct target *t, const struct act *a, struct act_result *r);
/* A dump's file name: %n the sequence, %p the pid, %t the time, %% a %. */
int act_expand_pattern(const char *pattern, pid_t pid, unsigned seq, char *out, size_t len);
/* Is json, the target's record of recent allocations re-encoded, one
 * object of jemalloc's three keys, each once (a thread name jemalloc
 * writes unescaped can add others)? 0 with *records the count of its
 * records; -EINVAL; -ENOMEM (act_recent.c). */
int act_recent_keys(const char *json, uint64_t *records);
/* Does the pattern give each dump of a series interval_us apart its own
 * name? %n always; %t (seconds) when they are a second or more apart. */
int act_pattern_varies(const char *pattern, int64_t interval_us);
void act_result_init(struct act_result *r, enum act_kind kind);
/* Which output r carries: its kind's row's. */
enum act_out_kind act_result_out_kind(const struct act_result *r);
/* After the release of the hold r ran in, whatever its outcome: what that
 * action must do outside the hold (a dump: close its pipe's ends in the
 * children forked meanwhile, act_dump_children.c). */
void act_after_release(struct target *t, struct act_result *r);
void act_dump_children(struct target *t, struct act_result *r);
/* Close our handle on a dump and forget it (the file is written, or given
 * up): descriptors are not kept across waits. The report's fields stay. */
void act_result_drop_dump(struct act_result *r);
void act_result_free(struct act_result *r);

/* Helpers for the act_*.c files. */
void act_field_value(struct act_result *r, const char *key, const struct rctl_value *v);
void act_field_str(struct act_result *r, const char *key, const char *s);
void act_field_u64(struct act_result *r, const char *key, uint64_t u);
/* The field named key, or NULL. */
const struct rctl_value *act_field_find(const struct act_result *r, const char *key);
/* A count of bytes (--stats, --purge): bytes in JSON, human units on a terminal. */
void act_field_bytes(struct act_result *r, const char *key, uint64_t u);
void act_field_bool(struct act_result *r, const char *key, int b);
void act_field_double(struct act_result *r, const char *key, double d);
enum ja_exit act_fail(struct act_result *r, enum ja_exit code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* One more warning on r, after those it has ("; "-joined). */
void act_result_warn(struct act_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* mallctl's own error (ENOENT, EPERM, EINVAL...), explained for ctl. */
enum ja_exit act_mallctl_error(struct target *t, struct act_result *r, const char *doing,
			       const char *ctl, int merr);
/* Map an rctl/rcall transport error to a result. */
enum ja_exit act_transport_error(struct target *t, struct act_result *r, const char *doing, int e);
/* Read a control into a field; absent (ENOENT) gives null. Returns transport error. */
int act_read_field(struct target *t, struct act_result *r, const char *key, const char *ctl);
/* Check that profiling can work here; fills r and returns non-OK if not. */
enum ja_exit act_need_prof(struct target *t, struct act_result *r, const char *doing);
/* Read a bool control: *on 1 if it is there and true. Fills r on a
 * transport error. */
enum ja_exit act_read_flag(struct target *t, struct act_result *r, const char *doing,
			   const char *ctl, int *on);
/* The environment variable that carries jemalloc's options for this prefix. */
void act_conf_var(const struct target *t, char *buf, size_t len);

/* --status: where jemalloc is and how it got there (act_status_before,
 * no thread needed), then its controls (act_status, under the hold). */
void act_status_before(struct target *t, struct act_result *r);
enum ja_exit act_status(struct target *t, struct act_result *r);
enum ja_exit act_set_active(struct target *t, struct act_session *s, const struct act *a,
			    struct act_result *r, int on);
/* prof.active=true, and on jemalloc 5.2 prof.reset and a per-thread pass
 * asked of the CLI (act_rearm.c). *previous gets prof.active's old value. */
enum ja_exit act_activate(struct target *t, struct act_session *s, enum act_rearm mode,
			  struct act_result *r, const char *doing, int *previous);
/* --name-threads: check that names can be set, and ask for the pass. */
enum ja_exit act_name_threads(struct target *t, struct act_session *s, struct act_result *r);
/* Does prof.active=true alone reach threads that already allocated on
 * jemalloc `version`? 1 yes, 0 no (5.2.x), -1 unknown (act_version.c). */
int act_activation_reaches_all(const char *version);
/* The same told by the controls that exist, for a version string that says
 * nothing (a vendored build without a VERSION file says "0.0.0"): each
 * argument 1 if this jemalloc has the control, 0 if not. *range gets the
 * releases they mark ("5.3", "5.2", "4.x-5.1"). */
int act_activation_reaches_by_controls(int prof_log_start, int opt_prof_stats,
				       int opt_prof_sys_thread_name, const char **range);
/* What a target's jemalloc is, as far as activation goes: from its version
 * string, else from its controls (read in the hold). */
struct act_release {
	int reach;       /* act_activation_reaches_all's answer: 1, 0, -1 */
	char range[16];  /* "5.2", "5.3", "4.x-5.1"..., "" when unknown */
	const char *by;  /* "version", "controls", or NULL when unknown */
	char version[64]; /* the version string, "" when unreadable */
};
/* 0, or -errno when a call could not be made. */
int act_release_of(struct target *t, struct act_release *rel);
/* The same from "version" as already read (ver, and mallctl's error merr):
 * a call fewer where the caller reads it anyway (--status). */
int act_release_from(struct target *t, const struct rctl_value *ver, int merr,
		     struct act_release *rel);
/* Under a hold of thread tid: the per-thread work of the pass (re-arm
 * and/or name). 0, or a one-line reason in why. */
int act_thread_pass(struct target *t, const struct act_session *s, pid_t tid, int *named,
		    char *why, size_t whylen);
/* Write prof.active; *previous (if given) gets the value it had. */
enum ja_exit act_write_active(struct target *t, struct act_result *r, const char *doing, int on,
			      int *previous);
enum ja_exit act_dump(struct target *t, struct act_result *r);
/* The totals of the profile behind our handle fd: 0, or -1 (no header). */
int act_dump_totals(int fd, struct act_totals *tot);
/* Make a heap_v2 profile in fd whole: its MAPPED_LIBRARIES section, if it
 * is missing or another process's (it has no mapping holding addr, the
 * target's mallctl), becomes maps. *how: who wrote the section kept
 * ("jemalloc", "jeattach"). 0, -ENOENT (needed, maps NULL), -errno. */
int act_dump_complete_maps(int fd, const char *maps, uint64_t addr, const char **how);
/* file: a pattern, or NULL for jemalloc's automatic name. */
enum ja_exit act_dump_finish(struct target *t, const struct act *a,
			     struct act_result *r);
/* Give the written temporary tmp its final name file: 0, or -errno
 * (-EEXIST: file exists and force is 0, or it is not a regular file;
 * nothing was replaced). */
int act_publish(const char *tmp, const char *file, int force);
/* The same with tmp and file relative to the directory descriptor dir
 * (AT_FDCWD: as act_publish). */
int act_publish_at(int dir, const char *tmp, const char *file, int force);
/* What the name file is when it is there and is not a regular file ("a
 * symbolic link", "a character device", "a FIFO", "a directory"...), the
 * name itself, never what a link points at (lstat); NULL when there is
 * nothing or a regular file: only those may be replaced, --force or not. */
const char *act_output_kind(const char *file);
/* A temporary file beside file, to be published as it (act_publish): its
 * descriptor, its name in tmp; -errno. */
int act_temp_beside(const char *file, char *tmp, size_t len);
/* Why a file could not be published at file (e: -errno), in one line;
 * what: "the profile", "the record"... */
enum ja_exit act_publish_error(struct act_result *r, const char *file, int e, const char *what);
/* Write file through a temporary beside it, fsync'd, then published
 * (act_publish; an existing file only with force): fn fills it through
 * out or fd (flushing out before it writes to fd), 0 or -errno. The
 * result gets "file" and "bytes"; what names it in a failure ("the
 * profile"). */
typedef int (*act_writer_fn)(FILE *out, int fd, void *arg);
enum ja_exit act_write_file(struct act_result *r, const char *file, int force, const char *what,
			    act_writer_fn fn, void *arg);
/* --dump DIR/ (act_keep.c). The directory's descriptor, opened as
 * itself: never through a symbolic link at its name (O_NOFOLLOW), only a
 * directory (O_DIRECTORY). 0 and *fd, or -errno (-ELOOP: a link). */
int act_keep_open_dir(const char *dir, int *fd);
/* Why dir cannot take dumps (e from act_keep_open_dir, or -EACCES when
 * it cannot be written): a one-line cause and fix, for "--dump DIR/". */
void act_keep_dir_why(const char *dir, int e, char *buf, size_t len);
/* The path of name in dir, as reported: dir without its trailing '/'s, '/', name. */
void act_keep_path(const char *dir, const char *name, char *buf, size_t len);
/* A new temporary file in directory fd (".jeattach-" and random
 * letters), made with O_EXCL|O_NOFOLLOW: its descriptor, its name in tmp;
 * -errno. */
int act_keep_temp(int dirfd, char *tmp, size_t len);
/* After newest (a name in dirfd) landed: the oldest files of ours beyond
 * k's bound removed, and named in r's out.dump.removed; a file that could
 * not be removed is r's warning, not a failure (the dump is written). */
void act_keep_prune(int dirfd, const struct act_keep *k, const char *newest,
		    struct act_result *r);
/* Why a system call the target made for jeattach failed (act_cause.c):
 * told from what is there, a seccomp filter blamed only where
 * /proc/PID/status shows one. call: its name; err: its errno (positive). */
void act_syscall_cause(const struct target *t, const char *call, int err, char *buf, size_t len);
/* The one-line failure of system call call that the target made for
 * jeattach and that answered -err: why, from act_syscall_cause; exit 10. */
enum ja_exit act_syscall_failed(struct target *t, struct act_result *r, const char *doing,
				const char *call, int err);
/* The profile text, symbolized from the target's binaries, to out. */
int act_write_symbolized(pid_t pid, const char *text, size_t len, FILE *out);
enum ja_exit act_stats(struct target *t, struct act_result *r);
/* config.stats is true, or r says why nothing can be reported. */
enum ja_exit act_need_stats(struct target *t, struct act_result *r, const char *doing);
/* Write "epoch": jemalloc refreshes its stats.* snapshot. */
enum ja_exit act_epoch(struct target *t, struct act_result *r, const char *doing);
enum ja_exit act_stats_full(struct target *t, int json, struct act_result *r);
/* --frag: during the hold, jemalloc's JSON report and the settings the
 * advice depends on; after the release, the analysis (and with a heap
 * profile, the sites behind the worst classes). */
enum ja_exit act_frag(struct target *t, struct act_result *r);
enum ja_exit act_frag_finish(struct target *t, const struct act *a, struct act_result *r);
/* --frag's bound on jemalloc's report: longer is refused, not cut. */
#define ACT_FRAG_MAX_REPORT (8UL << 20) /* ~40 KB from jemalloc, whatever the arenas */
enum ja_exit act_reset(struct target *t, const char *lg_sample, struct act_result *r);
enum ja_exit act_set_bool(struct target *t, struct act_session *s, const char *ctl,
			  const char *onoff, struct act_result *r);
/* Where jemalloc's own files go (act_files.c). Before prof.gdump is
 * turned on: its files' place as field "files", or refused (exit 2) while
 * the prefix is jemalloc's default. */
enum ja_exit act_files_gdump(struct target *t, const struct act_session *s, struct act_result *r,
			     const char *doing);
/* prof.prefix was set: remembered in s, its files' place as "files". */
void act_files_prefix_set(struct target *t, struct act_session *s, const char *prefix,
			  struct act_result *r);
/* prof.dump wrote file (named as the process sees it): "file", resolved. */
void act_files_dump(struct target *t, const char *file, struct act_result *r);
enum ja_exit act_arena_op(struct target *t, const char *op, struct act_result *r);
enum ja_exit act_for_begin(struct target *t, struct act_session *s, const struct act *a,
			   struct act_result *r);
enum ja_exit act_for_end(struct target *t, struct act_session *s, struct act_result *r);
/* act_sample.c: --sample's sampler put in, read while the window runs
 * (each tick of a wait, no thread stopped), taken out, written. */
enum ja_exit act_sample_begin(struct target *t, struct act_session *s, const struct act *a,
			      struct act_result *r);
void act_sample_before(struct target *t, struct act_result *r);
void act_sample_tick(struct target *t, struct act_session *s);
/* How often a wait reads the sampler's ring while one is in: its 64
 * records between two reads then hold 1,280 samples a second (at the
 * default rate, 640 MiB a second of allocation) before any is dropped. */
#define ACT_SAMPLE_TICK_US 50000
enum ja_exit act_sample_end(struct target *t, struct act_session *s, struct act_result *r);
enum ja_exit act_sample_snapshot(struct target *t, struct act_session *s, struct act_result *r);
enum ja_exit act_sample_finish(struct target *t, const struct act *a, struct act_result *r);
enum ja_exit act_recent_begin(struct target *t, struct act_session *s, const struct act *a,
			      struct act_result *r);
enum ja_exit act_recent_dump(struct target *t, struct act_result *r);
enum ja_exit act_recent_end(struct target *t, struct act_session *s, struct act_result *r);
/* After the release: the record to its file (a->arg, or an automatic name). */
enum ja_exit act_recent_finish(struct target *t, const struct act *a, struct act_result *r);
enum ja_exit act_get(struct target *t, const char *name, struct act_result *r);
enum ja_exit act_set(struct target *t, struct act_session *s, const char *assignment,
		     struct act_result *r);

#endif
