/* SPDX-License-Identifier: BSD-2-Clause */
/* What earlier --sample runs left in a process (act_sample.h). A kept page
 * is found by its magic at the start of a one-page anonymous read-write
 * mapping followed by the hooks' code; everything read from it is the
 * target's word: the code must be this jeattach's, byte for byte, before
 * it is called, and the handle handed to jemalloc must lie in jemalloc's
 * own writable memory. */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "act_sample.h"
#include "errors.h"
#include "rcall.h"
#include "rctl.h"
#include "sampler_abi.h"
#include "sampler_blob.h"
#include "sampler_layout.h"
#include "sym.h"
#include "sym_maps.h"
#include "target.h"

/* Does addr lie in a writable mapping of jemalloc's object (the hooks'
 * table hook_install hands out a slot of: a static of jemalloc's)? */
static int in_jemalloc_data(const struct target *t, const struct sym_maps *m, uint64_t addr)
{
	const struct sym_map *x = sym_maps_find(m, addr);
	const char *obj = target_jemalloc(t)->object;
	if (!x || !x->w)
		return 0;
	/* .bss continues past the file's last page, as an anonymous
	 * mapping right after it. */
	if (!x->path[0] && x > m->v && (x - 1)->end == x->start)
		x--;
	return x->path[0] && !strcmp(x->path, obj);
}

/* Is the code after the kept page at base this jeattach's? */
static int same_code(struct target *t, uint64_t code)
{
	unsigned char *buf = malloc(sampler_blob_len);
	int same = buf && !rcall_read(t, code, buf, sampler_blob_len) &&
		   !memcmp(buf, sampler_blob, sampler_blob_len);
	free(buf);
	return same;
}

/* Unmap [addr, addr + len) if a mapping of just that size, anonymous,
 * starts there and begins with magic (8 bytes). */
static void unmap_if(struct target *t, struct act_result *r, const struct sym_maps *m,
		     uint64_t addr, uint64_t len, uint64_t magic)
{
	const struct sym_map *x = sym_maps_find(m, addr);
	uint64_t head = 0;
	if (!x || x->start != addr || x->end - x->start != len || x->path[0] ||
	    rcall_read(t, addr, &head, 8) || head != magic)
		return;
	uint64_t args[2] = { addr, len };
	long ret;
	if (!rcall_syscall(t, SYS_munmap, args, 2, &ret) && !ret)
		act_field_u64(r, "left_unmapped_bytes", len);
}

int act_sample_gate_shut(struct target *t, uint64_t base)
{
	uint64_t busy[SAMPLER_NBUSY];
	if (rcall_read(t, base + offsetof(struct sampler_keep, busy), busy, sizeof(busy)))
		return 0;
	for (int i = 0; i < SAMPLER_NBUSY; i++)
		if (busy[i])
			return 0;
	return 1;
}

/* A dead run's hooks, off but installed: removed (its own code does it,
 * once), its rest unmapped. */
static enum ja_exit clean(struct target *t, struct act_session *s, struct act_result *r,
			  const struct sym_maps *m, uint64_t base, const struct sampler_keep *k,
			  const struct sampler_layout *l)
{
	const char *doing = "cannot remove the sampler an earlier run left";
	if (!in_jemalloc_data(t, m, k->handle)) {
		act_field_u64(r, "left_foreign_at", base); /* not ours to hand jemalloc: left alone */
		return JA_EXIT_OK;
	}
	uint64_t ret = 0, arg = base;
	int e = rcall(t, base + l->code_off + sampler_blob_remove, &arg, 1, &ret);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (ret == SAMPLER_NOT_CLAIMED)
		return JA_EXIT_OK; /* another jeattach is at it */
	if (ret)
		return act_mallctl_error(t, r, doing, "experimental.hooks.remove", (int)ret);
	s->pass_settle = 1;
	/* Its rest, where page 0 says (apart from it when that run reused
	 * kept pages): the gate is long shut (off since the deadline),
	 * checked once more. */
	if (act_sample_gate_shut(t, base))
		unmap_if(t, r, m, base + k->ctl_off, l->rest_len, SAMPLER_CTL_MAGIC);
	act_field_u64(r, "left_removed_at", base);
	return JA_EXIT_OK;
}

enum ja_exit act_sample_left(struct target *t, struct act_session *s, struct act_result *r,
			     uint64_t *reuse)
{
	*reuse = 0;
	struct sampler_layout l;
	struct sym_maps m = { 0 };
	if (sampler_layout_plan(&l, (size_t)sysconf(_SC_PAGESIZE), sampler_blob_len, SAMPLE_THREADS,
				SAMPLE_LIVE, SAMPLE_RECS) ||
	    sym_maps_read(target_io_pid(t), &m))
		return JA_EXIT_OK; /* nothing known: nothing touched */
	enum ja_exit c = JA_EXIT_OK;
	int kept = 0;
	for (size_t i = 0; i + 1 < m.n && c == JA_EXIT_OK; i++) {
		const struct sym_map *a = &m.v[i], *b = &m.v[i + 1];
		if (!(a->r && a->w && !a->x && a->end - a->start == l.page && b->start == a->end &&
		      b->r && !b->w && b->x && b->end - b->start == l.code_len) ||
		    (a->path[0] && strcmp(a->path, "[anon:jeattach-sampler]")))
			continue;
		struct sampler_keep k;
		if (rcall_read(t, a->start, &k, offsetof(struct sampler_keep, busy)) ||
		    k.magic != SAMPLER_MAGIC)
			continue;
		/* Its code, whatever its state: a thread may be inside it. */
		if (target_add_unsafe(t, a->start + l.code_off, a->start + l.code_off + l.code_len))
			break;
		if (!same_code(t, a->start + l.code_off)) {
			/* Another jeattach's, or a changed one: not called. */
			act_field_u64(r, "left_foreign_at", a->start);
			continue;
		}
		if (k.in_call) {
			/* A fork child's copy of a page whose install or removal
			 * was running at the fork (in the parent each ends, even
			 * with jeattach dead: crash-safe calls): jemalloc's hook
			 * mutex may be held for good, and hooks may be installed
			 * that its handle does not show. Nothing is touched: no
			 * removal (it would wait on that mutex for ever), no
			 * unmap (a hook may point into the code). */
			act_field_u64(r, "left_forked_at", a->start);
			kept++;
		} else if (k.on)
			c = act_fail(r, JA_EXIT_UNSAFE,
				     "cannot start the sampler: another jeattach's sampler is in this "
				     "process (at %#llx) and switched on; wait for its window to end "
				     "(a sampler whose jeattach died switches itself off at its "
				     "deadline), then run again",
				     (unsigned long long)a->start);
		else if (!k.removing && k.handle)
			c = clean(t, s, r, &m, a->start, &k, &l);
		else if (!k.removing && act_sample_gate_shut(t, a->start)) {
			/* Never installed (its jeattach died before): no thread
			 * can run that code; all of it goes. */
			uint64_t code_head;
			memcpy(&code_head, sampler_blob, 8);
			unmap_if(t, r, &m, a->start + k.ctl_off, l.rest_len, SAMPLER_CTL_MAGIC);
			unmap_if(t, r, &m, a->start + l.code_off, l.code_len, code_head);
			unmap_if(t, r, &m, a->start, l.page, SAMPLER_MAGIC);
		} else if (k.removing == 2 && !*reuse)
			*reuse = a->start;
		else
			kept++; /* removed (2), or a removal that failed (1): known, left */
	}
	sym_maps_free(&m);
	if (kept)
		act_field_u64(r, "left_by_earlier_runs_bytes", (uint64_t)kept * l.keep_len);
	if (*reuse)
		act_field_u64(r, "reused_at", *reuse);
	return c;
}
