/* SPDX-License-Identifier: BSD-2-Clause */
/* --frag: where the gap between allocated and resident memory comes from.
 * During the hold: epoch, jemalloc's JSON report, and the two settings
 * the advice depends on; after the release, the analysis (frag.h), which
 * never runs while a thread of the target is held. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "act.h"
#include "frag.h"
#include "rproc.h"
#include "target_struct.h"

/* malloc_stats_print's options (jemalloc(3), stats.c's
 * STATS_PRINT_OPTIONS): J for JSON, then what is left out: d destroyed
 * arenas, a each arena on its own (the merged arena has the sums), x
 * mutex counters, e extents by size, h the HPA. Left: the general part
 * (version, opt, bin and large class sizes), the totals, and the merged
 * arena with its bins and large classes. 5.2 ignores the letters it does
 * not know (h). A fragmented redis-server (two arenas): 132-153 KB with
 * everything, 17 KB without (38 KB with opt.prof_stats' columns); without
 * 'a' the size no longer grows with the number of arenas. */
#define FRAG_PRINT_OPTS "Jdaxeh"

/* A bool control: 1, 0, or -1 when jemalloc has no such control
 * (ENOENT). Transport errors go to r. */
static enum ja_exit read_tristate(struct target *t, struct act_result *r, const char *doing,
				  const char *ctl, int *out)
{
	struct rctl_value v;
	int merr = 0, e = rctl_read(t, ctl, &v, &merr);
	if (e)
		return act_transport_error(t, r, doing, e);
	*out = merr ? -1 : v.u != 0;
	return JA_EXIT_OK;
}

enum ja_exit act_frag(struct target *t, struct act_result *r)
{
	const char *doing = "cannot analyse fragmentation";
	if (!t->je.malloc_stats_print)
		return act_fail(r, JA_EXIT_NOJEMALLOC, "%s: no %smalloc_stats_print in %s", doing,
				t->je.prefix, t->je.object);
	if (!rproc_has_stats_print(t))
		return act_fail(r, JA_EXIT_UNSAFE,
				"%s: no strcat in the target's libc to collect the report with", doing);
	int e = rproc_check_seccomp(t, RPROC_USE_STATS_PRINT);
	if (e)
		return act_transport_error(t, r, doing, e);
	enum ja_exit c = act_need_stats(t, r, doing);
	if (!c)
		c = act_epoch(t, r, doing);
	if (!c)
		c = read_tristate(t, r, doing, "opt.prof_stats", &r->out.frag.prof_stats);
	if (!c)
		c = read_tristate(t, r, doing, "background_thread", &r->out.frag.background);
	if (c)
		return c;
	int remote_errno;
	/* jemalloc's own work, apart from the hold's fixed cost (report_us) */
	core_usec_t t0 = core_now_us();
	e = rproc_stats_print(t, FRAG_PRINT_OPTS, ACT_FRAG_MAX_REPORT, &r->out.frag.text,
			      &remote_errno);
	act_field_u64(r, "report_us", (uint64_t)(core_now_us() - t0));
	if (e == -E2BIG)
		return act_fail(r, JA_EXIT_MALLCTL,
				"%s: jemalloc's report is longer than %lu MiB; not read (jeattach "
				"reads no more of what the target writes)",
				doing, ACT_FRAG_MAX_REPORT >> 20);
	if (e)
		return act_transport_error(t, r, doing, e);
	if (remote_errno)
		return act_fail(r, JA_EXIT_UNSAFE, "%s: mmap in the target failed: %s", doing,
				strerror(remote_errno));
	return JA_EXIT_OK;
}

/* The analysis, after the release. */
enum ja_exit act_frag_finish(struct target *t, const struct act *a, struct act_result *r)
{
	const char *doing = "cannot analyse fragmentation";
	char why[300];
	struct frag_stats st;
	size_t n = strlen(r->out.frag.text);
	if (frag_stats_read(r->out.frag.text, n, &st, why, sizeof(why)))
		return act_fail(r, JA_EXIT_MALLCTL, "%s: %s; see jeattach -p %d --stats=full", doing,
				why, (int)t->pid);
	if (frag_report_build(&st, &r->out.frag.report))
		return act_fail(r, JA_EXIT_INTERNAL, "%s: out of memory", doing);
	act_field_u64(r, "report_bytes", n);
	free(r->out.frag.text);
	r->out.frag.text = NULL;
	/* The report's own count of running background threads is the
	 * truth the advice needs; the control says whether it is on. */
	if (r->out.frag.background == 0)
		r->out.frag.report->st.bg_threads = 0;
	if (a->arg && frag_sites_map(r->out.frag.report, a->arg, (int)t->pid, why, sizeof(why)))
		return act_fail(r, JA_EXIT_USAGE,
				"%s: %s; give --frag-profile a profile written by jeattach --dump", doing,
				why);
	return JA_EXIT_OK;
}
