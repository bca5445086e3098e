/* SPDX-License-Identifier: BSD-2-Clause */
/* tplist: every thread's thread pointer without stopping any thread, from
 * the list glibc links each thread descriptor into.
 *
 * glibc's struct pthread (nptl/descr.h, the same in 2.31 through 2.42,
 * checked in each release's source) opens with a union of the TCB header
 * and void *__padding[24], then `list_t list` (next, prev: include/list.h
 * list_add/list_del keep node->next->prev == node == node->prev->next),
 * then `pid_t tid`, right after the two pointers. The union's size is the
 * architecture's: on x86_64 tcbhead_t (sysdeps/x86_64/nptl/tls.h, with its
 * __glibc_unused2[8][4] of 16-byte words) is 704 bytes, so list is at +704
 * and tid at +720 (seen on Debian 12's 2.36); on aarch64 (TLS_DTV_AT_TP)
 * the header is two ints, the union 192 bytes, list at +192, tid at +208.
 * The thread pointer is the descriptor itself on x86_64 (TLS_TCB_AT_TP),
 * the descriptor plus TLS_PRE_TCB_SIZE = sizeof (struct pthread) on
 * aarch64 (sysdeps/aarch64/nptl/tls.h): in both, the list node lies at a
 * constant distance from the thread pointer, within a few KiB. So nothing
 * here knows an offset: tplist_find looks, near one thread's thread
 * pointer, for the one place holding a list node followed by that
 * thread's tid, and every other node then gives its thread pointer.
 *
 * Threads that glibc created are on GL(dl_stack_used); the initial thread
 * and those on user stacks on GL(dl_stack_user), the next list_t in
 * _rtld_global (sysdeps/generic/ldsodefs.h, 2.33 and later; before, the
 * statics stack_used and __stack_user of nptl/allocatestack.c, not
 * necessarily neighbours). A walk meets its list's head, whose "tid" is
 * whatever follows it: not a thread the caller wants, and the 16 bytes
 * either side are tried as another list's head. GL(dl_stack_cache) comes
 * next: cached descriptors of ended threads, whose tid the kernel cleared
 * as they ended (CLONE_CHILD_CLEARTID, nptl/pthread_create.c): no match.
 *
 * The target's memory is not trusted: every read is bounded (a budget of
 * reads), no node is visited twice, and what comes out is only a
 * candidate thread pointer for a thread the caller lists now, which the
 * caller checks against the maps before reading anything at it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include "tplist.h"

#define TPLIST_PAGE 4096
#define TPLIST_NPAGES ((2 * TPLIST_WINDOW) / TPLIST_PAGE + 2)
#define TPLIST_HEADS 64 /* nodes of no wanted thread, tried as list heads' neighbours */

/* node's next and prev point back at it. */
static int linked(const struct tplist_mem *m, uint64_t node, const uint64_t np[2])
{
	uint64_t back;
	if (!np[0] || !np[1] || ((np[0] | np[1]) & 7) || np[0] == node)
		return 0;
	return !m->read(m->ctx, np[0] + 8, &back, 8) && back == node &&
	       !m->read(m->ctx, np[1], &back, 8) && back == node;
}

int tplist_find(const struct tplist_mem *m, uint64_t tp, pid_t tid, int64_t *node_off)
{
	char ok[TPLIST_NPAGES];
	unsigned char *buf;
	if ((tp & 7) || tp < 2 * TPLIST_WINDOW || tp > UINT64_MAX - 4 * TPLIST_WINDOW || tid <= 0 ||
	    !(buf = malloc(TPLIST_NPAGES * TPLIST_PAGE)))
		return -1;
	uint64_t lo = (tp - TPLIST_WINDOW) & ~(uint64_t)(TPLIST_PAGE - 1);
	for (int p = 0; p < TPLIST_NPAGES; p++) /* an unreadable page (a guard) is skipped */
		ok[p] = !m->read(m->ctx, lo + (uint64_t)p * TPLIST_PAGE, buf + p * TPLIST_PAGE,
				 TPLIST_PAGE);
	int found = 0;
	for (int64_t off = -TPLIST_WINDOW; off <= TPLIST_WINDOW; off += 8) {
		uint64_t at = tp + (uint64_t)off - lo;
		if (!ok[at / TPLIST_PAGE] || !ok[(at + 23) / TPLIST_PAGE])
			continue;
		uint64_t np[2];
		int32_t t;
		memcpy(np, buf + at, 16);
		memcpy(&t, buf + at + 16, 4);
		if (t != tid || !linked(m, tp + (uint64_t)off, np))
			continue;
		*node_off = off;
		found++;
	}
	free(buf);
	return found == 1 ? 0 : -1;
}

struct walk {
	const struct tplist_mem *m;
	int64_t node_off;
	tplist_want_fn want;
	void *wctx;
	int reads; /* left */
	uint64_t *seen;
	size_t mask;
	struct tplist_thread *out;
	int n, cap;
	uint64_t heads[TPLIST_HEADS];
	int nheads;
};

static int rd(struct walk *w, uint64_t a, void *b, size_t len)
{
	if (w->reads <= 0)
		return -1;
	w->reads--;
	return w->m->read(w->m->ctx, a, b, len);
}

/* 1 if a was not visited (now it is), 0 if it was. */
static int visit(struct walk *w, uint64_t a)
{
	size_t i = (size_t)((a >> 3) * 0x9e3779b97f4a7c15ull) & w->mask;
	for (size_t k = 0; k <= w->mask; k++, i = (i + 1) & w->mask) {
		if (w->seen[i] == a)
			return 0;
		if (!w->seen[i]) {
			w->seen[i] = a;
			return 1;
		}
	}
	return 0; /* full: cannot happen, the set is twice the read budget */
}

/* Follow the list from cur, next pointers (dir 0) or prev (dir 1), each
 * step only to a node that points back, until a node seen before (the
 * list closed), a broken link or the budget's end. */
static void walk_dir(struct walk *w, uint64_t cur, int dir)
{
	while (cur && !(cur & 7) && visit(w, cur)) {
		unsigned char b[24];
		uint64_t np[2], back;
		int32_t tid;
		if (rd(w, cur, b, sizeof(b)))
			return;
		memcpy(np, b, 16);
		memcpy(&tid, b + 16, 4);
		if (tid > 0 && w->want(w->wctx, tid)) {
			if (w->n < w->cap)
				w->out[w->n++] = (struct tplist_thread){ tid, cur - (uint64_t)w->node_off };
		} else if (w->nheads < TPLIST_HEADS) {
			w->heads[w->nheads++] = cur;
		}
		uint64_t nx = np[dir];
		if (!nx || (nx & 7) || rd(w, nx + (dir ? 0 : 8), &back, 8) || back != cur)
			return;
		cur = nx;
	}
}

static int by_tid(const void *a, const void *b)
{
	pid_t x = ((const struct tplist_thread *)a)->tid, y = ((const struct tplist_thread *)b)->tid;
	return (x > y) - (x < y);
}

/* A tid claimed by two nodes is believed for neither. */
static int drop_twice(struct tplist_thread *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_tid);
	int m = 0;
	for (int i = 0; i < n;) {
		int j = i + 1;
		while (j < n && v[j].tid == v[i].tid)
			j++;
		if (j == i + 1)
			v[m++] = v[i];
		i = j;
	}
	return m;
}

int tplist_walk(const struct tplist_mem *m, uint64_t start, int64_t node_off,
		tplist_want_fn want, void *wctx, int max_reads, struct tplist_thread *out, int cap)
{
	struct walk w = { .m = m, .node_off = node_off, .want = want, .wctx = wctx,
			  .reads = max_reads, .out = out, .cap = cap };
	size_t size = 64;
	while (size < 2 * (size_t)(max_reads > 0 ? max_reads : 1))
		size <<= 1;
	if (!(w.seen = calloc(size, sizeof(*w.seen))))
		return -1;
	w.mask = size - 1;
	uint64_t np[2];
	walk_dir(&w, start, 0);
	/* The list broken ahead (a thread being added or removed as it is
	 * read): what lies behind the start, backwards. */
	if (!rd(&w, start, np, 16))
		walk_dir(&w, np[1], 1);
	/* The neighbouring lists, from the nodes of no wanted thread met so
	 * far, those lists' own included, TPLIST_HEADS of them at most: from
	 * a start on the stack cache (the thread it was found from has ended)
	 * GL(dl_stack_user) is 16 bytes below its head, GL(dl_stack_used) 16
	 * below that. */
	for (int h = 0; h < w.nheads; h++)
		for (int d = -16; d <= 16; d += 32) {
			uint64_t c = w.heads[h] + (uint64_t)(int64_t)d;
			if (!rd(&w, c, np, 16) && w.reads > 2 && linked(m, c, np)) {
				w.reads -= 2;
				walk_dir(&w, c, 0);
			}
		}
	free(w.seen);
	return drop_twice(out, w.n);
}
