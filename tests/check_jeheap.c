/* SPDX-License-Identifier: BSD-2-Clause */
/* libjeheap: parsing (good input and every kind of bad input, with its
 * position), un-sampling, symbolization and jeprof-style pruning; the
 * dump-time stamp and the trend's line through a series of dumps. */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jeheap.h"

static jeheap_profile *p;
static struct jeheap_error_info ei;

static int read_text(const char *text)
{
	jeheap_profile_free(p);
	p = NULL;
	return jeheap_profile_read_memory(text, strlen(text), &p, &ei);
}

static jeheap_recent *rr;

static void teardown(void)
{
	jeheap_profile_free(p);
	p = NULL;
	jeheap_recent_free(rr);
	rr = NULL;
}

static const char threaded[] = "heap_v2/524288\n"
			       "  t*: 3: 3072 [0: 0]\n"
			       "  t0: 2: 2048 [0: 0]\n"
			       "  t1: 1: 1024 [0: 0] worker thread\n"
			       "@ 0x1000 0x2000 0x3000\n"
			       "  t*: 2: 2048 [4: 4096]\n"
			       "  t0: 2: 2048 [4: 4096]\n"
			       "@\n"
			       "  t*: 1: 1024 [0: 0]\n"
			       "  t1: 1: 1024 [0: 0] worker thread\n"
			       "\n"
			       "MAPPED_LIBRARIES:\n"
			       "00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n";

START_TEST(threaded_format)
{
	ck_assert_int_eq(read_text(threaded), JEHEAP_OK);
	ck_assert_int_eq(jeheap_profile_format(p), JEHEAP_FORMAT_THREADED);
	ck_assert_uint_eq(jeheap_profile_sample_period(p), 524288);
	ck_assert_uint_eq(jeheap_profile_stack_count(p), 2);
	ck_assert_str_eq(jeheap_profile_mappings(p), "00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n");
	struct jeheap_counts c;
	ck_assert_int_eq(jeheap_profile_totals(p, JEHEAP_RAW, &c), 0);
	ck_assert(c.inuse_objects == 3 && c.inuse_bytes == 3072);
	ck_assert(c.alloc_objects == 4 && c.alloc_bytes == 4096);
}
END_TEST

/* The formula of jeattach-format(5) (doc/jeattach-format.5), each line on its own before summing. */
static int count_named(uint64_t thread, const char *name, const struct jeheap_counts *c,
		       void *arg)
{
	int *seen = arg;
	ck_assert_uint_eq(thread, (uint64_t)*seen);
	ck_assert(thread == 1 ? name && !strcmp(name, "worker thread") : name == NULL);
	ck_assert(c->inuse_bytes == (thread ? 1024 : 2048));
	++*seen;
	return 0;
}

/* Names after a header thread's counts (thread.prof.name, which may hold
 * blanks): kept whole, found both ways; none on a stack's thread lines. */
START_TEST(thread_names)
{
	ck_assert_int_eq(read_text(threaded), 0);
	ck_assert_str_eq(jeheap_profile_thread_name(p, 1), "worker thread");
	ck_assert_ptr_null(jeheap_profile_thread_name(p, 0));
	ck_assert_ptr_null(jeheap_profile_thread_name(p, 7));
	uint64_t tid = 99;
	ck_assert_int_eq(jeheap_profile_thread_by_name(p, "worker thread", &tid), 0);
	ck_assert_uint_eq(tid, 1);
	ck_assert_int_eq(jeheap_profile_thread_by_name(p, "worker", &tid), JEHEAP_ENOENT);
	ck_assert_int_eq(jeheap_profile_thread_by_name(NULL, "x", &tid), JEHEAP_EINVAL);
	int seen = 0;
	ck_assert_int_eq(jeheap_profile_foreach_thread(p, JEHEAP_RAW, count_named, &seen), 0);
	ck_assert_int_eq(seen, 2);
}
END_TEST

START_TEST(unsampling)
{
	ck_assert_int_eq(read_text(threaded), JEHEAP_OK);
	struct jeheap_counts c;
	ck_assert_int_eq(jeheap_profile_totals(p, JEHEAP_UNSAMPLED, &c), 0);
	double r = 1024.0 / 524288.0, scale = 1.0 / (1.0 - exp(-r));
	double ra = 1024.0 / 524288.0, scale_a = 1.0 / (1.0 - exp(-ra));
	ck_assert_double_eq_tol(c.inuse_bytes, 2048 * scale + 1024 * scale, 1e-6);
	ck_assert_double_eq_tol(c.inuse_objects, 2 * scale + 1 * scale, 1e-9);
	ck_assert_double_eq_tol(c.alloc_bytes, 4096 * scale_a, 1e-6);
	/* Unsampled is much larger than raw for small objects: about R/size. */
	ck_assert(c.inuse_bytes > 3072 * 500);
}
END_TEST

START_TEST(oneline_formats)
{
	ck_assert_int_eq(read_text("heap profile:   3:  3072 [  0:     0] @ heap_v2/524288\n"
				   "     2:  2048 [     0:     0] @ 0x1 0x2\n"
				   "     1:  1024 [     0:     0] @ 0x3\n"
				   "\nMAPPED_LIBRARIES:\n"),
			 JEHEAP_OK);
	ck_assert_int_eq(jeheap_profile_format(p), JEHEAP_FORMAT_ONELINE);
	ck_assert_uint_eq(jeheap_profile_sample_period(p), 524288);
	ck_assert_uint_eq(jeheap_profile_stack_count(p), 2);
	ck_assert_int_eq(read_text("heap profile: 1: 10 [ 1: 10] @ heapprofile\n"
				   "1: 10 [1: 10] @ 0xa 0xb\n"),
			 JEHEAP_OK);
	ck_assert_uint_eq(jeheap_profile_sample_period(p), 0);
	struct jeheap_counts c;
	jeheap_profile_totals(p, JEHEAP_UNSAMPLED, &c);
	ck_assert(c.inuse_bytes == 10); /* not sampled: unchanged */
}
END_TEST

struct bad {
	const char *text;
	unsigned long line, column;
};

START_TEST(errors_have_positions)
{
	static const struct bad cases[] = {
		{ "hello\n", 1, 1 },
		{ "heap_v2/\n", 1, 9 },
		{ "heap_v2/12x\n", 1, 9 },
		{ "heap_v2/8\n@ 0x1 zz\n  t*: 1: 1 [0: 0]\n", 2, 7 },
		{ "heap_v2/8\n@ 0x1\n  t*: 1: 1 [0: 0\n", 3, 17 },
		{ "heap_v2/8\n@ 0x1\n  t*: 1 1 [0: 0]\n", 3, 9 },
		{ "heap_v2/8\n@ 0x1\n@ 0x2\n  t*: 1: 1 [0: 0]\n", 3, 1 },
		{ "heap_v2/8\n@ 0x1\n", 2, 1 },
		{ "heap_v2/8\n@ 0x1\n  t*: 1: 1 [0: 0]\n  t*: 1: 1 [0: 0]\n", 4, 1 },
		{ "heap_v2/8\n@ 0x11111111111111111\n", 2, 3 },
		{ "heap_v2/8\n  x\n", 2, 3 },
		{ "heap_v2/8\n@ 0x1\n  tq: 1: 1 [0: 0]\n", 3, 4 },
		{ "heap_v2/8\n@ 0x1\n  t*: 99999999999999999999: 1 [0: 0]\n", 3, 7 },
		{ "heap profile: 1: 1 [0: 0] @ growthz\n", 1, 29 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = read_text(cases[i].text);
		ck_assert_msg(r == JEHEAP_EFORMAT, "case %zu: %d", i, r);
		ck_assert_ptr_null(p);
		ck_assert_msg(ei.line == cases[i].line && ei.column == cases[i].column,
			      "case %zu: got %lu:%lu (%s)", i, ei.line, ei.column, ei.message);
		ck_assert(ei.message[0] != 0);
	}
	ck_assert_int_eq(jeheap_profile_read_memory("", 0, &p, &ei), JEHEAP_EFORMAT);
	ck_assert_int_eq(jeheap_profile_read_memory("heap_v2/1\n\0x", 12, &p, &ei), JEHEAP_EFORMAT);
	ck_assert_uint_eq(ei.line, 2);
	ck_assert_int_eq(jeheap_profile_read_file("/nonexistent/x.heap", &p, &ei), JEHEAP_ENOENT);
	ck_assert_int_eq(jeheap_profile_read_memory(NULL, 5, &p, &ei), JEHEAP_EINVAL);
	ck_assert_str_eq(jeheap_strerror(JEHEAP_EFORMAT),
			 "not a jemalloc heap profile, or a malformed line");
	jeheap_profile_free(NULL); /* accepted */
}
END_TEST

/* An allocator entry point by a name jeprof prunes (its skip list has
 * tc_malloc), defined here so the test does not depend on which malloc
 * (libc's, or a sanitizer's interceptor) the program uses. */
__attribute__((noinline)) void *tc_malloc(size_t n);
__attribute__((noinline)) void *tc_malloc(size_t n)
{
	void *q = malloc(n);
	__asm__ volatile("" ::: "memory");
	return q;
}

__attribute__((noinline)) void *jh_test_site(size_t n);
__attribute__((noinline)) void *jh_test_site(size_t n)
{
	void *q = tc_malloc(n);
	__asm__ volatile("" ::: "memory");
	return q;
}

/* A stack as jemalloc writes one: leaf (an address in the allocator), then
 * return addresses. The reader must name our function, prune the allocator
 * frame and count the callers once each. */
START_TEST(symbolize_and_prune)
{
	FILE *f = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(f);
	char maps[65536];
	size_t n = fread(maps, 1, sizeof(maps) - 1, f);
	maps[n] = 0;
	fclose(f);
	uint64_t in_malloc = (uint64_t)(uintptr_t)&tc_malloc + 4;
	uint64_t ret_site = (uint64_t)(uintptr_t)&jh_test_site + 9; /* minus one stays inside */
	uint64_t ret_main = (uint64_t)(uintptr_t)&jh_test_site + 9;
	char *text = malloc(n + 1024);
	snprintf(text, n + 1024,
		 "heap_v2/0\n  t*: 1: 100 [0: 0]\n"
		 "@ 0x%llx 0x%llx 0x%llx\n  t*: 1: 100 [0: 0]\n"
		 "@ 0x%llx\n  t*: 2: 50 [0: 0]\n"
		 "\nMAPPED_LIBRARIES:\n%s",
		 (unsigned long long)in_malloc, (unsigned long long)ret_site,
		 (unsigned long long)ret_main, (unsigned long long)0x10, maps);
	ck_assert_int_eq(read_text(text), JEHEAP_OK);
	free(text);
	jeheap_symbolizer *s;
	ck_assert_int_eq(jeheap_symbolizer_new(p, NULL, &s), 0);
	ck_assert_str_eq(jeheap_symbolize(s, (uint64_t)(uintptr_t)&jh_test_site + 1),
			 "jh_test_site");
	ck_assert_ptr_null(jeheap_symbolize(s, 0x10));
	jeheap_top *t;
	ck_assert_int_eq(jeheap_top_new(p, s, JEHEAP_INUSE_SPACE, &t), 0);
	ck_assert_double_eq(jeheap_top_total(t), 150);
	ck_assert_uint_eq(jeheap_top_count(t), 2);
	const struct jeheap_top_entry *e0 = jeheap_top_entry(t, 0), *e1 = jeheap_top_entry(t, 1);
	ck_assert_str_eq(e0->name, "jh_test_site"); /* tc_malloc pruned, recursion once */
	ck_assert_double_eq(e0->flat, 100);
	ck_assert_double_eq(e0->cum, 100);
	ck_assert_str_eq(e1->name, "0x0000000000000010");
	ck_assert_double_eq(e1->flat, 50);
	ck_assert_ptr_null(jeheap_top_entry(t, 2));
	jeheap_top_free(t);
	jeheap_symbolizer_free(s);
	jeheap_top_free(NULL);
	jeheap_symbolizer_free(NULL);
}
END_TEST

/* Objects without line data (jeheap_symbolizer_foreach_lineless). */
struct lineless_seen {
	int calls;
	char path[4096], build_id[80], debug_path[200];
	int state;
	int stop; /* returned from the callback */
};

static int lineless_cb(const struct jeheap_lineless *o, void *arg)
{
	struct lineless_seen *w = arg;
	w->calls++;
	snprintf(w->path, sizeof(w->path), "%s", o->path);
	snprintf(w->build_id, sizeof(w->build_id), "%s", o->build_id ? o->build_id : "");
	snprintf(w->debug_path, sizeof(w->debug_path), "%s", o->debug_path ? o->debug_path : "");
	w->state = o->state;
	return w->stop;
}

/* A profile mapping only this program's file, under the name file. */
static void profile_of_self_as(const char *exe, const char *file, uint64_t addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(f);
	char line[8192], text[65536];
	int n = snprintf(text, sizeof(text),
			 "heap_v2/0\n  t*: 1: 100 [0: 0]\n@ 0x%llx\n  t*: 1: 100 [0: 0]\n"
			 "\nMAPPED_LIBRARIES:\n",
			 (unsigned long long)addr);
	while (fgets(line, sizeof(line), f)) {
		char *path = strchr(line, '/');
		if (!path || strncmp(path, exe, strlen(exe)) || path[strlen(exe)] != '\n')
			continue;
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%.*s%s\n", (int)(path - line),
			      line, file);
		ck_assert_int_lt(n, (int)sizeof(text));
	}
	fclose(f);
	ck_assert_int_eq(read_text(text), JEHEAP_OK);
}

/* The GNU build id of file as binutils' readelf reads it. */
static void readelf_build_id(const char *file, char *id, size_t size)
{
	char cmd[4300], line[512];
	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", file);
	FILE *r = popen(cmd, "r");
	ck_assert_ptr_nonnull(r);
	id[0] = 0;
	while (fgets(line, sizeof(line), r)) {
		char *b = strstr(line, "Build ID: ");
		if (b)
			snprintf(id, size, "%.*s", (int)strcspn(b + 10, " \n"), b + 10);
	}
	ck_assert_int_eq(pclose(r), 0);
	ck_assert_uint_ge(strlen(id), 40); /* gcc's default: sha1 */
}

/* This program without its DWARF (objcopy --strip-debug: the same code,
 * symbols and build id) is reported once its address was looked up, with
 * the build-id path of its debug file; the program itself, with DWARF,
 * is not (or, in a libjeheap without libdw, as such). */
START_TEST(objects_without_lines)
{
	char exe[4096], dir[] = "/tmp/check_jeheap.XXXXXX", stripped[4200], cmd[17000];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(len, 0);
	exe[len] = 0;
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(stripped, sizeof(stripped), "%s/stripped", dir);
	/* The host's objcopy knows only its own machine (binutils is built
	 * per target): under qemu-user (tests/arm64/cross-check.sh) an
	 * aarch64 program is LLVM's to strip, where it is installed. */
	snprintf(cmd, sizeof(cmd),
		 "objcopy --strip-debug '%s' '%s' 2>/dev/null || llvm-objcopy --strip-debug '%s' '%s'",
		 exe, stripped, exe, stripped);
	if (system(cmd)) {
		fprintf(stderr, "check_jeheap: objects_without_lines skipped: neither objcopy nor "
				"llvm-objcopy can strip this program (%s)\n", exe);
		return;
	}
	uint64_t addr = (uint64_t)(uintptr_t)&jh_test_site + 1;

	profile_of_self_as(exe, stripped, addr);
	jeheap_symbolizer *s;
	ck_assert_int_eq(jeheap_symbolizer_new(p, NULL, &s), 0);
	struct lineless_seen w = { 0 };
	ck_assert_int_eq(jeheap_symbolizer_foreach_lineless(s, lineless_cb, &w), 0);
	ck_assert_int_eq(w.calls, 0); /* nothing looked up yet */
	struct jeheap_frame fr[8];
	size_t n = jeheap_symbolize_frames(s, addr, fr, 8);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(fr[0].function, "jh_test_site"); /* its .symtab stays */
	ck_assert_ptr_null(fr[0].file);
	ck_assert_uint_eq(fr[0].line, 0);
	ck_assert_int_eq(jeheap_symbolizer_foreach_lineless(s, lineless_cb, &w), 0);
	ck_assert_int_eq(w.calls, 1);
	ck_assert_str_eq(w.path, stripped);
	ck_assert_int_eq(w.state, JEHEAP_LINES_NO_DEBUG_INFO);
	char id[80], want[200];
	readelf_build_id(stripped, id, sizeof(id));
	ck_assert_str_eq(w.build_id, id);
	snprintf(want, sizeof(want), "/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2);
	ck_assert_str_eq(w.debug_path, want);
	w.stop = 7; /* a non-zero return stops and is returned */
	ck_assert_int_eq(jeheap_symbolizer_foreach_lineless(s, lineless_cb, &w), 7);
	ck_assert_int_eq(jeheap_symbolizer_foreach_lineless(s, NULL, NULL), JEHEAP_EINVAL);
	ck_assert_int_eq(jeheap_symbolizer_foreach_lineless(NULL, lineless_cb, &w), JEHEAP_EINVAL);
	jeheap_symbolizer_free(s);

	/* The program itself, built with -g (configure's CFLAGS): lines. */
	snprintf(cmd, sizeof(cmd), "readelf -S '%s' | grep -q '[.]debug_info'", exe);
	if (system(cmd) == 0) {
		profile_of_self_as(exe, exe, addr);
		ck_assert_int_eq(jeheap_symbolizer_new(p, NULL, &s), 0);
		n = jeheap_symbolize_frames(s, addr, fr, 8);
		ck_assert_uint_ge(n, 1);
		memset(&w, 0, sizeof(w));
		ck_assert_int_eq(jeheap_symbolizer_foreach_lineless(s, lineless_cb, &w), 0);
#ifdef HAVE_LIBDW
		ck_assert_uint_gt(fr[0].line, 0);
		ck_assert_int_eq(w.calls, 0);
#else
		ck_assert_int_eq(w.calls, 1);
		ck_assert_int_eq(w.state, JEHEAP_LINES_NOT_BUILT);
#endif
		jeheap_symbolizer_free(s);
	}
	ck_assert_int_eq(unlink(stripped), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static int count_stack(const uint64_t *pcs, size_t n, const struct jeheap_counts *c, void *arg)
{
	(void)pcs, (void)c;
	*(size_t *)arg += n + 1;
	return 0;
}

/* Regression (tests/fuzz/fuzz_heap.c, under UBSan): only empty stacks, so
 * no address at all in the profile. */
START_TEST(only_empty_stacks)
{
	ck_assert_int_eq(read_text("heap_v2/524288\n  t*: 1: 10 [0: 0]\n  t0: 1: 10 [0: 0] name\n"
				   "@\n  t*: 1: 10 [0: 0]\n"),
			 JEHEAP_OK);
	size_t seen = 0;
	ck_assert_int_eq(jeheap_profile_foreach_stack(p, JEHEAP_RAW, count_stack, &seen), 0);
	ck_assert_uint_eq(seen, 1);
	jeheap_top *t;
	ck_assert_int_eq(jeheap_top_new(p, NULL, JEHEAP_INUSE_SPACE, &t), 0);
	ck_assert_uint_eq(jeheap_top_count(t), 0); /* nothing to attribute it to */
	jeheap_top_free(t);
}
END_TEST

START_TEST(symbolized_form)
{
	ck_assert_int_eq(read_text("--- symbol\nbinary=/bin/x\n0x0000000000001000 leaf\n"
				   "0x1fff outer--inner--\n---\n--- heap\nheap_v2/1\n"
				   "@ 0x1000 0x2000\n  t*: 1: 8 [0: 0]\n"),
			 JEHEAP_OK);
	jeheap_symbolizer *s;
	ck_assert_int_eq(jeheap_symbolizer_new(p, "/nonexistent", &s), 0);
	ck_assert_str_eq(jeheap_symbolize(s, 0x1000), "leaf");
	ck_assert_str_eq(jeheap_symbolize(s, 0x1fff), "outer"); /* the containing function */
	struct jeheap_frame f[4];
	ck_assert_uint_eq(jeheap_symbolize_frames(s, 0x1fff, f, 4), 2);
	ck_assert_str_eq(f[0].function, "inner"); /* innermost first */
	ck_assert_str_eq(f[1].function, "outer");
	ck_assert_uint_eq(jeheap_symbolize_frames(s, 0x1fff, f, 1), 2); /* the count, one stored */
	ck_assert_str_eq(f[0].function, "inner");
	ck_assert_ptr_null(jeheap_symbolize(s, 0x2000));
	jeheap_top *t;
	ck_assert_int_eq(jeheap_top_new(p, s, JEHEAP_INUSE_OBJECTS, &t), 0);
	ck_assert_str_eq(jeheap_top_entry(t, 0)->name, "leaf");
	/* 0x2000 - 1: jeprof's TranslateStack marks all but the outer one */
	ck_assert_str_eq(jeheap_top_entry(t, 1)->name, "inner (inline)");
	ck_assert_str_eq(jeheap_top_entry(t, 2)->name, "outer");
	ck_assert(jeheap_top_entry(t, 2)->flat == 0 &&
		  jeheap_top_entry(t, 2)->cum == jeheap_top_entry(t, 0)->flat);
	jeheap_top_free(t);
	jeheap_symbolizer_free(s);
	ck_assert_int_eq(read_text("--- symbol\n0x10 a\n---\n--- cpu\n"), JEHEAP_EFORMAT);
	ck_assert_uint_eq(ei.line, 4);
	ck_assert_int_eq(read_text("--- symbol\nnot a symbol\n"), JEHEAP_EFORMAT);
	ck_assert_uint_eq(ei.line, 2);
	ck_assert_int_eq(read_text("--- symbol\n0x10 a\n"), JEHEAP_EFORMAT);
}
END_TEST

/* Names are shown as jeprof shows them: demangled, then ShortFunctionName
 * (argument lists, template arguments and a leading return type removed). */
START_TEST(display_names)
{
	ck_assert_int_eq(read_text("--- symbol\n"
				   "0x1000 _ZN3foo3barEi\n"
				   "0x2000 void std::vector<int, std::allocator<int> >::push_back(int const&)\n"
				   "0x3000 ns::Klass::method(std::map<int, int>) const\n"
				   "0x4000 plain_c\n"
				   "---\n--- heap\nheap_v2/1\n@ 0x1000\n  t*: 1: 8 [0: 0]\n"),
			 JEHEAP_OK);
	jeheap_symbolizer *s;
	ck_assert_int_eq(jeheap_symbolizer_new(p, "/nonexistent", &s), 0);
#ifdef HAVE_CXA_DEMANGLE
	ck_assert_str_eq(jeheap_symbolize(s, 0x1000), "foo::bar");
#else
	ck_assert_str_eq(jeheap_symbolize(s, 0x1000), "_ZN3foo3barEi");
#endif
	ck_assert_str_eq(jeheap_symbolize(s, 0x2000), "std::vector::push_back");
	ck_assert_str_eq(jeheap_symbolize(s, 0x3000), "ns::Klass::method");
	ck_assert_str_eq(jeheap_symbolize(s, 0x4000), "plain_c");
	jeheap_symbolizer_free(s);
}
END_TEST

/* The pprof writer's output is gzip; an empty query is refused. */
START_TEST(pprof_and_dot_args)
{
	ck_assert_int_eq(read_text("heap_v2/1\n  t*: 1: 8 [0: 0]\n@ 0x10\n  t*: 1: 8 [0: 0]\n"),
			 JEHEAP_OK);
	struct jeheap_query q = { .metric = JEHEAP_INUSE_SPACE };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_int_eq(jeheap_pprof(p, NULL, &q, f), 0);
	fclose(f);
	ck_assert_uint_ge(len, 20);
	ck_assert_int_eq((unsigned char)buf[0], 0x1f);
	ck_assert_int_eq((unsigned char)buf[1], 0x8b);
	free(buf);
	q.metric = 7;
	ck_assert_int_eq(jeheap_pprof(p, NULL, &q, stdout), JEHEAP_EINVAL);
	ck_assert_int_eq(jeheap_dot(p, NULL, &q, "t", 0, stdout), JEHEAP_EINVAL);
	q.metric = 0;
	q.granularity = 9;
	ck_assert_int_eq(jeheap_dot(p, NULL, &q, "t", 0, stdout), JEHEAP_EINVAL);
	q.granularity = 0;
	q.nmore = 1; /* but no more[] */
	ck_assert_int_eq(jeheap_pprof(p, NULL, &q, stdout), JEHEAP_EINVAL);
}
END_TEST

/* Regression (tests/fuzz/fuzz_heap.c, under UBSan): objects of no bytes
 * made 1/(1 - exp(0)) = inf, then NaN, then a float-to-int overflow in the
 * differential flame graph's colours. */
/* The library's run-time version is the one its header announces (a
 * release that bumps one and not the other fails here). */
START_TEST(version_at_run_time)
{
	ck_assert_ptr_nonnull(jeheap_version());
	ck_assert_str_eq(jeheap_version(), JEHEAP_VERSION_STRING);
}
END_TEST

START_TEST(zero_byte_objects)
{
	ck_assert_int_eq(read_text("heap_v2/524288\n  t*: 5: 0 [0: 0]\n@ 0x10 0x20\n"
				   "  t*: 5: 0 [0: 0]\n"),
			 JEHEAP_OK);
	struct jeheap_counts c;
	ck_assert_int_eq(jeheap_profile_totals(p, JEHEAP_UNSAMPLED, &c), 0);
	ck_assert(c.inuse_objects == 5 && c.inuse_bytes == 0);
	FILE *null = fopen("/dev/null", "w");
	ck_assert_ptr_nonnull(null);
	struct jeheap_query q = { .metric = JEHEAP_INUSE_OBJECTS, .base = p };
	ck_assert_int_eq(jeheap_flamegraph_svg(p, NULL, &q, "t", null), 0);
	ck_assert_int_eq(jeheap_dot(p, NULL, &q, "t", 0, null), 0);
	fclose(null);
}
END_TEST

/* The flame graph's options and text: the title given, the default one
 * from the symbolized form's binary, names escaped (invalid UTF-8 and
 * control bytes as U+FFFD), values in human units, an icicle. */
static char *flame_text(const struct jeheap_flame_options *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	jeheap_symbolizer *s;
	ck_assert_int_eq(jeheap_symbolizer_new(p, "/nonexistent", &s), 0);
	struct jeheap_query q = { .metric = JEHEAP_INUSE_SPACE };
	ck_assert_int_eq(jeheap_flamegraph_svg_opts(p, s, &q, o, f), 0);
	fclose(f);
	jeheap_symbolizer_free(s);
	return buf;
}

START_TEST(flame_options)
{
	ck_assert_int_eq(read_text("--- symbol\nbinary=/bin/x&y\n0x0000000000001000 a&\xff\x01z\n"
				   "0x1fff caller\n---\n--- heap\nheap_v2/1\n"
				   "@ 0x1000 0x2000\n  t*: 1: 2048 [0: 0]\n"),
			 JEHEAP_OK);
	struct jeheap_flame_options o = { .title = "<t>", .source = "p.heap", .inverted = 1 };
	char *svg = flame_text(&o);
	ck_assert_ptr_nonnull(strstr(svg, ">&lt;t&gt;</text>"));
	ck_assert_ptr_nonnull(strstr(svg, ">p.heap: inuse_space, total 2.00 KiB</text>"));
	ck_assert_ptr_nonnull(strstr(svg, "data-n=\"a&amp;\xef\xbf\xbd\xef\xbf\xbdz\""));
	ck_assert_ptr_nonnull(strstr(svg, "<title>caller (2.00 KiB, 100.00%)</title>"));
	ck_assert_ptr_nonnull(strstr(svg, "data-inverted=\"1\""));
	ck_assert_ptr_null(strstr(svg, "\xff"));
	free(svg);
	svg = flame_text(NULL);
	ck_assert_ptr_nonnull(strstr(svg, ">Heap flame graph of /bin/x&amp;y</text>"));
	ck_assert_ptr_nonnull(strstr(svg, "data-inverted=\"0\""));
	free(svg);
}
END_TEST

/* The record of recent allocations (jeheap_recent_*): jemalloc 5.3's JSON
 * (prof_recent_alloc_dump_node's keys), without jeattach's block. */
static const char recent[] =
	"{\"sample_interval\":1024,\"recent_alloc_max\":10,\"recent_alloc\":["
	/* live, thread 1 named with an escape */
	"{\"size\":100,\"usize\":112,\"released\":false,\"alloc_thread_uid\":1,"
	"\"alloc_thread_name\":\"w\\u00e9\",\"alloc_time\":1000,"
	"\"alloc_trace\":[\"0x10\",\"0x20\"]},"
	/* freed 1000 ns later by its own thread */
	"{\"size\":4096,\"usize\":4096,\"released\":true,\"alloc_thread_uid\":1,"
	"\"alloc_time\":2000,\"alloc_trace\":[\"0x10\",\"0x20\"],\"dalloc_thread_uid\":1,"
	"\"dalloc_time\":3000,\"dalloc_trace\":[\"0x30\"]},"
	/* freed by thread 2, 2^20 ns later */
	"{\"size\":8,\"usize\":8,\"released\":true,\"alloc_thread_uid\":1,\"alloc_time\":3000,"
	"\"alloc_trace\":[\"0x40\"],\"dalloc_thread_uid\":2,\"dalloc_time\":1051576,"
	"\"dalloc_trace\":[\"0x50\",\"0x60\"],\"later_key\":{\"x\":[1,2]}},"
	/* released, the free not recorded */
	"{\"size\":8,\"usize\":8,\"released\":true,\"alloc_thread_uid\":2,\"alloc_time\":4000,"
	"\"alloc_trace\":[\"0x40\"]}]}";

static int read_recent(const char *text)
{
	jeheap_recent_free(rr);
	rr = NULL;
	return jeheap_recent_read_memory(text, strlen(text), &rr, &ei);
}

static int count_group(const struct jeheap_recent_group *g, void *arg)
{
	struct jeheap_recent_group *first = arg;
	if (!first->count)
		*first = *g;
	first[1].count++;
	return 0;
}

static int count_live(size_t i, const struct jeheap_recent_record *rec, void *arg)
{
	(void)rec;
	*(size_t *)arg = *(size_t *)arg * 10 + i + 1;
	return 0;
}

START_TEST(recent_records)
{
	ck_assert_int_eq(read_recent(recent), 0);
	struct jeheap_recent_info in;
	ck_assert_int_eq(jeheap_recent_get_info(rr, &in), 0);
	ck_assert_uint_eq(in.records, 4);
	ck_assert_uint_eq(in.live, 1);
	ck_assert_uint_eq(in.sample_interval, 1024);
	ck_assert_int_eq(in.has_jeattach, 0);
	ck_assert_uint_eq(in.oldest, 1000);
	ck_assert_uint_eq(in.now, 4000); /* no block: the newest allocation */
	struct jeheap_recent_record rec;
	ck_assert_int_eq(jeheap_recent_get(rr, 0, &rec), 0);
	ck_assert_str_eq(rec.alloc_thread_name, "w\xc3\xa9");
	ck_assert_uint_eq(rec.alloc_stack, JEHEAP_RECENT_NONE); /* not symbolized yet */
	ck_assert_int_eq(jeheap_recent_symbolize(rr, NULL, JEHEAP_FUNCTIONS), 0);
	ck_assert_int_eq(jeheap_recent_get(rr, 1, &rec), 0);
	ck_assert_int_eq(rec.free_known, 1);
	const char *const *f;
	/* the caller's return address minus one, as for heap profiles */
	ck_assert_uint_eq(jeheap_recent_stack(rr, rec.alloc_stack, &f), 2);
	ck_assert_str_eq(f[0], "0x0000000000000010");
	ck_assert_str_eq(f[1], "0x000000000000001f");
	ck_assert_int_eq(jeheap_recent_get(rr, 3, &rec), 0);
	ck_assert_int_eq(rec.released && !rec.free_known, 1);
	ck_assert_int_eq(jeheap_recent_get(rr, 4, &rec), JEHEAP_EINVAL);

	struct jeheap_recent_group g[2] = { { 0 } };
	ck_assert_int_eq(jeheap_recent_groups(rr, JEHEAP_RECENT_BY_STACK, count_group, g), 0);
	ck_assert_uint_eq(g[1].count, 2); /* 0x10 0x20, and 0x40 */
	ck_assert_uint_eq(g[0].bytes, 4208); /* most bytes first */
	ck_assert_uint_eq(g[0].live, 1);
	memset(g, 0, sizeof(g));
	ck_assert_int_eq(jeheap_recent_groups(rr, JEHEAP_RECENT_CROSS_THREAD, count_group, g), 0);
	ck_assert_uint_eq(g[1].count, 1);
	ck_assert_uint_eq(g[0].alloc_thread, 1);
	ck_assert_uint_eq(g[0].free_thread, 2);
	ck_assert_uint_eq(jeheap_recent_stack(rr, g[0].free_stack, &f), 2);

	struct jeheap_recent_lifetimes lt;
	ck_assert_int_eq(jeheap_recent_lifetimes(rr, JEHEAP_RECENT_NONE, &lt), 0);
	ck_assert_uint_eq(lt.freed, 2);
	ck_assert_uint_eq(lt.live, 1);
	ck_assert_uint_eq(lt.unknown, 1);
	ck_assert_uint_eq(lt.count[9], 1);  /* 1000 ns: [512, 1024) */
	ck_assert_uint_eq(lt.count[20], 1); /* 2^20 ns */
	ck_assert_uint_eq(lt.min, 1000);

	size_t order = 0;
	ck_assert_int_eq(jeheap_recent_live(rr, 0, JEHEAP_RECENT_BY_AGE, count_live, &order), 0);
	ck_assert_uint_eq(order, 1); /* record 0 only */
	order = 0;
	/* its age is 3000 ns (now: 4000) */
	ck_assert_int_eq(jeheap_recent_live(rr, 2999, JEHEAP_RECENT_BY_AGE, count_live, &order), 0);
	ck_assert_uint_eq(order, 0);
}
END_TEST

/* Every fault is an error with its place; nothing is trusted. */
START_TEST(recent_errors)
{
	static const struct {
		const char *text, *message;
		unsigned long line, column;
	} bad[] = {
		{ "", "empty", 1, 1 },
		{ "heap_v2/1\n", "a heap profile", 1, 1 },
		{ "{\"sample_interval\":1024,\n \"recent_alloc\":[{\"size\":}]}", "expected a value",
		  2, 26 },
		{ "{\"sample_interval\":1024,\"recent_alloc\":[", "truncated", 1, 41 },
		/* cut inside a word or a number: truncated too, not a bad value
		 * (t_recent_jeheap cuts a real record at its middle) */
		{ "{\"sample_interval\":1024,\"recent_alloc\":[{\"released\":tr", "truncated", 0, 0 },
		{ "{\"sample_interval\":1024,\"recent_alloc\":[{\"size\":-", "truncated", 0, 0 },
		{ "{\"sample_interval\":1024,\"recent_alloc\":[{\"size\":1.", "truncated", 0, 0 },
		{ "{\"sample_interval\":1024,\"recent_alloc\":[{\"size\":1e+", "truncated", 0, 0 },
		{ "{\"sample_interval\":1024,\"recent_alloc\":[{\"size\":trux}]}", "expected a value",
		  0, 0 },
		{ "{\"sample_interval\":10", "truncated", 0, 0 },
		{ "{\"sample_interval\":1024,\"x\":\"a\\", "truncated", 0, 0 },
		{ "{\"sample_interval\":1024,\"x\":\"a\\u00", "truncated", 0, 0 },
		{ "{\"sample_interval\":1024,\"x\":\"a\\ud83d\\u", "truncated", 0, 0 },
		{ "{\"sample_interval\":1024,\"x\":\"a\\ud83dx\"}", "invalid \\u", 0, 0 },
		{ "{\"sample_interval\":1024,\"x\":\"a\\q\"}", "invalid escape", 0, 0 },
		{ "{\"sample_interval\":3,\"recent_alloc\":[]}", "not a power of two", 1, 21 },
		{ "{\"sample_interval\":1024,\"recent_alloc\":[{\"size\":1}]}", "has no usize", 0, 0 },
		{ "{\"sample_interval\":1024,\"recent_alloc\":[],\"x\":\"\\ud800\"}", "invalid \\u", 0,
		  0 },
		{ "{\"sample_interval\":1024,\"recent_alloc\":[]} x", "text after the value", 0, 0 },
		/* jeattach's block: a key twice is refused like jemalloc's (the
		 * second clock was taken over the first) */
		{ "{\"sample_interval\":1024,\"recent_alloc\":[],\"jeattach\":{\"clock\":\"monotonic\","
		  "\"clock_now_ns\":1,\"clock\":\"realtime\"}}",
		  "jeattach: clock given twice", 1, 99 },
		{ "[1]", "not a JSON object", 1, 1 },
		{ " \n x", "not a JSON object", 2, 2 },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(read_recent(bad[i].text), JEHEAP_EFORMAT);
		ck_assert_ptr_null(rr);
		ck_assert_msg(strstr(ei.message, bad[i].message), "%zu: %s", i, ei.message);
		if (bad[i].line)
			ck_assert_msg(ei.line == bad[i].line && ei.column == bad[i].column,
				      "%zu: %lu:%lu %s", i, ei.line, ei.column, ei.message);
	}
	/* nesting deeper than core_jpull's bound, under a key skipped */
	char deep[200] = "{\"x\":";
	memset(deep + 5, '[', 100);
	ck_assert_int_eq(read_recent(deep), JEHEAP_EFORMAT);
	ck_assert_ptr_nonnull(strstr(ei.message, "nested too deep"));
	/* an empty record is read: the caller decides */
	ck_assert_int_eq(read_recent("{\"sample_interval\":1,\"recent_alloc\":[]}"), 0);
	ck_assert_uint_eq(jeheap_recent_count(rr), 0);
	jeheap_recent_free(rr);
	rr = NULL;
	jeheap_recent_free(NULL);
}
END_TEST

/* A dump of the trend series: stacks 0x1000 (grows 2000 B per dump, 10 s
 * apart), 0x3000 (constant), 0x4000 (shrinks), 0x5000 (swings). Every
 * allocation sampled (heap_v2/1): un-sampling leaves the values exact. */
static jeheap_profile *trend_dump(int k)
{
	static const long swing[] = { 1000, 9000, 1000, 9000 };
	char text[512];
	long a = 1000 + 2000L * k, c = 8000 - 2000L * k, d = swing[k];
	snprintf(text, sizeof(text),
		 "heap_v2/1\n  t*: 4: %ld [0: 0]\n"
		 "@ 0x1000\n  t*: 1: %ld [0: 0]\n@ 0x3000\n  t*: 1: 5000 [0: 0]\n"
		 "@ 0x4000\n  t*: 1: %ld [0: 0]\n@ 0x5000\n  t*: 1: %ld [0: 0]\n",
		 a + c + d + 5000, a, c, d);
	jeheap_profile *q = NULL;
	ck_assert_int_eq(jeheap_profile_read_memory(text, strlen(text), &q, &ei), 0);
	return q;
}

START_TEST(trend_slope_and_fit)
{
	/* Given out of time order: the trend sorts by time. */
	static const int at[] = { 2, 0, 3, 1 };
	struct jeheap_trend_dump d[4];
	jeheap_profile *ps[4];
	for (int i = 0; i < 4; i++) {
		ps[i] = trend_dump(at[i]);
		d[i] = (struct jeheap_trend_dump){ ps[i], NULL, 1700000000.0 + 10 * at[i], NULL };
	}
	const struct jeheap_query q = { .metric = JEHEAP_INUSE_SPACE };
	jeheap_trend *t;
	ck_assert_int_eq(jeheap_trend_new(d, 4, &q, 0.9, &t, &ei), 0);
	ck_assert_uint_eq(jeheap_trend_dump_count(t), 4);
	ck_assert_uint_eq(jeheap_trend_dump_given(t, 0), 1);
	ck_assert_double_eq(jeheap_trend_dump_time(t, 3), 1700000030.0);
	ck_assert_uint_eq(jeheap_trend_count(t), 4);
	/* Steady growth first; then no steady trend by slope (the swing,
	 * R^2 = 80000^2 / (500 * 64e6) = 0.2, before the constant); the
	 * steady shrinking last. */
	static const char *const names[] = { "0x0000000000001000", "0x0000000000005000",
					     "0x0000000000003000", "0x0000000000004000" };
	static const double slopes[] = { 200, 160, 0, -200 }, fits[] = { 1, 0.2, 0, 1 };
	static const int verdicts[] = { JEHEAP_TREND_GROWING, JEHEAP_TREND_UNSTEADY,
					JEHEAP_TREND_UNSTEADY, JEHEAP_TREND_SHRINKING };
	for (size_t i = 0; i < 4; i++) {
		const struct jeheap_trend_stack *s = jeheap_trend_stack(t, i);
		ck_assert_uint_eq(s->nframes, 1);
		ck_assert_str_eq(s->frames[0], names[i]);
		ck_assert_double_eq_tol(s->slope, slopes[i], 1e-9);
		ck_assert_double_eq_tol(s->fit, fits[i], 1e-12);
		ck_assert_int_eq(s->verdict, verdicts[i]);
	}
	ck_assert_double_eq(jeheap_trend_stack(t, 0)->values[3], 7000);
	ck_assert_ptr_null(jeheap_trend_stack(t, 4));
	const struct jeheap_trend_stack *total = jeheap_trend_total(t);
	ck_assert_double_eq_tol(total->slope, 160, 1e-9);
	ck_assert_double_eq(total->values[0], 1000 + 5000 + 8000 + 1000);
	jeheap_trend_free(t);

	/* Too few dumps, two at one time, a time that is no number, a fit
	 * threshold past 1. */
	ck_assert_int_eq(jeheap_trend_new(d, 1, &q, 0.9, &t, &ei), JEHEAP_EINVAL);
	ck_assert_ptr_null(t);
	d[2].time = d[0].time;
	d[0].name = "a.heap";
	d[2].name = "c.heap";
	ck_assert_int_eq(jeheap_trend_new(d, 4, &q, 0.9, &t, &ei), JEHEAP_EINVAL);
	ck_assert_str_eq(ei.message, "a.heap: made at the same time as c.heap");
	d[2].time = NAN;
	ck_assert_int_eq(jeheap_trend_new(d, 4, &q, 0.9, &t, &ei), JEHEAP_EINVAL);
	ck_assert_int_eq(jeheap_trend_new(d, 2, &q, 1.5, &t, &ei), JEHEAP_EINVAL);
	for (int i = 0; i < 4; i++)
		jeheap_profile_free(ps[i]);
}
END_TEST

START_TEST(trend_absurd_counts)
{
	/* 2^64 - 1 objects of 1 byte in all: un-sampling divides by
	 * 1 - exp(-tiny) = 0, no finite number. */
	static const char absurd[] = "heap_v2/524288\n  t*: 1: 1 [0: 0]\n"
				     "@ 0x1000\n  t*: 18446744073709551615: 1 [0: 0]\n";
	jeheap_profile *a = NULL, *b = NULL;
	ck_assert_int_eq(jeheap_profile_read_memory(absurd, strlen(absurd), &a, &ei), 0);
	b = trend_dump(0);
	const struct jeheap_trend_dump d[2] = { { b, NULL, 1, "b.heap" }, { a, NULL, 2, "a.heap" } };
	const struct jeheap_query q = { .metric = JEHEAP_INUSE_SPACE };
	jeheap_trend *t;
	ck_assert_int_eq(jeheap_trend_new(d, 2, &q, 0.9, &t, &ei), JEHEAP_EFORMAT);
	ck_assert_ptr_nonnull(strstr(ei.message, "a.heap: a stack's count"));
	jeheap_profile_free(a);
	jeheap_profile_free(b);
}
END_TEST

START_TEST(dump_time_stamp)
{
	static const char maps[] = "heap_v2/1\n  t*: 0: 0 [0: 0]\n\nMAPPED_LIBRARIES:\n"
				   "00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n";
	static const char boot[] = "# jeattach boot-id 00000000-0000-0000-0000-000000000000\n";
	static const char stamp[] = "# jeattach dump-time 1700000000.500000000\n";
	char text[1024];
	double sec = 0;
	int source = 0;
	snprintf(text, sizeof(text), "%s%s%s", maps, boot, stamp);
	ck_assert_int_eq(read_text(text), 0);
	ck_assert_int_eq(jeheap_profile_time(p, &sec, &source), 0);
	ck_assert_double_eq(sec, 1700000000.5);
	ck_assert_int_eq(source, JEHEAP_TIME_STAMP);
	/* Followed by a maps line, it was the process's own text; malformed
	 * (the fraction not 9 digits), it is no stamp. Read from memory,
	 * there is no file time either. */
	snprintf(text, sizeof(text), "%s%s%s%s", maps, boot, stamp,
		 "00500000-00501000 r-xp 00000000 08:01 2 /bin/y\n");
	ck_assert_int_eq(read_text(text), 0);
	ck_assert_int_eq(jeheap_profile_time(p, &sec, &source), JEHEAP_ENOENT);
	snprintf(text, sizeof(text), "%s%s# jeattach dump-time 1700000000.5\n", maps, boot);
	ck_assert_int_eq(read_text(text), 0);
	ck_assert_int_eq(jeheap_profile_time(p, &sec, &source), JEHEAP_ENOENT);
}
END_TEST

/* --sample's profiles say so in the stamp block; a line the process wrote
 * before jeattach's block, or another source's name, does not count. */
START_TEST(sampler_source_stamp)
{
	static const char maps[] = "heap_v2/1\n  t*: 0: 0 [0: 0]\n\nMAPPED_LIBRARIES:\n"
				   "00400000-00401000 r-xp 00000000 08:01 1 /bin/x\n";
	static const char boot[] = "# jeattach boot-id 00000000-0000-0000-0000-000000000000\n";
	char text[1024];
	snprintf(text, sizeof(text), "%s%s# jeattach source sampler\n", maps, boot);
	ck_assert_int_eq(read_text(text), 0);
	ck_assert_int_eq(jeheap_profile_from_sampler(p), 1);
	snprintf(text, sizeof(text), "%s# jeattach source sampler\n%s", maps, boot);
	ck_assert_int_eq(read_text(text), 0);
	ck_assert_int_eq(jeheap_profile_from_sampler(p), 0);
	snprintf(text, sizeof(text), "%s%s# jeattach source samplers\n", maps, boot);
	ck_assert_int_eq(read_text(text), 0);
	ck_assert_int_eq(jeheap_profile_from_sampler(p), 0);
	snprintf(text, sizeof(text), "%s%s", maps, boot);
	ck_assert_int_eq(read_text(text), 0);
	ck_assert_int_eq(jeheap_profile_from_sampler(p), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("jeheap");
	TCase *tc = tcase_create("parse");
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, threaded_format);
	tcase_add_test(tc, unsampling);
	tcase_add_test(tc, thread_names);
	tcase_add_test(tc, oneline_formats);
	tcase_add_test(tc, errors_have_positions);
	tcase_add_test(tc, display_names);
	tcase_add_test(tc, pprof_and_dot_args);
	tcase_add_test(tc, zero_byte_objects);
	tcase_add_test(tc, flame_options);
	tcase_add_test(tc, version_at_run_time);
	tcase_add_test(tc, symbolize_and_prune);
	tcase_add_test(tc, only_empty_stacks);
	tcase_add_test(tc, objects_without_lines);
	tcase_add_test(tc, symbolized_form);
	tcase_add_test(tc, trend_slope_and_fit);
	tcase_add_test(tc, trend_absurd_counts);
	tcase_add_test(tc, sampler_source_stamp);
	tcase_add_test(tc, dump_time_stamp);
	tcase_add_test(tc, recent_records);
	tcase_add_test(tc, recent_errors);
	suite_add_tcase(s, tc);
	return check_run(s);
}
