/* SPDX-License-Identifier: BSD-2-Clause */
#include "config.h"

#include <errno.h>
#include <string.h>
#include "sampler_blob.h"
#include "sampler_layout.h"

#define ROUND_UP(x, a) (((x) + (a) - 1) / (a) * (a))

static int pow2_within(uint32_t n, uint32_t lo, uint32_t hi)
{
	return n >= lo && n <= hi && !(n & (n - 1));
}

int sampler_layout_plan(struct sampler_layout *l, size_t page, size_t code_len,
			uint32_t nthreads, uint32_t nlive, uint32_t nrecs)
{
	/* The hooks index these tables with a mask: powers of two. The
	 * bounds keep the whole mapping under a few hundred MiB whatever a
	 * caller asks. */
	if (!page || (page & (page - 1)) || !code_len || code_len > (1u << 20) ||
	    !pow2_within(nthreads, 16, 1u << 20) || !pow2_within(nlive, 16, 1u << 24) ||
	    !pow2_within(nrecs, 2, 1u << 12) || sizeof(struct sampler_keep) > page)
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->page = page;
	l->nthreads = nthreads;
	l->nlive = nlive;
	l->nrecs = nrecs;
	l->code_off = page;
	l->code_len = ROUND_UP(code_len, page);
	l->keep_len = l->code_off + l->code_len;
	l->ctl_off = l->keep_len;
	l->threads_off = ROUND_UP(l->ctl_off + sizeof(struct sampler_ctl), 64);
	l->live_off = ROUND_UP(l->threads_off + (uint64_t)nthreads * sizeof(struct sampler_thread), 64);
	l->recs_off = ROUND_UP(l->live_off + (uint64_t)nlive * sizeof(struct sampler_live), 64);
	l->total = ROUND_UP(l->recs_off + (uint64_t)nrecs * sizeof(struct sampler_rec), page);
	l->rest_len = l->total - l->ctl_off;
	return 0;
}

void sampler_layout_move_rest(struct sampler_layout *l, uint64_t delta)
{
	l->ctl_off += delta;
	l->threads_off += delta;
	l->live_off += delta;
	l->recs_off += delta;
}

void sampler_layout_keep(const struct sampler_layout *l, struct sampler_keep *k, uint64_t mallctl)
{
	memset(k, 0, sizeof(*k));
	k->magic = SAMPLER_MAGIC;
	k->mallctl = mallctl;
	k->ctl_off = l->ctl_off;
	strcpy(k->remove_name, "experimental.hooks.remove");
	strcpy(k->install_name, "experimental.hooks.install");
}

void sampler_layout_ctl(const struct sampler_layout *l, struct sampler_ctl *c, int32_t pid,
			uint64_t mean, uint64_t seed, int64_t deadline_ns)
{
	memset(c, 0, sizeof(*c));
	c->magic = SAMPLER_CTL_MAGIC;
	c->version = SAMPLER_VERSION;
	c->pid = pid;
	c->nthreads = l->nthreads;
	c->nlive = l->nlive;
	c->nrecs = l->nrecs;
	c->mean = mean ? mean : 1;
	c->seed = seed;
	c->deadline_ns = deadline_ns;
	c->threads_off = l->threads_off;
	c->live_off = l->live_off;
	c->recs_off = l->recs_off;
}

void sampler_layout_hooks(const struct sampler_layout *l, uint64_t base, uint64_t out[4])
{
	out[0] = base + l->code_off + sampler_blob_alloc;
	out[1] = base + l->code_off + sampler_blob_dalloc;
	out[2] = base + l->code_off + sampler_blob_expand;
	out[3] = base;
}
