/* SPDX-License-Identifier: BSD-2-Clause */
/* libcore's JSON: the one tokenizer (core_jpull) at its edges, and the
 * tree (core_jtree) and the re-encoder (core_json_reencode) built on it,
 * which must accept, refuse and explain every input as it does. Every
 * input is given in a buffer of exactly its length, so that a read past
 * its end is a read past what malloc gave (ASan, valgrind). */
#include "config.h"

#include <check.h>
#include "check_run.h"
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core_jpull.h"
#include "core_json.h"
#include "core_jtree.h"

/* text[0..len) in a buffer of its own, and a NUL-terminated copy for the
 * re-encoder (which reads C strings). */
static char *exact(const char *text, size_t len)
{
	char *b = malloc(len ? len : 1);
	ck_assert_ptr_nonnull(b);
	memcpy(b, text, len);
	return b;
}

/* Every token of text: 0 at CORE_J_END, or the first error (*err);
 * strings' bytes that are not UTF-8 kept when any_bytes (the tree's way). */
static int pull_mode(const char *text, size_t len, int max_depth, int any_bytes,
		     struct core_jerror *err)
{
	char *b = exact(text, len);
	struct core_jpull j;
	struct core_jtok t;
	core_jpull_init(&j, b, len, SIZE_MAX, max_depth);
	j.any_bytes = any_bytes;
	int e;
	while (!(e = core_jpull_next(&j, &t)) && t.type != CORE_J_END)
		;
	*err = j.err;
	core_jpull_free(&j);
	free(b);
	return e;
}

static int pull_all(const char *text, size_t len, int max_depth, struct core_jerror *err)
{
	return pull_mode(text, len, max_depth, 0, err);
}

static int tree(const char *text, size_t len, struct core_jerror *err)
{
	char *b = exact(text, len);
	struct core_jtree *t = NULL;
	int e = core_jtree_parse(b, len, &t, err);
	core_jtree_free(t);
	free(b);
	return e;
}

static int reencode(const char *text, size_t len, struct core_jerror *err)
{
	char *b = strndup(text, len), *out = NULL;
	ck_assert_ptr_nonnull(b);
	int e = core_json_reencode(b, &out, err);
	free(out);
	free(b);
	return e;
}

/* Two readers' verdicts on text agree: both accept it, or both refuse it
 * with the same error (kind, why and where). */
static void alike(const char *text, size_t len, const char *a_name, int ea,
		  const struct core_jerror *a, const char *b_name, int eb,
		  const struct core_jerror *b)
{
	ck_assert_msg(ea == eb, "'%.*s': %s %d, %s %d", (int)len, text, a_name, ea, b_name, eb);
	if (ea)
		ck_assert_msg(ea == -EINVAL && a->kind == b->kind && a->at == b->at &&
				      !strcmp(a->why, b->why),
			      "'%.*s': %s: %s at %zu; %s: %s at %zu", (int)len, text, a_name, a->why,
			      a->at, b_name, b->why, b->at);
}

/* The readers on text: the re-encoder as the tokenizer, the tree as the
 * tokenizer with any_bytes; and the two ways of the tokenizer alike but
 * where the text has bytes that are not UTF-8. The tokenizer's verdict is
 * returned (kind CORE_JERR_NONE: accepted). */
static struct core_jerror refused_alike(const char *text, size_t len)
{
	struct core_jerror p, b, t, r;
	int ep = pull_all(text, len, CORE_JTREE_MAX_DEPTH, &p);
	int eb = pull_mode(text, len, CORE_JTREE_MAX_DEPTH, 1, &b);
	int et = tree(text, len, &t), er = reencode(text, len, &r);
	alike(text, len, "pull", ep, &p, "reencode", er, &r);
	alike(text, len, "pull any_bytes", eb, &b, "tree", et, &t);
	if (!ep || strcmp(p.why, "invalid UTF-8 in a string"))
		alike(text, len, "pull", ep, &p, "pull any_bytes", eb, &b);
	if (!ep)
		return (struct core_jerror){ CORE_JERR_NONE, NULL, 0 };
	return p;
}

/* Valid documents whose every proper prefix is a cut one: containers, a
 * string, a word (a number would not do: "12" is a prefix of "123"). */
static const char *const whole[] = {
	"{\"a\":[1,-2.5e+3,0.5E-2,0,-0,true,false,null,\"x\\n\\u00e9\\ud83d\\ude00\\/\"],"
	"\"\xc3\xa9\xf0\x9f\x98\x80\":{\"b\":[]},\"c\":{}}",
	" {\n \"k\" : [ 1 , 2.0e1 ] ,\t\"l\":\"\\\"\\\\\\b\\f\\r\\t\\u20AC\" }",
	"[\"\xe2\x82\xac \xf0\x9f\x98\x80 \xc3\xa9 \xed\x9f\xbf\",[[[]]],{\"\":\"\"}]",
	"\"abc\\u00e9\\uD834\\uDD1E\"",
	"true",
	"null",
	"[123456789012345678901234567890]",
};

START_TEST(cut_at_every_byte)
{
	for (size_t d = 0; d < sizeof(whole) / sizeof(whole[0]); d++) {
		size_t n = strlen(whole[d]);
		ck_assert_int_eq(refused_alike(whole[d], n).kind, CORE_JERR_NONE);
		for (size_t cut = 0; cut < n; cut++) {
			struct core_jerror e = refused_alike(whole[d], cut);
			ck_assert_msg(e.kind == CORE_JERR_CUT, "%zu cut at %zu: '%.*s': %s", d, cut,
				      (int)cut, whole[d], e.why ? e.why : "accepted");
			ck_assert_msg(e.at <= cut, "%zu cut at %zu: error at %zu", d, cut, e.at);
		}
	}
}
END_TEST

START_TEST(depth)
{
	/* At the bound is read; one more is refused as a bound, not as a cut
	 * or bad text, however the input goes on. */
	static const int bound[] = { 1, 5, 32, CORE_JTREE_MAX_DEPTH, CORE_JPULL_MAX_DEPTH };
	size_t big = 1000000;
	char *deep = malloc(2 * big);
	ck_assert_ptr_nonnull(deep);
	memset(deep, '[', big);
	memset(deep + big, ']', big);
	struct core_jerror err;
	for (size_t i = 0; i < sizeof(bound) / sizeof(bound[0]); i++) {
		size_t b = (size_t)bound[i];
		ck_assert_int_eq(pull_all(deep + big - b, 2 * b, bound[i], &err), 0);
		ck_assert_int_eq(pull_all(deep + big - b - 1, 2 * b + 2, bound[i], &err), -EINVAL);
		ck_assert_int_eq(err.kind, CORE_JERR_LIMIT);
		ck_assert_str_eq(err.why, "nested too deep");
		ck_assert_uint_eq(err.at, b);
	}
	/* An absurd depth, cut or whole: the fixed stack is never outgrown. */
	ck_assert_int_eq(pull_all(deep, big, CORE_JPULL_MAX_DEPTH, &err), -EINVAL);
	ck_assert_int_eq(err.kind, CORE_JERR_LIMIT);
	ck_assert_int_eq(pull_all(deep, 2 * big, 1 << 30, &err), -EINVAL); /* clamped */
	ck_assert_uint_eq(err.at, CORE_JPULL_MAX_DEPTH);
	ck_assert_int_eq(tree(deep, 2 * big, &err), -EINVAL);
	ck_assert_uint_eq(err.at, CORE_JTREE_MAX_DEPTH);
	ck_assert_int_eq(tree(deep + big - 64, 128, &err), 0);
	ck_assert_int_eq(reencode(deep, 2 * big, &err), -EINVAL);
	ck_assert_uint_eq(err.at, CORE_JPULL_MAX_DEPTH);
	ck_assert_int_eq(reencode(deep + big - 256, 512, &err), 0);
	/* objects and arrays alternate: each level's kind is its own bit */
	char mixed[64 * 6 + 1], *p = mixed;
	for (int i = 0; i < 32; i++)
		p += sprintf(p, i % 2 ? "[" : "{\"k\":");
	for (int i = 31; i >= 0; i--)
		*p++ = i % 2 ? ']' : '}';
	ck_assert_int_eq(refused_alike(mixed, (size_t)(p - mixed)).kind, CORE_JERR_NONE);
	free(deep);
}
END_TEST

/* The first number in text, pulled. */
static void number_token(struct core_jpull *j, const char *text, struct core_jtok *t)
{
	core_jpull_init(j, text, strlen(text), SIZE_MAX, 4);
	do
		ck_assert_int_eq(core_jpull_next(j, t), 0);
	while (t->type != CORE_J_NUMBER);
}

START_TEST(huge_numbers)
{
	static const struct {
		const char *text;
		int u64, i64, dbl; /* what each conversion gives */
	} nums[] = {
		{ "[18446744073709551615]", 0, -ERANGE, 0 },
		{ "[18446744073709551616]", -ERANGE, -ERANGE, 0 },
		{ "[9223372036854775807]", 0, 0, 0 },
		{ "[9223372036854775808]", 0, -ERANGE, 0 },
		{ "[-9223372036854775808]", -EINVAL, 0, 0 },
		{ "[-9223372036854775809]", -EINVAL, -ERANGE, 0 },
		{ "[-0]", -EINVAL, 0, 0 },
		{ "[1.5]", -EINVAL, -EINVAL, 0 },
		{ "[1e2]", -EINVAL, -EINVAL, 0 },
		{ "[1e400]", -EINVAL, -EINVAL, -ERANGE },
		{ "[-1e400]", -EINVAL, -EINVAL, -ERANGE },
		{ "[1e-400]", -EINVAL, -EINVAL, 0 },
	};
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		struct core_jpull j;
		struct core_jtok t;
		uint64_t u;
		int64_t s;
		double d;
		number_token(&j, nums[i].text, &t);
		ck_assert_msg(core_jnum_u64(&t, &u) == nums[i].u64, "%s u64", nums[i].text);
		ck_assert_msg(core_jnum_i64(&t, &s) == nums[i].i64, "%s i64", nums[i].text);
		ck_assert_msg(core_jnum_double(&t, &d) == nums[i].dbl, "%s double", nums[i].text);
		core_jpull_free(&j);
	}
	/* 10,000 digits: read whole (a tree's double is the number's, not
	 * that of its first digits), bounded like a string where asked. */
	size_t n = 10000;
	char *big = malloc(n + 3);
	ck_assert_ptr_nonnull(big);
	big[0] = '[';
	memset(big + 1, '7', n);
	big[n + 1] = ']';
	big[n + 2] = 0;
	struct core_jtree *t;
	ck_assert_int_eq(core_jtree_parse(big, n + 2, &t, NULL), 0);
	const struct core_jnode *v = core_jtree_at(t, core_jtree_root(t), 0);
	ck_assert(!v->is_uint && isinf(v->d));
	core_jtree_free(t);
	big[n + 1] = 0;
	memcpy(big + 1, "1.", 2);
	memcpy(big + 70, "e-9990]", 8); /* its exponent past the 63rd character */
	ck_assert_int_eq(core_jtree_parse(big, strlen(big), &t, NULL), 0);
	v = core_jtree_at(t, core_jtree_root(t), 0);
	ck_assert(v->d == 0.0); /* underflows: the exponent was read, not cut off */
	core_jtree_free(t);
	char *out;
	ck_assert_int_eq(core_json_reencode(big, &out, NULL), 0);
	ck_assert_str_eq(out, big);
	free(out);
	struct core_jpull j;
	struct core_jtok tok;
	core_jpull_init(&j, big, strlen(big), 64, 4);
	ck_assert_int_eq(core_jpull_next(&j, &tok), 0);
	ck_assert_int_eq(core_jpull_next(&j, &tok), -EINVAL);
	ck_assert_int_eq(j.err.kind, CORE_JERR_LIMIT);
	core_jpull_free(&j);
	free(big);
	/* not numbers of RFC 8259 */
	static const char *const bad[] = { "[01]", "[-01]", "[+1]", "[.5]", "[1.]", "[1.e5]",
					   "[1e]", "[1e+]", "[--1]", "[0x10]", "[1E+-2]", "[-]",
					   "[Infinity]", "[NaN]", "[1,]", "[ 1 2 ]" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(refused_alike(bad[i], strlen(bad[i])).kind == CORE_JERR_SYNTAX, "%s",
			      bad[i]);
}
END_TEST

/* The one string of ["..."] (s the text between the quotes), decoded. */
static int decode(const char *s, size_t len, char *out, size_t cap, struct core_jerror *err)
{
	char *doc = malloc(len + 4);
	ck_assert_ptr_nonnull(doc);
	memcpy(doc, "[\"", 2);
	memcpy(doc + 2, s, len);
	memcpy(doc + 2 + len, "\"]", 2);
	struct core_jpull j;
	struct core_jtok t;
	core_jpull_init(&j, doc, len + 4, SIZE_MAX, 4);
	int e = core_jpull_next(&j, &t);
	if (!e && !(e = core_jpull_next(&j, &t)))
		snprintf(out, cap, "%s", t.str);
	*err = j.err;
	core_jpull_free(&j);
	ck_assert_int_eq(refused_alike(doc, len + 4).kind, err->kind);
	free(doc);
	return e;
}

START_TEST(strings)
{
	static const struct {
		const char *in, *out;
	} good[] = {
		{ "\\u00e9\\u00E9", "\xc3\xa9\xc3\xa9" },
		{ "\\ud83d\\ude00", "\xf0\x9f\x98\x80" },
		{ "\\udbff\\udfff", "\xf4\x8f\xbf\xbf" },
		{ "\\u20ac\\u0001\\u007f\\u0080\\u07ff\\u0800\\uffff",
		  "\xe2\x82\xac\x01\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf" },
		{ "\\\"\\\\\\/\\b\\f\\n\\r\\t", "\"\\/\b\f\n\r\t" },
		{ "\xf4\x8f\xbf\xbf\xed\x9f\xbf\x7f", "\xf4\x8f\xbf\xbf\xed\x9f\xbf\x7f" },
	};
	char out[64];
	struct core_jerror err;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		ck_assert_msg(!decode(good[i].in, strlen(good[i].in), out, sizeof(out), &err),
			      "%s: %s", good[i].in, err.why);
		ck_assert_str_eq(out, good[i].out);
	}
	/* Malformed, never taken for a cut, whatever the readers. */
	static const char *const bad[] = {
		"\xff", "\x80", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80",
		"\xf0\x80\x80\xaf", "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xc3\x28", "\xe2\x82",
		"\xff\x80\x80", "\xf8\x88\x80\x80\x80", "\xfe\xbf\xbf\xbf",
		"\\ud800", "\\ud800x", "\\udc00", "\\udc00\\ud800", "\\ud800\\u0041",
		"\\ud800\\ud800", "\\ud800\\n", "\\u0000", "\\u12g4", "\\u12", "\\x", "\\'",
		"\\U00e9", "\x01", "\t", "\x1f", "\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(decode(bad[i], strlen(bad[i]), out, sizeof(out), &err) == -EINVAL,
			      "accepted %zu", i);
		ck_assert_msg(err.kind == CORE_JERR_SYNTAX, "%zu: %s", i, err.why);
	}
	/* Bounded: the decoded length, not the escaped one. */
	struct core_jpull j;
	struct core_jtok t;
	const char *s = "\"\\u00e9\\u00e9\"";
	core_jpull_init(&j, s, strlen(s), 4, 1);
	ck_assert_int_eq(core_jpull_next(&j, &t), 0);
	ck_assert_uint_eq(t.len, 4);
	core_jpull_free(&j);
	core_jpull_init(&j, s, strlen(s), 3, 1);
	ck_assert_int_eq(core_jpull_next(&j, &t), -EINVAL);
	ck_assert_int_eq(j.err.kind, CORE_JERR_LIMIT);
	core_jpull_free(&j);
}
END_TEST

/* jemalloc writes its report's strings unescaped, the user's bytes among
 * them (opt.prof_prefix is a path; a Latin-1 one is not UTF-8). The tree
 * keeps them as written, as it did before the one tokenizer: --frag
 * refused such a real report while the tree was strict. The tokenizer and
 * the re-encoder, whose output is JSON, still refuse them. */
START_TEST(any_bytes)
{
	static const char doc[] = "{\"prof_prefix\":\"/tmp/caf\xe9\",\"k\":[\"\xff\xed\xa0\x80\xc3\"]}";
	size_t len = sizeof(doc) - 1;
	char *b = exact(doc, len);
	struct core_jtree *t;
	struct core_jerror err;
	ck_assert_int_eq(core_jtree_parse(b, len, &t, &err), 0);
	const struct core_jnode *root = core_jtree_root(t);
	ck_assert_str_eq(core_jtree_get(t, root, "prof_prefix")->str, "/tmp/caf\xe9");
	ck_assert_str_eq(core_jtree_at(t, core_jtree_get(t, root, "k"), 0)->str,
			 "\xff\xed\xa0\x80\xc3");
	core_jtree_free(t);
	free(b);
	err = refused_alike(doc, len);
	ck_assert(err.kind == CORE_JERR_SYNTAX && err.at == 24);
	ck_assert_str_eq(err.why, "invalid UTF-8 in a string");
	/* What is not a matter of bytes is judged as ever: a character the end
	 * cuts is a cut, escapes and control characters are checked. */
	static const struct {
		const char *text;
		enum core_jerr kind;
		size_t at;
	} still[] = {
		{ "[\"\xe9\xc3", CORE_JERR_CUT, 3 }, { "[\"\xe9\\ud800\"]", CORE_JERR_SYNTAX, 3 },
		{ "[\"\xe9\\u0000\"]", CORE_JERR_SYNTAX, 3 }, { "[\"\xe9\x01\"]", CORE_JERR_SYNTAX, 3 },
		{ "[\"\xe9", CORE_JERR_CUT, 2 }, { "[\"\xff", CORE_JERR_CUT, 1 },
	};
	for (size_t i = 0; i < sizeof(still) / sizeof(still[0]); i++) {
		ck_assert_int_eq(tree(still[i].text, strlen(still[i].text), &err), -EINVAL);
		ck_assert_msg(err.kind == still[i].kind && err.at == still[i].at, "%zu: %s at %zu", i,
			      err.why, err.at);
	}
}
END_TEST

START_TEST(nul_bytes)
{
	static const struct {
		const char *text;
		size_t len;
		const char *why;
	} bad[] = {
		{ "[\"a\0b\"]", 7, "control character in a string" },
		{ "\0", 1, "NUL byte in the text" },
		{ " \0[1]", 5, "NUL byte in the text" },
		{ "[1,\0 2]", 7, "expected a value" },
		{ "{\"a\"\0:1}", 8, "NUL byte in the text" },
		{ "[1]\0", 4, "text after the value" },
		{ "[\"\\u0000\"]", 10, "invalid \\u escape" },
		{ "[tr\0e]", 6, "expected a value" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct core_jerror p, t;
		ck_assert_int_eq(pull_all(bad[i].text, bad[i].len, 8, &p), -EINVAL);
		ck_assert_msg(p.kind == CORE_JERR_SYNTAX && !strcmp(p.why, bad[i].why), "%zu: %s", i,
			      p.why);
		ck_assert_int_eq(tree(bad[i].text, bad[i].len, &t), -EINVAL);
		ck_assert_str_eq(t.why, p.why);
	}
	/* The re-encoder reads a C string: a NUL ends its text. */
	char *out;
	ck_assert_int_eq(core_json_reencode("[1]\0[2]", &out, NULL), 0);
	ck_assert_str_eq(out, "[1]");
	free(out);
}
END_TEST

/* What the tokenizer says about the tokens themselves: their source text,
 * skipping, the place of an error. */
START_TEST(tokens)
{
	const char *s = " {\"a\\n\" : [1 , \"x\"] ,\n\"b\":{\"c\":[true]}, \"d\":-1.5e3 }";
	static const struct {
		int type;
		const char *src;
	} want[] = {
		{ CORE_J_OBJECT, "{" },	    { CORE_J_KEY, "\"a\\n\"" }, { CORE_J_ARRAY, "[" },
		{ CORE_J_NUMBER, "1" },	    { CORE_J_STRING, "\"x\"" }, { CORE_J_ARRAY_END, "]" },
		{ CORE_J_KEY, "\"b\"" },    { CORE_J_OBJECT, "{" },	{ CORE_J_KEY, "\"d\"" },
		{ CORE_J_NUMBER, "-1.5e3" }, { CORE_J_OBJECT_END, "}" }, { CORE_J_END, "" },
	};
	struct core_jpull j;
	struct core_jtok t;
	core_jpull_init(&j, s, strlen(s), 100, 8);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		ck_assert_int_eq(core_jpull_next(&j, &t), 0);
		ck_assert_int_eq(t.type, want[i].type);
		ck_assert_uint_eq(t.src_len, strlen(want[i].src));
		ck_assert(!memcmp(t.src, want[i].src, t.src_len));
		if (t.type == CORE_J_KEY && i == 1)
			ck_assert_str_eq(t.str, "a\n");
		if (t.type == CORE_J_OBJECT && i == 7)
			ck_assert_int_eq(core_jpull_skip(&j, &t), 0); /* {"c":[true]} */
	}
	core_jpull_free(&j);
	s = "{\"a\":1,\n  \"b\" 2}";
	struct core_jerror err;
	ck_assert_int_eq(pull_all(s, strlen(s), 4, &err), -EINVAL);
	ck_assert_str_eq(err.why, "expected ':'");
	unsigned long line, column;
	core_jpull_init(&j, s, strlen(s), 100, 4);
	core_jpull_where(&j, err.at, &line, &column);
	ck_assert(line == 2 && column == 7);
	/* a number the input ends with inside a container was cut: never
	 * handed out (its caller would take "12" of "123" for a value) */
	core_jpull_init(&j, "[12", 3, 100, 4);
	ck_assert_int_eq(core_jpull_next(&j, &t), 0);
	ck_assert_int_eq(core_jpull_next(&j, &t), -EINVAL);
	ck_assert(j.err.kind == CORE_JERR_CUT && j.err.at == 1);
	core_jpull_free(&j);
	/* the empty input is a copy cut at its first byte */
	ck_assert_int_eq(refused_alike("", 0).kind, CORE_JERR_CUT);
	ck_assert_int_eq(refused_alike(" \n", 2).kind, CORE_JERR_CUT);
	ck_assert_int_eq(refused_alike("[1] [2]", 7).kind, CORE_JERR_SYNTAX);
}
END_TEST

START_TEST(reencode_compact)
{
	char *out;
	ck_assert_int_eq(core_json_reencode(" { \"a\" : [1, -2.5e3, true, null, \"x\\n\\u00e9\"] ,\n"
					    " \"b\":{} } ", &out, NULL), 0);
	ck_assert_str_eq(out, "{\"a\":[1,-2.5e3,true,null,\"x\\n\\u00e9\"],\"b\":{}}");
	free(out);
	ck_assert_int_eq(core_json_reencode("[[],{},[[1]],{\"a\":{\"b\":[]}}]", &out, NULL), 0);
	ck_assert_str_eq(out, "[[],{},[[1]],{\"a\":{\"b\":[]}}]");
	free(out);
	/* A report that closes the object early and forges a second record. */
	struct core_jerror err;
	ck_assert_int_eq(core_json_reencode("{\"j\":1}}],\"pid\":1}\n{\"pid\":1", &out, &err),
			 -EINVAL);
	ck_assert(err.kind == CORE_JERR_SYNTAX && err.at == 7);
	const char *bad[] = { "", "{", "[1,]", "{\"a\"}", "{\"a\":1,}", "01", "1.", "-", "tru",
			      "\"raw\nnewline\"", "\"\\x\"", "\"\xff\"", "[1] [2]", "{'a':1}",
			      "\"\xed\xa0\x80\"" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(core_json_reencode(bad[i], &out, NULL) == -EINVAL, "accepted: %s",
			      bad[i]);
	ck_assert_int_eq(core_json_reencode("\"\xc3\xa9\"", &out, NULL), 0); /* valid UTF-8 */
	free(out);
}
END_TEST

START_TEST(tree_nodes)
{
	const char *doc = " {\"a\":[1,2.5,-3,18446744073709551615],\"s\":\"x\\n\\u00e9\\\"\","
			  "\"t\":true,\"f\":false,\"n\":null,\"o\":{}} ";
	struct core_jtree *t;
	ck_assert_int_eq(core_jtree_parse(doc, strlen(doc), &t, NULL), 0);
	const struct core_jnode *root = core_jtree_root(t), *a = core_jtree_get(t, root, "a");
	ck_assert_uint_eq(a->n, 4);
	ck_assert(core_jtree_at(t, a, 0)->is_uint && core_jtree_at(t, a, 0)->u == 1);
	ck_assert(!core_jtree_at(t, a, 1)->is_uint && core_jtree_at(t, a, 1)->d == 2.5);
	ck_assert(!core_jtree_at(t, a, 2)->is_uint && core_jtree_at(t, a, 2)->d == -3);
	ck_assert(core_jtree_at(t, a, 3)->u == UINT64_MAX); /* no double rounding */
	ck_assert_ptr_null(core_jtree_at(t, a, 4));
	ck_assert_str_eq(core_jtree_get(t, root, "s")->str, "x\n\xc3\xa9\"");
	ck_assert_int_eq(core_jtree_get(t, root, "t")->type, CORE_J_TRUE);
	ck_assert_int_eq(core_jtree_get(t, root, "f")->type, CORE_J_FALSE);
	ck_assert_int_eq(core_jtree_get(t, root, "n")->type, CORE_J_NULL);
	ck_assert_uint_eq(core_jtree_get(t, root, "o")->n, 0);
	ck_assert_ptr_null(core_jtree_get(t, root, "missing"));
	uint64_t u;
	ck_assert_int_eq(core_jtree_u64(t, root, "a", &u), -1);
	core_jtree_free(t);
	struct core_jerror err;
	ck_assert_int_eq(core_jtree_parse("[1,]", 4, &t, &err), -EINVAL);
	ck_assert(err.kind == CORE_JERR_SYNTAX && err.at == 3);
	ck_assert_int_eq(core_jtree_parse("{} {}", 5, &t, &err), -EINVAL);
	ck_assert_int_eq(core_jtree_parse("\"a", 2, &t, &err), -EINVAL);
	ck_assert_int_eq(err.kind, CORE_JERR_CUT); /* not a bare -EINVAL: a cut copy */
	ck_assert_int_eq(core_jtree_parse("[01]", 4, &t, &err), -EINVAL);
	/* a value per two bytes: the count is bounded, not the memory it takes */
	size_t k = (size_t)CORE_JTREE_MAX_NODES, n = 2 * k + 1; /* "[0,0,...,0]": k zeros */
	char *many = malloc(n);
	ck_assert_ptr_nonnull(many);
	many[0] = '[';
	for (size_t i = 0; i < k; i++)
		many[1 + 2 * i] = '0', many[2 + 2 * i] = ',';
	many[n - 1] = ']'; /* over the last comma */
	ck_assert_int_eq(core_jtree_parse(many, n, &t, &err), -E2BIG);
	ck_assert(err.kind == CORE_JERR_LIMIT && err.at == n - 2);
	free(many);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("json");
	TCase *tc = tcase_create("json");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, cut_at_every_byte);
	tcase_add_test(tc, depth);
	tcase_add_test(tc, huge_numbers);
	tcase_add_test(tc, strings);
	tcase_add_test(tc, any_bytes);
	tcase_add_test(tc, nul_bytes);
	tcase_add_test(tc, tokens);
	tcase_add_test(tc, reencode_compact);
	tcase_add_test(tc, tree_nodes);
	suite_add_tcase(s, tc);
	return check_run(s);
}
