/* SPDX-License-Identifier: BSD-2-Clause */
/* The one table of jemalloc controls jeattach knows, with their C types and
 * access, from jemalloc's ctl.c and jemalloc(3) (5.x; 4.x lacks a few, which
 * then answer ENOENT). thread.* controls are left out on purpose: they would
 * act on the borrowed thread, which is not something a user can ask for
 * (the per-thread pass has its own two, rctl_lookup_thread). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core_json.h"
#include "core_list.h"
#include "core_text.h"
#include "rctl.h"

struct rctl_entry {
	const char *pattern; /* '#' stands for one decimal component */
	enum rctl_type type;
	enum rctl_access access;
};

static const struct rctl_entry table[] = {
	{ "version", RCTL_STRING, RCTL_R },
	{ "epoch", RCTL_U64, RCTL_RW },
	{ "background_thread", RCTL_BOOL, RCTL_RW },
	{ "max_background_threads", RCTL_SIZE, RCTL_RW },
	{ "config.cache_oblivious", RCTL_BOOL, RCTL_R },
	{ "config.debug", RCTL_BOOL, RCTL_R },
	{ "config.fill", RCTL_BOOL, RCTL_R },
	{ "config.lazy_lock", RCTL_BOOL, RCTL_R },
	{ "config.malloc_conf", RCTL_STRING, RCTL_R },
	{ "config.opt_safety_checks", RCTL_BOOL, RCTL_R },
	{ "config.prof", RCTL_BOOL, RCTL_R },
	{ "config.prof_libgcc", RCTL_BOOL, RCTL_R },
	{ "config.prof_libunwind", RCTL_BOOL, RCTL_R },
	{ "config.stats", RCTL_BOOL, RCTL_R },
	{ "config.utrace", RCTL_BOOL, RCTL_R },
	{ "config.xmalloc", RCTL_BOOL, RCTL_R },
	{ "opt.abort", RCTL_BOOL, RCTL_R },
	{ "opt.abort_conf", RCTL_BOOL, RCTL_R },
	{ "opt.retain", RCTL_BOOL, RCTL_R },
	{ "opt.dss", RCTL_STRING, RCTL_R },
	{ "opt.narenas", RCTL_UNSIGNED, RCTL_R },
	{ "opt.percpu_arena", RCTL_STRING, RCTL_R },
	{ "opt.oversize_threshold", RCTL_SIZE, RCTL_R },
	{ "opt.background_thread", RCTL_BOOL, RCTL_R },
	{ "opt.max_background_threads", RCTL_SIZE, RCTL_R },
	{ "opt.dirty_decay_ms", RCTL_SSIZE, RCTL_R },
	{ "opt.muzzy_decay_ms", RCTL_SSIZE, RCTL_R },
	{ "opt.stats_print", RCTL_BOOL, RCTL_R },
	{ "opt.stats_print_opts", RCTL_STRING, RCTL_R },
	{ "opt.junk", RCTL_STRING, RCTL_R },
	{ "opt.zero", RCTL_BOOL, RCTL_R },
	{ "opt.tcache", RCTL_BOOL, RCTL_R },
	{ "opt.tcache_max", RCTL_SIZE, RCTL_R },
	{ "opt.thp", RCTL_STRING, RCTL_R },
	{ "opt.metadata_thp", RCTL_STRING, RCTL_R },
	{ "opt.prof", RCTL_BOOL, RCTL_R },
	{ "opt.prof_prefix", RCTL_STRING, RCTL_R },
	{ "opt.prof_active", RCTL_BOOL, RCTL_R },
	{ "opt.prof_thread_active_init", RCTL_BOOL, RCTL_R },
	{ "opt.lg_prof_sample", RCTL_SIZE, RCTL_R },
	{ "opt.prof_accum", RCTL_BOOL, RCTL_R },
	{ "opt.prof_stats", RCTL_BOOL, RCTL_R }, /* 5.3.0+ */
	{ "opt.lg_prof_interval", RCTL_SSIZE, RCTL_R },
	{ "opt.prof_gdump", RCTL_BOOL, RCTL_R },
	{ "opt.prof_final", RCTL_BOOL, RCTL_R },
	{ "opt.prof_leak", RCTL_BOOL, RCTL_R },
	{ "opt.prof_leak_error", RCTL_BOOL, RCTL_R },
	{ "opt.prof_sys_thread_name", RCTL_BOOL, RCTL_R },
	{ "opt.prof_recent_alloc_max", RCTL_SSIZE, RCTL_R },
	{ "opt.prof_time_resolution", RCTL_STRING, RCTL_R },
	{ "experimental.prof_recent.alloc_max", RCTL_SSIZE, RCTL_RW },
	{ "opt.zero_realloc", RCTL_STRING, RCTL_R },
	{ "prof.active", RCTL_BOOL, RCTL_RW },
	{ "prof.thread_active_init", RCTL_BOOL, RCTL_RW },
	{ "prof.gdump", RCTL_BOOL, RCTL_RW },
	{ "prof.dump", RCTL_STRING, RCTL_W },
	{ "prof.prefix", RCTL_STRING, RCTL_W },
	{ "prof.reset", RCTL_SIZE, RCTL_W },
	{ "prof.lg_sample", RCTL_SIZE, RCTL_R },
	{ "prof.interval", RCTL_U64, RCTL_R },
	{ "stats.allocated", RCTL_SIZE, RCTL_R },
	{ "stats.active", RCTL_SIZE, RCTL_R },
	{ "stats.metadata", RCTL_SIZE, RCTL_R },
	{ "stats.metadata_thp", RCTL_SIZE, RCTL_R },
	{ "stats.resident", RCTL_SIZE, RCTL_R },
	{ "stats.mapped", RCTL_SIZE, RCTL_R },
	{ "stats.retained", RCTL_SIZE, RCTL_R },
	{ "stats.zero_reallocs", RCTL_SIZE, RCTL_R },
	{ "stats.background_thread.num_threads", RCTL_SIZE, RCTL_R },
	{ "stats.background_thread.num_runs", RCTL_U64, RCTL_R },
	{ "stats.arenas.#.pactive", RCTL_SIZE, RCTL_R },
	{ "stats.arenas.#.pdirty", RCTL_SIZE, RCTL_R },
	{ "stats.arenas.#.pmuzzy", RCTL_SIZE, RCTL_R },
	{ "stats.arenas.#.mapped", RCTL_SIZE, RCTL_R },
	{ "stats.arenas.#.resident", RCTL_SIZE, RCTL_R },
	{ "stats.arenas.#.nthreads", RCTL_UNSIGNED, RCTL_R },
	{ "arenas.narenas", RCTL_UNSIGNED, RCTL_R },
	/* size_t *: an address in the target, 8 bytes on LP64 (--top reads
	 * the counter behind it with process_vm_readv). */
	{ "experimental.arenas.#.pactivep", RCTL_U64, RCTL_R },
	{ "arenas.create", RCTL_UNSIGNED, RCTL_R | RCTL_EFFECT }, /* reading it creates an arena */
	{ "arenas.dirty_decay_ms", RCTL_SSIZE, RCTL_RW },
	{ "arenas.muzzy_decay_ms", RCTL_SSIZE, RCTL_RW },
	{ "arenas.quantum", RCTL_SIZE, RCTL_R },
	{ "arenas.page", RCTL_SIZE, RCTL_R },
	{ "arenas.tcache_max", RCTL_SIZE, RCTL_R },
	{ "arenas.nbins", RCTL_UNSIGNED, RCTL_R },
	{ "arenas.nhbins", RCTL_UNSIGNED, RCTL_R },
	{ "arenas.nlextents", RCTL_UNSIGNED, RCTL_R },
	{ "arena.#.purge", RCTL_VOID, RCTL_W },
	{ "arena.#.decay", RCTL_VOID, RCTL_W },
	{ "arena.#.dirty_decay_ms", RCTL_SSIZE, RCTL_RW },
	{ "arena.#.muzzy_decay_ms", RCTL_SSIZE, RCTL_RW },
};

static int matches(const char *pattern, const char *name)
{
	while (*pattern) {
		if (*pattern == '#') {
			/* An index: 1 to 10 digits (jemalloc's are unsigned). */
			const char *start = name;
			while (*name >= '0' && *name <= '9')
				name++;
			if (name == start || name - start > 10)
				return 0;
			pattern++;
			continue;
		}
		if (*pattern++ != *name++)
			return 0;
	}
	return *name == 0;
}

int rctl_lookup(const char *name, enum rctl_type *type, enum rctl_access *access)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (matches(table[i].pattern, name)) {
			*type = table[i].type;
			*access = table[i].access;
			return 0;
		}
	}
	return -ENOENT;
}

void rctl_foreach(void (*fn)(const char *name, enum rctl_type type, enum rctl_access access,
			     void *arg),
		  void *arg)
{
	/* Where jemalloc(3) says what MALLCTL_ARENAS_ALL (4096) does. */
	static const char *const all[] = { "arena.#.purge", "arena.#.decay", "stats.arenas.#." };
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		const char *p = table[i].pattern, *hash = strchr(p, '#');
		char name[128];
		int every = 0;
		for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); k++)
			every |= !strncmp(p, all[k], strlen(all[k]));
		if (hash)
			snprintf(name, sizeof(name), "%.*s%s%s", (int)(hash - p), p, every ? "4096" : "0",
				 hash + 1);
		else
			snprintf(name, sizeof(name), "%s", p);
		fn(name, table[i].type, table[i].access, arg);
	}
}

int rctl_lookup_thread(const char *name, enum rctl_type *type)
{
	static const struct rctl_entry thread_table[] = {
		{ "thread.prof.active", RCTL_BOOL, RCTL_RW },
		{ "thread.prof.name", RCTL_STRING, RCTL_RW },
		/* uint64_t *: the calling thread's counters' addresses (--top) */
		{ "thread.allocatedp", RCTL_U64, RCTL_R },
		{ "thread.deallocatedp", RCTL_U64, RCTL_R },
	};
	for (size_t i = 0; i < sizeof(thread_table) / sizeof(thread_table[0]); i++) {
		if (!strcmp(thread_table[i].pattern, name)) {
			*type = thread_table[i].type;
			return 0;
		}
	}
	return -ENOENT;
}

const char *rctl_type_name(enum rctl_type type)
{
	static const char *const names[] = { "void",     "bool",   "unsigned", "size_t",
					     "ssize_t",  "uint64_t", "string", "double" };
	return names[type];
}

/* A bool's words, read by rctl_parse and listed by rctl_accepted, so that
 * a refusal names exactly the words that would have been taken. */
static const struct {
	const char *word;
	int value;
} bool_words[] = {
	{ "true", 1 }, { "false", 0 }, { "on", 1 }, { "off", 0 }, { "1", 1 }, { "0", 0 },
};
#define NBOOL_WORDS (sizeof(bool_words) / sizeof(bool_words[0]))

int rctl_parse(enum rctl_type type, const char *text, struct rctl_value *v)
{
	memset(v, 0, sizeof(*v));
	v->type = type;
	char *end = NULL;
	errno = 0;
	switch (type) {
	case RCTL_VOID:
		return *text ? -EINVAL : 0;
	case RCTL_BOOL:
		for (size_t k = 0; k < NBOOL_WORDS; k++)
			if (!strcmp(text, bool_words[k].word)) {
				v->u = bool_words[k].value;
				return 0;
			}
		return -EINVAL;
	case RCTL_UNSIGNED:
	case RCTL_SIZE:
	case RCTL_U64:
		if (*text == '-' || !*text)
			return -EINVAL;
		v->u = strtoull(text, &end, 0);
		if (errno || *end || (type == RCTL_UNSIGNED && v->u > UINT32_MAX))
			return -EINVAL;
		return 0;
	case RCTL_SSIZE:
		v->i = strtoll(text, &end, 0);
		return errno || !*text || *end ? -EINVAL : 0;
	case RCTL_STRING:
		if (strlen(text) >= sizeof(v->s))
			return -ENAMETOOLONG;
		snprintf(v->s, sizeof(v->s), "%s", text);
		return 0;
	case RCTL_DOUBLE:
		return -EINVAL; /* never a control's type */
	}
	return -EINVAL;
}

void rctl_accepted(enum rctl_type type, char *buf, size_t len)
{
	switch (type) {
	case RCTL_VOID:
		snprintf(buf, len, "no value (NAME=)");
		return;
	case RCTL_BOOL:
		if (len)
			buf[0] = 0;
		for (size_t k = 0; k < NBOOL_WORDS; k++)
			core_list_add(buf, len, k, NBOOL_WORDS, " or ", bool_words[k].word);
		return;
	case RCTL_UNSIGNED:
		snprintf(buf, len, "a whole number from 0 to %" PRIu32 " (0x: hexadecimal)",
			 UINT32_MAX);
		return;
	case RCTL_SIZE:
	case RCTL_U64:
		snprintf(buf, len, "a whole number from 0 to %" PRIu64 " (0x: hexadecimal)",
			 UINT64_MAX);
		return;
	case RCTL_SSIZE:
		snprintf(buf, len, "a whole number from %" PRId64 " to %" PRId64, INT64_MIN,
			 INT64_MAX);
		return;
	case RCTL_STRING:
		snprintf(buf, len, "text of at most %zu bytes",
			 sizeof(((struct rctl_value *)0)->s) - 1);
		return;
	case RCTL_DOUBLE:
		snprintf(buf, len, "nothing (no control has this type)");
		return;
	}
}

void rctl_format(const struct rctl_value *v, int json, char *buf, size_t len)
{
	switch (v->type) {
	case RCTL_VOID:
		snprintf(buf, len, "%s", json ? "null" : "");
		break;
	case RCTL_BOOL:
		snprintf(buf, len, "%s", v->u ? "true" : "false");
		break;
	case RCTL_UNSIGNED:
	case RCTL_SIZE:
	case RCTL_U64:
		snprintf(buf, len, "%" PRIu64, v->u);
		break;
	case RCTL_SSIZE:
		snprintf(buf, len, "%" PRId64, v->i);
		break;
	case RCTL_DOUBLE: /* JSON has no NaN or infinity: null */
		if (v->d != v->d || v->d > 1e308 || v->d < -1e308)
			snprintf(buf, len, "%s", json ? "null" : "n/a");
		else
			snprintf(buf, len, "%.4f", v->d);
		break;
	case RCTL_STRING:
		if (v->is_null)
			snprintf(buf, len, "%s", json ? "null" : "(null)");
		else if (json)
			core_json_escape(v->s, buf, len);
		else /* a string from the target, for a terminal */
			core_text_escape(v->s, buf, len);
		break;
	}
}
