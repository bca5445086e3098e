/* SPDX-License-Identifier: BSD-2-Clause */
/* pprof's profile.proto (github.com/google/pprof, proto/profile.proto),
 * gzipped: what `go tool pprof`, Grafana Pyroscope and Polar Signals read.
 * Sample values are the four of a Go heap profile (alloc_objects,
 * alloc_space, inuse_objects, inuse_space; inuse_space the default), each
 * stack un-sampled as jeprof does and rounded. Stacks are reduced as for
 * `top` (allocator frames pruned, --focus/--ignore, --thread); a location
 * is one address (callers' return address minus one, as pprof's own legacy
 * heap parser adjusts them) whose lines are its frames, inlined ones first,
 * as the format wants. Functions come with names, so pprof does not try to
 * symbolize (Mapping.has_functions). A base is written as negative samples,
 * which is what pprof's own -diff_base does.
 *
 * A profile with per-thread lines (jemalloc 4+) is written one sample per
 * stack and thread, from the stack's tN: lines, each un-sampled on its
 * own, with a `thread` label: the thread's name (thread.prof.name; jeattach
 * --name-threads writes "comm/TID"), or "tN" for a thread without one.
 * pprof's -tagfocus=thread=... and Pyroscope's label filters then pick a
 * thread. Each mapping carries its file's build id: as jeattach recorded
 * it at dump time, else read from the file when that is the one profiled. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "core_maps.h"
#include "core_search.h"
#include "jh_names.h"
#include "jh_protobuf.h"
#include "jh_reduce.h"
#include "jh_symbolize.h"

/* profile.proto's field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12, PROFILE_COMMENT = 13, PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3, LABEL_KEY = 1, LABEL_STR = 2,
	MAPPING_ID = 1, MAPPING_START = 2, MAPPING_LIMIT = 3, MAPPING_OFFSET = 4,
	MAPPING_FILENAME = 5, MAPPING_BUILD_ID = 6, MAPPING_HAS_FUNCTIONS = 7, MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9, MAPPING_HAS_INLINE_FRAMES = 10,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};

struct mapping {
	uint64_t start, end, offset;
	const char *path; /* into the profile's maps text */
	size_t path_len;
};

/* core_count_at_or_below's layout: the key first. */
struct map_key {
	uint64_t start;
	uint64_t end_max; /* the largest end among this and every entry before */
	size_t index;     /* into maps */
};

struct pprof {
	/* The run's entries, which --focus/--ignore match; pprof itself names
	 * functions from each address's frames. */
	struct jh_entries names;
	struct jh_pb body; /* everything but the string table, which comes last */
	struct jh_pb tmp, tmp2;
	/* strings: index 0 is "" */
	const char **strs;
	size_t nstrs, strs_cap;
	struct jh_strindex str_index;
	struct jh_pool pool;
	/* functions, keyed "name\1file" */
	const char **funcs;
	size_t nfuncs, funcs_cap;
	struct jh_strindex func_index;
	/* location id of each of the run's addresses (by address id; 0: none yet) */
	uint64_t *loc_of;
	size_t loc_of_cap;
	uint64_t nlocs;
	struct mapping *maps;
	size_t nmaps, maps_cap;
	/* The mappings by start address, for lookups (ids follow the text's
	 * order, which is what the Mapping messages carry). */
	struct map_key *by_start;
	uint64_t *ids;
	size_t ids_cap;
	int have_lines, have_inline;
	jeheap_symbolizer *sym; /* the first profile's: its build ids */
};

static const char *str_key(const void *arg, size_t i)
{
	return ((const struct pprof *)arg)->strs[i];
}

/* The string table index of s (added if new); -1 without memory. */
static int64_t str_id(struct pprof *pp, const char *s)
{
	if (jh_strindex_reserve(&pp->str_index, pp->nstrs, str_key, pp))
		return -1;
	uint32_t *slot = jh_strindex_slot(&pp->str_index, s, str_key, pp);
	if (*slot)
		return *slot - 1;
	if (jh_grow((void **)&pp->strs, &pp->strs_cap, pp->nstrs + 1, sizeof(*pp->strs)) ||
	    !(pp->strs[pp->nstrs] = jh_pool_strndup(&pp->pool, s, strlen(s))))
		return -1;
	*slot = (uint32_t)++pp->nstrs;
	return (int64_t)pp->nstrs - 1;
}

static const char *func_key(const void *arg, size_t i)
{
	return ((const struct pprof *)arg)->funcs[i];
}

/* The id of function (name, file), written out when new; 0 on error. */
static uint64_t func_id(struct pprof *pp, const char *name, const char *file)
{
	size_t nl = strlen(name), fl = file ? strlen(file) : 0;
	char *key = malloc(nl + fl + 2);
	if (!key)
		return 0;
	memcpy(key, name, nl);
	key[nl] = 1;
	memcpy(key + nl + 1, file ? file : "", fl + 1);
	uint64_t id = 0;
	if (jh_strindex_reserve(&pp->func_index, pp->nfuncs, func_key, pp))
		goto out;
	uint32_t *slot = jh_strindex_slot(&pp->func_index, key, func_key, pp);
	if (*slot) {
		id = *slot;
		goto out;
	}
	int64_t ns = str_id(pp, name), fs = str_id(pp, file ? file : "");
	if (ns < 0 || fs < 0 ||
	    jh_grow((void **)&pp->funcs, &pp->funcs_cap, pp->nfuncs + 1, sizeof(*pp->funcs)) ||
	    !(pp->funcs[pp->nfuncs] = jh_pool_strndup(&pp->pool, key, nl + fl + 1)))
		goto out;
	*slot = (uint32_t)++pp->nfuncs;
	id = pp->nfuncs;
	pp->tmp.n = 0;
	jh_pb_varint(&pp->tmp, FUNCTION_ID, id);
	jh_pb_varint(&pp->tmp, FUNCTION_NAME, (uint64_t)ns);
	jh_pb_varint(&pp->tmp, FUNCTION_SYSTEM_NAME, (uint64_t)ns);
	if (fs)
		jh_pb_varint(&pp->tmp, FUNCTION_FILENAME, (uint64_t)fs);
	jh_pb_bytes(&pp->body, PROFILE_FUNCTION, pp->tmp.d, pp->tmp.n);
out:
	free(key);
	return id;
}

static int by_start_then_index(const void *a, const void *b)
{
	const struct map_key *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int index_mappings(struct pprof *pp)
{
	if (!pp->nmaps)
		return 0;
	pp->by_start = malloc(pp->nmaps * sizeof(*pp->by_start));
	if (!pp->by_start)
		return -1;
	for (size_t i = 0; i < pp->nmaps; i++)
		pp->by_start[i] = (struct map_key){ pp->maps[i].start, pp->maps[i].end, i };
	qsort(pp->by_start, pp->nmaps, sizeof(*pp->by_start), by_start_then_index);
	for (size_t i = 1; i < pp->nmaps; i++)
		if (pp->by_start[i].end_max < pp->by_start[i - 1].end_max)
			pp->by_start[i].end_max = pp->by_start[i - 1].end_max;
	return 0;
}

/* The id of the first mapping in the text's order that holds a, 0 if none:
 * a binary search, then back over the entries that start below a while
 * one of them (end_max) may still reach it. Real mappings do not overlap:
 * that is one step; a crafted profile whose mappings all overlap costs
 * what the linear scan did. */
static uint64_t mapping_of(const struct pprof *pp, uint64_t a)
{
	size_t i = core_count_at_or_below(pp->by_start, pp->nmaps, sizeof(*pp->by_start), a);
	size_t best = SIZE_MAX;
	while (i > 0 && pp->by_start[i - 1].end_max > a) {
		const struct map_key *k = &pp->by_start[--i];
		if (a < pp->maps[k->index].end && k->index < best)
			best = k->index;
	}
	return best == SIZE_MAX ? 0 : best + 1;
}

/* The location id of address k of the run (written out when new); 0 on
 * error. */
static uint64_t location_id(struct pprof *pp, const struct jh_reduced *rs, uint32_t k)
{
	/* 0: no location yet */
	if (jh_grow_zeroed((void **)&pp->loc_of, &pp->loc_of_cap, (size_t)k + 1, sizeof(*pp->loc_of)))
		return 0;
	if (pp->loc_of[k])
		return pp->loc_of[k];
	uint64_t addr;
	size_t n;
	const struct jeheap_frame *f = jh_reduced_addr(rs, k, &addr, &n);
	uint64_t id = ++pp->nlocs;
	pp->tmp2.n = 0;
	jh_pb_varint(&pp->tmp2, LOCATION_ID, id);
	/* Only the first profile's mappings are written: another input may be
	 * another process, mapped elsewhere. */
	uint64_t m = rs->which == 0 ? mapping_of(pp, addr) : 0;
	if (m)
		jh_pb_varint(&pp->tmp2, LOCATION_MAPPING_ID, m);
	jh_pb_varint(&pp->tmp2, LOCATION_ADDRESS, addr);
	for (size_t i = 0; i < n; i++) {
		if (!f[i].function)
			continue;
		uint64_t fid = func_id(pp, f[i].function, f[i].file);
		if (!fid)
			return 0;
		uint8_t line[24];
		struct jh_pb lb = { line, 0, sizeof(line), 0 };
		jh_pb_varint(&lb, LINE_FUNCTION_ID, fid);
		if (f[i].line)
			jh_pb_varint(&lb, LINE_LINE, f[i].line);
		jh_pb_bytes(&pp->tmp2, LOCATION_LINE, lb.d, lb.n);
		pp->have_lines |= f[i].line != 0;
		pp->have_inline |= i > 0;
	}
	jh_pb_bytes(&pp->body, PROFILE_LOCATION, pp->tmp2.d, pp->tmp2.n);
	pp->loc_of[k] = id;
	return pp->body.err || pp->tmp2.err ? 0 : id;
}

/* Label{key, str: value} on the sample in pp->tmp. */
static int add_label(struct pprof *pp, const char *k, const char *v)
{
	int64_t key = str_id(pp, k), val = str_id(pp, v);
	if (key < 0 || val < 0)
		return -1;
	struct jh_pb label = { 0 };
	jh_pb_varint(&label, LABEL_KEY, (uint64_t)key);
	jh_pb_varint(&label, LABEL_STR, (uint64_t)val);
	jh_pb_bytes(&pp->tmp, SAMPLE_LABEL, label.d, label.n);
	int e = label.err;
	jh_pb_free(&label);
	return e ? -1 : 0;
}

static int add_stack(void *arg, const struct jh_reduced *rs)
{
	struct pprof *pp = arg;
	const struct jeheap_counts *c = rs->counts;
	if (jh_grow((void **)&pp->ids, &pp->ids_cap, rs->naddrs, sizeof(*pp->ids)))
		return JEHEAP_ENOMEM;
	for (size_t i = 0; i < rs->naddrs; i++)
		if (!(pp->ids[i] = location_id(pp, rs, rs->addrs[i])))
			return JEHEAP_ENOMEM;
	double sign = rs->which < 0 ? -1 : 1;
	uint64_t v[4] = {
		(uint64_t)llround(sign * c->alloc_objects), (uint64_t)llround(sign * c->alloc_bytes),
		(uint64_t)llround(sign * c->inuse_objects), (uint64_t)llround(sign * c->inuse_bytes),
	};
	pp->tmp.n = 0;
	jh_pb_packed(&pp->tmp, SAMPLE_LOCATION_ID, pp->ids, rs->naddrs);
	jh_pb_packed(&pp->tmp, SAMPLE_VALUE, v, 4);
	/* thread: its name, or "tN" for a thread without one. */
	char uid[32];
	snprintf(uid, sizeof(uid), "t%llu", (unsigned long long)rs->thread);
	if (rs->thread != UINT64_MAX && add_label(pp, "thread", rs->thread_name ? rs->thread_name : uid))
		return JEHEAP_ENOMEM;
	/* pprof's own -diff_base marks the base's samples so (fetch.go), and
	 * its reports then take percentages of the base's total
	 * (report.go computeTotal): the same numbers as pprof's diff. */
	if (rs->which < 0 && add_label(pp, "pprof::base", "true"))
		return JEHEAP_ENOMEM;
	jh_pb_bytes(&pp->body, PROFILE_SAMPLE, pp->tmp.d, pp->tmp.n);
	return pp->body.err || pp->tmp.err ? JEHEAP_ENOMEM : 0;
}

static int value_type(struct pprof *pp, unsigned field, const char *type, const char *unit)
{
	int64_t t = str_id(pp, type), u = str_id(pp, unit);
	if (t < 0 || u < 0)
		return -1;
	uint8_t buf[24];
	struct jh_pb vb = { buf, 0, sizeof(buf), 0 };
	jh_pb_varint(&vb, VALUETYPE_TYPE, (uint64_t)t);
	jh_pb_varint(&vb, VALUETYPE_UNIT, (uint64_t)u);
	jh_pb_bytes(&pp->body, field, vb.d, vb.n);
	return 0;
}

/* The first profile's executable mappings: read before the samples (to
 * tie locations to them), written after them as pprof's Mapping messages
 * (when it is known whether lines were found). */
static int add_mapping(const struct core_maps_line *l, void *arg)
{
	struct pprof *pp = arg;
	if (!l->x)
		return 0;
	if (jh_grow((void **)&pp->maps, &pp->maps_cap, pp->nmaps + 1, sizeof(*pp->maps)))
		return -1;
	pp->maps[pp->nmaps++] = (struct mapping){ l->start, l->end, l->offset, l->path,
						  l->path_len };
	return 0;
}

static int write_mappings(struct pprof *pp)
{
	for (size_t i = 0; i < pp->nmaps; i++) {
		const struct mapping *m = &pp->maps[i];
		char *path = strndup(m->path, m->path_len);
		int64_t fs = path ? str_id(pp, path) : -1;
		const char *id = path ? jh_symbolizer_build_id(pp->sym, path) : NULL;
		int64_t bs = id ? str_id(pp, id) : 0;
		free(path);
		if (fs < 0 || bs < 0)
			return -1;
		pp->tmp.n = 0;
		jh_pb_varint(&pp->tmp, MAPPING_ID, i + 1);
		jh_pb_varint(&pp->tmp, MAPPING_START, m->start);
		jh_pb_varint(&pp->tmp, MAPPING_LIMIT, m->end);
		if (m->offset)
			jh_pb_varint(&pp->tmp, MAPPING_OFFSET, m->offset);
		if (fs)
			jh_pb_varint(&pp->tmp, MAPPING_FILENAME, (uint64_t)fs);
		if (bs)
			jh_pb_varint(&pp->tmp, MAPPING_BUILD_ID, (uint64_t)bs);
		jh_pb_varint(&pp->tmp, MAPPING_HAS_FUNCTIONS, 1);
		if (pp->have_lines) {
			jh_pb_varint(&pp->tmp, MAPPING_HAS_FILENAMES, 1);
			jh_pb_varint(&pp->tmp, MAPPING_HAS_LINE_NUMBERS, 1);
		}
		if (pp->have_inline)
			jh_pb_varint(&pp->tmp, MAPPING_HAS_INLINE_FRAMES, 1);
		jh_pb_bytes(&pp->body, PROFILE_MAPPING, pp->tmp.d, pp->tmp.n);
	}
	return 0;
}

/* gzip (RFC 1952) through zlib: windowBits 15 + 16 asks deflate for the
 * gzip wrapper that pprof's reader expects. */
static int gzip_to(FILE *out, const struct jh_pb *a, const struct jh_pb *b)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return JEHEAP_ENOMEM;
	unsigned char buf[65536];
	const struct jh_pb *parts[2] = { a, b };
	int rc = 0;
	for (int i = 0; i < 2 && !rc; i++) {
		size_t done = 0;
		do {
			size_t chunk = parts[i]->n - done > (1u << 30) ? (1u << 30) : parts[i]->n - done;
			z.next_in = parts[i]->d + done;
			z.avail_in = (uInt)chunk;
			done += chunk;
			int flush = i == 1 && done == parts[i]->n ? Z_FINISH : Z_NO_FLUSH;
			int zr;
			do {
				z.next_out = buf;
				z.avail_out = sizeof(buf);
				zr = deflate(&z, flush);
				size_t have = sizeof(buf) - z.avail_out;
				if (have && fwrite(buf, 1, have, out) != have)
					rc = JEHEAP_EIO;
			} while (!rc && (z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END)));
		} while (!rc && done < parts[i]->n);
	}
	deflateEnd(&z);
	return rc;
}

JH_EXPORT int jeheap_pprof(const jeheap_profile *p, jeheap_symbolizer *s,
			   const struct jeheap_query *q, FILE *out)
{
	if (!p || !out || !jh_query_valid(q))
		return JEHEAP_EINVAL;
	struct pprof pp;
	memset(&pp, 0, sizeof(pp));
	static const char *const types[4][2] = { { "alloc_objects", "count" },
						 { "alloc_space", "bytes" },
						 { "inuse_objects", "count" },
						 { "inuse_space", "bytes" } };
	static const int metric_index[4] = { 3, 2, 1, 0 }; /* enum jeheap_metric -> types */
	int r = JEHEAP_ENOMEM;
	if (str_id(&pp, "") != 0 ||
	    core_maps_foreach(jeheap_profile_mappings(p), add_mapping, &pp) ||
	    index_mappings(&pp))
		goto out;
	for (int i = 0; i < 4; i++)
		if (value_type(&pp, PROFILE_SAMPLE_TYPE, types[i][0], types[i][1]))
			goto out;
	/* Each location's lines are its address's frames: asked of the reducer,
	 * which symbolizes every address once. */
	const struct jh_sink sink = { .stack = add_stack, .want_frames = 1, .by_thread = 1 };
	pp.sym = s;
	if ((r = jh_reduce_run(p, s, q, &sink, &pp, &pp.names)))
		goto out;
	r = JEHEAP_ENOMEM;
	if (write_mappings(&pp) || value_type(&pp, PROFILE_PERIOD_TYPE, "space", "bytes"))
		goto out;
	if (jeheap_profile_sample_period(p))
		jh_pb_varint(&pp.body, PROFILE_PERIOD, jeheap_profile_sample_period(p));
	int64_t dflt = str_id(&pp, types[metric_index[q->metric]][0]);
	int64_t note = str_id(&pp, "jemalloc heap profile; values un-sampled as jeprof does "
				   "(libjeheap " JEHEAP_VERSION_STRING ")");
	if (dflt < 0 || note < 0)
		goto out;
	jh_pb_varint(&pp.body, PROFILE_COMMENT, (uint64_t)note);
	jh_pb_varint(&pp.body, PROFILE_DEFAULT_SAMPLE_TYPE, (uint64_t)dflt);
	struct jh_pb strings = { 0 };
	for (size_t i = 0; i < pp.nstrs; i++)
		jh_pb_bytes(&strings, PROFILE_STRING_TABLE, pp.strs[i], strlen(pp.strs[i]));
	if (!pp.body.err && !strings.err)
		r = gzip_to(out, &pp.body, &strings);
	jh_pb_free(&strings);
out:
	jh_entries_free(&pp.names);
	jh_pb_free(&pp.body);
	jh_pb_free(&pp.tmp);
	jh_pb_free(&pp.tmp2);
	free(pp.strs);
	free(pp.str_index.slots);
	free(pp.funcs);
	free(pp.func_index.slots);
	jh_pool_free(&pp.pool);
	free(pp.loc_of);
	free(pp.maps);
	free(pp.by_start);
	free(pp.ids);
	return r;
}
