/* SPDX-License-Identifier: BSD-2-Clause */
/* For victims whose heap profile must be large: step(i, depth) allocates
 * one 48-byte block from a call stack of its own. Two functions per level:
 * the bits of i choose the path of two-way branches, so N values of i give
 * N distinct stacks. noinline and a use of the depth after the call keep
 * the compiler from folding the recursion into a loop. */
#ifndef VICTIM_STACKS_H
#define VICTIM_STACKS_H

#include <stdlib.h>
#include <string.h>

#define DEPTH_MAX 30

static void *leaf(unsigned i);
static void *left(unsigned i, int depth) __attribute__((noinline));
static void *right(unsigned i, int depth) __attribute__((noinline));

static void *step(unsigned i, int depth)
{
	if (depth == 0)
		return leaf(i);
	return (i >> (depth - 1)) & 1 ? right(i, depth - 1) : left(i, depth - 1);
}

static void *left(unsigned i, int depth)
{
	void *p = step(i, depth);
	__asm__ volatile("" ::"r"(depth) : "memory");
	return p;
}

static void *right(unsigned i, int depth)
{
	void *p = step(i, depth);
	__asm__ volatile("" ::"r"(depth) : "memory");
	return p;
}

static void *__attribute__((noinline)) leaf(unsigned i)
{
	char *p = malloc(48);
	if (p)
		memset(p, (int)(i & 0xff), 48);
	return p;
}

#endif
