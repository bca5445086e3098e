/* SPDX-License-Identifier: BSD-2-Clause */
/* The sampler's hooks (src/sampler/parasite/), run in this process: the
 * blob jeattach would copy into a target is mapped here the same way
 * (sampler_layout), installed into this process's own jemalloc (Debian's
 * libjemalloc2) with experimental.hooks.install, and what it records is
 * checked against what the test allocated. Each test runs in its own
 * child (Check's fork mode), so a hook left installed dies with it. */
#include "config.h"

#include <check.h>
#include <jemalloc/jemalloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "check_run.h"
#include "sampler_abi.h"
#include "sampler_arch.h"
#include "sampler_blob.h"
#include "sampler_hooks.h"
#include "sampler_layout.h"
#include "sampler_profile.h"

/* The hooks run inside this process's jemalloc. Under AddressSanitizer
 * (.ci/run's sanitizer stage) malloc is ASan's, jemalloc is never called,
 * and so are the hooks: the tests that need them say so and pass. */
#if defined(__SANITIZE_ADDRESS__)
#define MALLOC_IS_ASANS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MALLOC_IS_ASANS 1
#endif
#endif
#ifndef MALLOC_IS_ASANS
#define MALLOC_IS_ASANS 0
#endif
#define NEED_JEMALLOC_MALLOC()                                                               \
	do {                                                                                 \
		if (MALLOC_IS_ASANS) {                                                       \
			fprintf(stderr, "check_sampler: %s skipped: malloc is AddressSanitizer's " \
					"here, not jemalloc's, so no hook runs\n", __func__);     \
			return;                                                              \
		}                                                                            \
	} while (0)

struct here {
	struct sampler_layout l;
	char *base;
	struct sampler_keep *k;
	struct sampler_ctl *c;
	void *handle;
};

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Can this process read its own memory with process_vm_readv? Not under
 * qemu-user, which passes the guest's addresses to the host kernel
 * untranslated (the arm64 cross-check runs there); a kernel always can. */
static int self_read_works(void)
{
	char src[16] = "stack", dst[16] = "";
	struct iovec l = { dst, sizeof(dst) }, r = { src, sizeof(src) };
	return process_vm_readv(getpid(), &l, 1, &r, 1, 0) == (ssize_t)sizeof(src) &&
	       !strcmp(dst, "stack");
}

/* Does a child of fork read zeros in a MADV_WIPEONFORK mapping? Linux
 * 4.14 and later do; qemu-user takes the advice and ignores it. */
static int wipeonfork_works(void)
{
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	*p = 1;
	int ok = !madvise(p, 4096, MADV_WIPEONFORK);
	pid_t pid = ok ? fork() : -1;
	if (!pid)
		_exit(*p == 0 ? 0 : 1);
	int st = 0;
	ok = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	munmap(p, 4096);
	return ok;
}

/* Map the sampler as jeattach maps it in a target, and install it. */
static void install(struct here *h, uint32_t nrecs, uint64_t mean, int64_t deadline_ns)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	ck_assert_int_eq(sampler_layout_plan(&h->l, page, sampler_blob_len, 64, 4096, nrecs), 0);
	h->base = mmap(NULL, h->l.total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(h->base, MAP_FAILED);
	h->k = (struct sampler_keep *)(void *)h->base;
	h->c = (struct sampler_ctl *)(void *)(h->base + h->l.ctl_off);
	sampler_layout_keep(&h->l, h->k, (uint64_t)(uintptr_t)mallctl);
	sampler_layout_ctl(&h->l, h->c, getpid(), mean, 12345, deadline_ns);
	memcpy(h->base + h->l.code_off, sampler_blob, sampler_blob_len);
	ck_assert_int_eq(mprotect(h->base + h->l.code_off, h->l.code_len, PROT_READ | PROT_EXEC), 0);
	ck_assert_int_eq(madvise(h->base + h->l.ctl_off, h->l.total - h->l.ctl_off, MADV_WIPEONFORK), 0);
	uint64_t hooks[4];
	sampler_layout_hooks(&h->l, (uint64_t)(uintptr_t)h->base, hooks);
	/* As jeattach makes it: one call, which stores the handle and
	 * switches the hooks on. */
	ck_assert_uint_eq(sampler_install(h->k, hooks), 0);
	h->handle = (void *)(uintptr_t)h->k->handle;
	ck_assert_ptr_nonnull(h->handle);
	ck_assert_uint_eq(h->k->on, 1);
}

/* As jeattach takes it out: off and removed in one call, then every gate
 * slot empty. */
static void uninstall(struct here *h)
{
	ck_assert_uint_eq(sampler_remove(h->k), 0);
	ck_assert_uint_eq(h->k->removing, 2);
	ck_assert_uint_eq(sampler_remove(h->k), SAMPLER_NOT_CLAIMED); /* once */
	ck_assert_uint_eq(h->k->on, 0);
	for (int i = 0; i < SAMPLER_NBUSY; i++)
		ck_assert_uint_eq(__atomic_load_n(&h->k->busy[i], __ATOMIC_SEQ_CST), 0);
}

static struct sampler_rec *rec(struct here *h, uint64_t i)
{
	return (struct sampler_rec *)(void *)(h->base + h->l.recs_off) + (i & (h->l.nrecs - 1));
}

/* The size classes the hooks compute are jemalloc's own (nallocx). */
START_TEST(usize_is_jemallocs)
{
	for (uint64_t n = 1; n <= (1u << 20); n += n < 5000 ? 1 : 997)
		ck_assert_msg(sampler_usize(n) == nallocx(n, 0), "size %llu: %llu, jemalloc %zu",
			      (unsigned long long)n, (unsigned long long)sampler_usize(n),
			      nallocx(n, 0));
}
END_TEST

/* Intervals are exponential with the asked mean: mean and standard
 * deviation equal, within what 200,000 draws allow. */
START_TEST(intervals_are_exponential)
{
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	double sum = 0, sq = 0;
	const int n = 200000;
	for (int i = 0; i < n; i++) {
		double x = (double)sampler_interval(&rng, 524288);
		sum += x;
		sq += x * x;
	}
	double mean = sum / n, sd = sqrt(sq / n - mean * mean);
	ck_assert_msg(fabs(mean / 524288 - 1) < 0.01, "mean %.0f", mean);
	ck_assert_msg(fabs(sd / mean - 1) < 0.02, "sd/mean %.3f", sd / mean);
}
END_TEST

#define SITE_N 20000
#define SITE_SIZE 4000 /* a 4096-byte class */
static void *kept[SITE_N];

/* The allocation site the stacks must show: its return address from
 * malloc lies within it. */
__attribute__((noinline)) static void *site(size_t n)
{
	void *p = malloc(n);
	__asm__ volatile("" ::: "memory"); /* no tail call: a frame of its own */
	return p;
}
__attribute__((noinline)) static void site_end(void)
{
}

static int stack_has_site(const struct sampler_rec *r)
{
	uintptr_t lo = (uintptr_t)site, hi = lo + 256;
	for (uint32_t i = 0; i + 8 <= r->stack_len; i += 8) {
		uint64_t w;
		memcpy(&w, r->stack + i, 8);
		if (w > lo && w < hi)
			return 1;
	}
	return 0;
}

/* 20,000 allocations of a 4 KiB class, half freed: as many samples as the
 * bytes call for (a Poisson count, within 5 sigma), each with the site on
 * its stack, and the live set holding only objects still allocated. */
START_TEST(samples_by_bytes_and_tracks_frees)
{
	NEED_JEMALLOC_MALLOC();
	struct here h;
	install(&h, 1024, 131072, 0);
	for (int i = 0; i < SITE_N; i++)
		kept[i] = site(SITE_SIZE);
	for (int i = 0; i < SITE_N; i += 2) {
		free(kept[i]);
		kept[i] = NULL;
	}
	uninstall(&h);
	(void)site_end;
	double want = (double)SITE_N * 4096 / 131072;
	uint64_t taken = h.c->taken;
	ck_assert_msg(fabs((double)taken - want) < 5 * sqrt(want), "taken %llu, want ~%.0f",
		      (unsigned long long)taken, want);
	ck_assert_uint_eq(h.c->dropped_ring, 0);
	ck_assert_uint_eq(h.c->head, taken);
	int on_site = 0, copies = self_read_works();
	if (!copies)
		fprintf(stderr, "check_sampler: process_vm_readv cannot read this process "
				"(qemu-user): the stacks are checked to be marked missing instead\n");
	for (uint64_t i = 0; i < taken; i++) {
		struct sampler_rec *r = rec(&h, i);
		ck_assert_uint_eq(r->seq, i + 1);
		ck_assert_uint_eq(r->size, SITE_SIZE);
		ck_assert_uint_eq(r->usize, 4096);
		ck_assert_uint_eq(r->regs[SAMPLER_REG_SP] & 7, 0);
		if (!copies) {
			ck_assert_uint_eq(r->stack_len, 0);
			ck_assert(r->flags & SAMPLER_REC_NOSTACK);
			continue;
		}
		ck_assert(r->stack_len > 0);
		on_site += stack_has_site(r);
	}
	ck_assert_uint_eq(h.c->nostack, copies ? 0 : taken);
	ck_assert_msg(!copies || on_site == (int)taken, "%d of %llu stacks show the site", on_site,
		      (unsigned long long)taken);
	/* Live: exactly the sampled objects not freed. */
	struct sampler_live *l = (struct sampler_live *)(void *)(h.base + h.l.live_off);
	uint64_t live = 0, want_live = 0;
	for (uint64_t i = 0; i < taken; i++) {
		uint64_t p = rec(&h, i)->ptr;
		for (int j = 1; j < SITE_N; j += 2)
			want_live += (uint64_t)(uintptr_t)kept[j] == p;
	}
	for (uint32_t i = 0; i < h.l.nlive; i++) {
		if (l[i].ptr <= 1)
			continue;
		live++;
		ck_assert(l[i].rec >= 1 && l[i].rec <= taken);
		ck_assert_uint_eq(rec(&h, l[i].rec - 1)->ptr, l[i].ptr);
	}
	ck_assert_uint_eq(live, want_live);
	ck_assert(live > 0 && live < taken);
}
END_TEST

/* A ring nobody reads fills, then drops and counts: the hooks never wait. */
START_TEST(full_ring_drops)
{
	NEED_JEMALLOC_MALLOC();
	struct here h;
	install(&h, 4, 4096, 0);
	for (int i = 0; i < 200; i++)
		free(site(8192));
	uninstall(&h);
	ck_assert_uint_eq(h.c->head, 4);
	ck_assert_uint_eq(h.c->taken, 4);
	ck_assert_msg(h.c->dropped_ring > 100, "dropped %llu", (unsigned long long)h.c->dropped_ring);
}
END_TEST

/* A child of fork gets zeros where the sampler's state was
 * (MADV_WIPEONFORK): its first allocation removes the hooks from the
 * child, and the parent's sampler goes on. */
START_TEST(fork_child_removes_its_hooks)
{
	NEED_JEMALLOC_MALLOC();
	struct here h;
	if (!wipeonfork_works()) {
		fprintf(stderr, "check_sampler: fork_child_removes_its_hooks skipped: a fork child "
				"here does not get MADV_WIPEONFORK's zeros (qemu-user ignores it)\n");
		return;
	}
	install(&h, 64, 4096, 0);
	pid_t pid = fork();
	if (!pid) {
		free(site(100));
		int ok = h.k->removing == 2 && h.k->on == 0 && h.c->magic == 0;
		uint64_t taken = h.c->taken;
		for (int i = 0; i < 100; i++)
			free(site(8192));
		if (!ok)
			_exit(10 + (h.k->removing != 2) * 1 + (h.k->on != 0) * 2 + (h.c->magic != 0) * 4);
		_exit(taken == 0 && h.c->taken == 0 ? 0 : 1);
	}
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
	ck_assert_uint_eq(h.k->removing, 0);
	for (int i = 0; i < 100; i++)
		free(site(8192));
	ck_assert(h.c->taken > 0);
	uninstall(&h);
}
END_TEST

/* A child forked while the install or a removal call ran (in_call 1 in
 * its copy of page 0): jemalloc's hook mutex may be held there by a
 * thread it does not have, so its hooks do not remove themselves (the
 * removal would wait for ever); they record nothing either. */
START_TEST(fork_inside_a_call_leaves_hooks_alone)
{
	NEED_JEMALLOC_MALLOC();
	struct here h;
	if (!wipeonfork_works()) {
		fprintf(stderr, "check_sampler: fork_inside_a_call_leaves_hooks_alone skipped: a fork "
				"child here does not get MADV_WIPEONFORK's zeros (qemu-user ignores it)\n");
		return;
	}
	install(&h, 64, 4096, 0);
	__atomic_store_n(&h.k->in_call, 1, __ATOMIC_SEQ_CST); /* as inside sampler_remove's mallctl */
	pid_t pid = fork();
	if (!pid) {
		for (int i = 0; i < 100; i++)
			free(site(8192));
		_exit(h.k->removing == 0 && h.c->magic == 0 && h.c->taken == 0 ? 0 : 1);
	}
	__atomic_store_n(&h.k->in_call, 0, __ATOMIC_SEQ_CST);
	int st;
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
	uninstall(&h);
}
END_TEST

/* Past its deadline (jeattach gone), the first sample due switches the
 * hooks off: nothing more is recorded. */
START_TEST(deadline_removes_hooks)
{
	NEED_JEMALLOC_MALLOC();
	struct here h;
	install(&h, 64, 4096, mono_ns() - 1);
	for (int i = 0; i < 100; i++)
		free(site(8192));
	ck_assert_uint_eq(h.c->taken, 0);
	ck_assert_uint_eq(h.c->expired, 1);
	/* Off, not removed: removing them here would leave the other
	 * threads for nobody to settle (sampler_abi.h). */
	ck_assert_uint_eq(h.k->removing, 0);
	ck_assert_uint_eq(h.k->on, 0);
	for (int i = 0; i < SAMPLER_NBUSY; i++)
		ck_assert_uint_eq(h.k->busy[i], 0);
	/* A later jeattach claims them and removes them, once. */
	uninstall(&h);
}
END_TEST

/* The profile written from samples is what libjeheap (and jeprof) read:
 * one record per distinct stack, counts and bytes summed, heaviest first,
 * the sampling rate in the header. */
START_TEST(profile_reads_back)
{
	struct sampler_sample v[5] = {
		{ .usize = 4096, .nframes = 2, .ips = { 0x1000, 0x2000 } },
		{ .usize = 64, .nframes = 1, .ips = { 0x3000 } },
		{ .usize = 4096, .nframes = 2, .ips = { 0x1000, 0x2000 } },
		{ .usize = 8192, .nframes = 2, .ips = { 0x1000, 0x2001 } },
		{ .usize = 64, .nframes = 1, .ips = { 0x3000 } },
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	ck_assert_int_eq(sampler_profile_write(f, v, 5, 524288), 0);
	fclose(f);
	const char *want = "heap_v2/524288\n  t*: 5: 16512 [0: 0]\n"
			   "@ 0x1000 0x2000\n  t*: 2: 8192 [0: 0]\n"
			   "@ 0x1000 0x2001\n  t*: 1: 8192 [0: 0]\n"
			   "@ 0x3000\n  t*: 2: 128 [0: 0]\n";
	ck_assert_str_eq(text, want);
	free(text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sampler");
	TCase *tc = tcase_create("hooks");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, usize_is_jemallocs);
	tcase_add_test(tc, intervals_are_exponential);
	tcase_add_test(tc, samples_by_bytes_and_tracks_frees);
	tcase_add_test(tc, full_ring_drops);
	tcase_add_test(tc, fork_child_removes_its_hooks);
	tcase_add_test(tc, fork_inside_a_call_leaves_hooks_alone);
	tcase_add_test(tc, deadline_removes_hooks);
	tcase_add_test(tc, profile_reads_back);
	suite_add_tcase(s, tc);
	return check_run(s);
}
