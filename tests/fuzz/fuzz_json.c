/* SPDX-License-Identifier: BSD-2-Clause */
/* libFuzzer harness: libcore's one JSON tokenizer (core_jpull), and
 * through it the tree (core_jtree) and the re-encoder (core_json_reencode)
 * built on it; a target chooses every byte of the JSON jeattach reads.
 * Beyond "no crash", what each input must show (else abort, a finding):
 * - the re-encoder accepts what the tokenizer accepts and refuses the
 *   rest with its very error (kind, why, where); the tree likewise with
 *   the tokenizer's any_bytes, which differs only on bytes not UTF-8;
 * - re-encoding is idempotent, its output valid UTF-8 and read back by
 *   the tree;
 * - a valid document cut anywhere before its value ends is a cut
 *   (CORE_JERR_CUT), never a success nor "malformed".
 * The readers of records and reports above it (jh_recent_read.c,
 * frag_read.c) are fuzzed by fuzz_recent and fuzz_frag. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core_jpull.h"
#include "core_json.h"
#include "core_jtree.h"

/* Every token of text[0..len): 0 at the end of the value, or the first
 * error (*err); skipping the first container's contents when skip;
 * strings' bytes that are not UTF-8 kept when any_bytes (the tree's way). */
static int pull_all(const char *text, size_t len, int max_depth, int skip, int any_bytes,
		    struct core_jerror *err)
{
	struct core_jpull j;
	struct core_jtok t;
	core_jpull_init(&j, text, len, SIZE_MAX, max_depth);
	j.any_bytes = any_bytes;
	int e, skipped = !skip;
	while (!(e = core_jpull_next(&j, &t)) && t.type != CORE_J_END) {
		if (t.type == CORE_J_NUMBER) {
			uint64_t u;
			int64_t i;
			double d;
			core_jnum_u64(&t, &u);
			core_jnum_i64(&t, &i);
			core_jnum_double(&t, &d);
		}
		if (!skipped && (t.type == CORE_J_OBJECT || t.type == CORE_J_ARRAY)) {
			skipped = 1;
			if ((e = core_jpull_skip(&j, &t)))
				break;
		}
	}
	if (e) {
		unsigned long line, column;
		core_jpull_where(&j, j.err.at, &line, &column);
	}
	*err = j.err;
	core_jpull_free(&j);
	return e;
}

static int same_error(int e1, const struct core_jerror *a, int e2, const struct core_jerror *b)
{
	if (e1 != e2)
		return 0;
	if (e1 != -EINVAL)
		return 1;
	return a->kind == b->kind && a->at == b->at && !strcmp(a->why, b->why);
}

/* Every node of the tree, visited as frag_read visits them. */
static void walk(const struct core_jtree *t, const struct core_jnode *n)
{
	uint64_t u;
	size_t i = 0;
	for (const struct core_jnode *c = core_jtree_child(t, n); c; c = core_jtree_next(t, c), i++) {
		if (c->key && core_jtree_get(t, n, c->key) == NULL)
			abort();
		if (i < 4 && core_jtree_at(t, n, i) != c)
			abort();
		if (c->key)
			core_jtree_u64(t, n, c->key, &u);
		walk(t, c);
	}
	if (i != n->n && (n->type == CORE_J_OBJECT || n->type == CORE_J_ARRAY))
		abort();
}

static void tree_agrees(const char *text, size_t len)
{
	struct core_jerror pe, be, te;
	struct core_jtree *t;
	int p = pull_all(text, len, CORE_JTREE_MAX_DEPTH, 0, 0, &pe);
	int b = pull_all(text, len, CORE_JTREE_MAX_DEPTH, 0, 1, &be);
	/* the two ways differ only on bytes that are not UTF-8 */
	if ((!p || strcmp(pe.why, "invalid UTF-8 in a string")) && !same_error(p, &pe, b, &be))
		abort();
	int e = core_jtree_parse(text, len, &t, &te);
	if (e == -E2BIG || e == -ENOMEM)
		return;
	if (!same_error(b, &be, e, &te))
		abort();
	if (!e) {
		walk(t, core_jtree_root(t));
		core_jtree_free(t);
	}
}

/* Is s valid UTF-8? Judged here from RFC 3629's table, not by
 * core_utf8_len, whose F5..FF leads once let FF 80 80 through. */
static int utf8_only(const char *s)
{
	static const struct {
		unsigned char lo, hi, n, lo2, hi2; /* lead byte range, length, second byte range */
	} form[] = { { 0x00, 0x7f, 1, 0, 0 },	      { 0xc2, 0xdf, 2, 0x80, 0xbf },
		     { 0xe0, 0xe0, 3, 0xa0, 0xbf }, { 0xe1, 0xec, 3, 0x80, 0xbf },
		     { 0xed, 0xed, 3, 0x80, 0x9f }, { 0xee, 0xef, 3, 0x80, 0xbf },
		     { 0xf0, 0xf0, 4, 0x90, 0xbf }, { 0xf1, 0xf3, 4, 0x80, 0xbf },
		     { 0xf4, 0xf4, 4, 0x80, 0x8f } };
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		size_t f = 0, n = sizeof(form) / sizeof(form[0]);
		while (f < n && !(*p >= form[f].lo && *p <= form[f].hi))
			f++;
		if (f == n)
			return 0;
		if (form[f].n > 1 && !(p[1] >= form[f].lo2 && p[1] <= form[f].hi2))
			return 0;
		for (size_t i = 2; i < form[f].n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return 0;
		p += form[f].n;
	}
	return 1;
}

/* text is NUL-terminated: the re-encoder reads it up to its first NUL. */
static void reencode_agrees(const char *text)
{
	struct core_jerror pe, re;
	char *out, *again;
	size_t len = strlen(text);
	int p = pull_all(text, len, CORE_JPULL_MAX_DEPTH, 1, 0, &pe);
	int e = core_json_reencode(text, &out, &re);
	if (e == -ENOMEM)
		return;
	if (!same_error(p, &pe, e, &re))
		abort();
	if (e)
		return;
	struct core_jtree *t;
	if (!utf8_only(out) || core_json_reencode(out, &again, NULL) || strcmp(out, again))
		abort();
	int te = core_jtree_parse(out, strlen(out), &t, NULL);
	if (te == -EINVAL && pull_all(out, strlen(out), CORE_JTREE_MAX_DEPTH, 0, 0, &pe) != -EINVAL)
		abort(); /* only its nesting may keep the tree from it */
	if (!te)
		core_jtree_free(t);
	free(again);
	free(out);
}

/* A valid document (not a bare number: "12" is a prefix of "123") cut
 * before its value ends: a cut at each byte while it is short, at a
 * spread of places when not. */
static void cuts_are_cuts(const char *text, size_t len)
{
	size_t end = len, start = 0;
	struct core_jerror err;
	while (end && strchr(" \t\n\r", text[end - 1]))
		end--;
	while (start < end && strchr(" \t\n\r", text[start]))
		start++;
	if (start == end || text[start] == '-' || (text[start] >= '0' && text[start] <= '9'))
		return;
	size_t step = end <= 64 ? 1 : end / 61;
	for (size_t cut = 0; cut < end; cut += step) {
		char *b = malloc(cut ? cut : 1); /* exactly cut bytes: a read past them is seen */
		if (!b)
			return;
		memcpy(b, text, cut);
		int e = pull_all(b, cut, CORE_JPULL_MAX_DEPTH, 0, 0, &err);
		free(b);
		if (e != -EINVAL || err.kind != CORE_JERR_CUT)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct core_jerror err;
	tree_agrees(text, size);
	if (!pull_all(text, size, CORE_JPULL_MAX_DEPTH, 0, 0, &err))
		cuts_are_cuts(text, size);
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	reencode_agrees(s);
	free(s);
	return 0;
}
