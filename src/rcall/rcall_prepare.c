/* SPDX-License-Identifier: BSD-2-Clause */
/* The two ends of the remote-call context's life: rcall_prepare finds, once
 * per target and before any thread stops, the code every call returns
 * through; rcall_free lets go of everything. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include "errors.h"
#include "rcall_internal.h"
#include "sym_maps.h"

int rcall_init(void)
{
	return pt_init();
}

/* errno is thread-local in libc's static TLS block, at one distance from
 * every thread's thread pointer; __errno_location's code says which (a GOT
 * slot the loader filled, or the number itself in a static link), read here
 * with no call (arch_tls_ref_decode): a hold's errno lookup was a call, two
 * stops, 20-25 us of each one-shot hold. Code of another shape leaves it to
 * the holds (save_errno in rcall_hold.c). A slot is read only once the
 * loader is done with it: RELRO made its page read-only after relocating
 * (a process caught during its start has the file's 0 there, and errno
 * would be "restored" at the thread pointer itself). And the distance must
 * be one static TLS can have (arch_tls_offset_plausible). */
static void errno_offset(struct target *t, struct rcall_ctx *c)
{
	unsigned char code[ARCH_TLS_CODE_LEN];
	struct arch_tls_ref ref;
	int64_t off;
	if (!c->errno_location || pt_read(t->io_pid, c->errno_location, code, sizeof(code)) ||
	    arch_tls_ref_decode(code, sizeof(code), c->errno_location, &ref))
		return;
	if (!ref.in_memory) {
		off = ref.offset;
	} else {
		const struct sym_map *m = sym_maps_find(&t->maps, ref.where);
		if (!m || m->w || pt_read(t->io_pid, ref.where, &off, sizeof(off)))
			return;
	}
	if (!arch_tls_offset_plausible(off))
		return;
	c->errno_off = off;
	c->errno_off_state = 2;
}

int rcall_prepare(struct target *t, const struct rcall_opts *o)
{
	if (t->rc)
		return 0;
	struct rcall_ctx *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->only_tid = o ? o->only_tid : 0;
	c->claim_fd = -1;
	c->deadline = INT64_MAX;
	int e = sym_find_syscall_insn(t->io_pid, &t->maps, &c->syscall_insn);
	if (e) {
		/* Every process has one (libc, the vDSO): not finding any means
		 * its memory could not be read, not that it has none. */
		free(c);
		target_reason(t, (struct ja_reason){ .kind = JA_WHY_NO_SYSCALL_INSN });
		return target_alive(t) ? -JA_ERR_NO_SYSCALL_INSN : -ESRCH;
	}
	/* Optional: without it the borrowed thread's errno is not preserved. */
	int ifunc;
	if (sym_lookup_function(t->io_pid, &t->maps, "__errno_location", &c->errno_location, &ifunc) ||
	    ifunc)
		c->errno_location = 0;
	/* All three, or calls fall back to the return trap (not crash-safe). */
	/* (Two where the result survives the restorer: no gadget.) */
	if (!ARCH_HAS_CRASH_SAFE_RETURN ||
	    sym_find_code(t->io_pid, &t->maps, ARCH_RESTORER, ARCH_RESTORER_LEN, NULL, &c->ret_restorer,
			  NULL) ||
	    (!ARCH_RESULT_AT_SIGRETURN &&
	     sym_find_code(t->io_pid, &t->maps, ARCH_GADGET_STORE, ARCH_GADGET_STORE_LEN,
			   arch_gadget_pops, &c->ret_gadget, &c->ret_gadget_pops)) ||
	    sym_lookup_function(t->io_pid, &t->maps, "syscall", &c->syscall_fn, &ifunc) || ifunc)
		c->ret_restorer = c->ret_gadget = c->syscall_fn = 0;
	errno_offset(t, c);
	t->rc = c;
	/* What the holds' stops would otherwise ask first, asked now while
	 * every thread runs. */
	arch_frame_prepare();
	int u = rcall_unwind_prepare(t);
	/* What killed jeattach runs left in it (rcall_label.c). */
	if (!u)
		rcall_scratch_adopt(t);
	return u;
}

void rcall_set_deadline(struct target *t, core_usec_t deadline)
{
	if (t->rc)
		t->rc->deadline = deadline;
}

void rcall_set_progress(struct target *t, rcall_progress_fn fn, void *arg)
{
	if (t->rc) {
		t->rc->progress = fn;
		t->rc->progress_arg = arg;
	}
}

void rcall_set_quit(struct target *t, rcall_quit_fn fn, void *arg)
{
	if (t->rc) {
		t->rc->quit = fn;
		t->rc->quit_arg = arg;
	}
}

void rcall_set_drain(struct target *t, rcall_drain_fn fn, void *arg)
{
	if (t->rc) {
		t->rc->drain = fn;
		t->rc->drain_arg = arg;
	}
}

void rcall_timing(const struct target *t, struct rcall_timing *out)
{
	static const struct rcall_timing none;
	*out = t->rc ? t->rc->timing : none;
}

void rcall_free(struct target *t)
{
	if (!t->rc)
		return;
	/* Release sweeps the threads slow to stop, and those merely slow are
	 * waited for (up to 2 s); one still in its uninterruptible wait stays
	 * seized until jeattach exits, when the kernel lets go of it
	 * (__ptrace_unlink clears the pending interrupt). */
	rcall_release(t);
	/* A scratch mapping kept for holds that did not come (a caller that
	 * left rcall_keep_scratch on): removed in a hold of its own. */
	uint64_t left;
	if (t->rc->kept_addr) {
		rcall_set_deadline(t, core_now_us() + 1000000);
		rcall_scratch_drop(t, &left);
	}
	rcall_sweep_wait(t, 2000000);
	rcall_label_unlock(t->rc);
	free(t->rc->stragglers);
	free(t->rc->ranked);
	rcall_unwind_free(t->rc);
	free(t->rc);
	t->rc = NULL;
}
