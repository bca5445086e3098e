/* SPDX-License-Identifier: BSD-2-Clause */
/* A failure's reason in words: what the engine recorded as data (errors.h,
 * struct ja_reason) said as the message's {why}, in one place. */
#include "config.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "errors.h"

void ja_reason_render(const struct ja_reason *r, char *buf, size_t len)
{
	const char *d = r->detail;
	switch (r->kind) {
	case JA_WHY_NONE:
		snprintf(buf, len, "%s", "");
		return;
	case JA_WHY_TEXT:
	case JA_WHY_FROZEN:
	case JA_WHY_STOPPED_PEER:
		snprintf(buf, len, "%s", d);
		return;
	case JA_WHY_NO_SYSCALL_INSN:
		snprintf(buf, len, "no syscall instruction found in the target's executable mappings");
		return;
	case JA_WHY_NOT_THREAD:
		snprintf(buf, len, "thread %d is not a thread of process %d", (int)r->tid, (int)r->pid);
		return;
	case JA_WHY_FROZEN_IN_CALL:
		snprintf(buf, len, "the process was frozen while the call ran (%s)", d);
		return;
	case JA_WHY_NO_SAFE_POINT:
		snprintf(buf, len, "no thread was at a safe point before the timeout (%s)",
			 *d ? d : "none could be stopped");
		return;
	case JA_WHY_TIMED_WAITS:
		snprintf(buf, len,
			 "no thread was at a safe point before the timeout: %s, which an interrupt "
			 "before the next one begins would make end late; give --tid %d --timeout "
			 "%llu to watch that thread until its next wait begins",
			 d, (int)r->tid, r->n);
		return;
	case JA_WHY_NO_SCRATCH:
		snprintf(buf, len,
			 "no scratch memory can be mapped in the target for the calls (mmap of %llu "
			 "KiB: %s) and no thread's stack is a guarded one with that much free; %s",
			 r->n, ja_err_text(r->err),
			 r->err == ENOMEM
				 ? "RLIMIT_AS or vm.max_map_count is reached: raise it "
				   "(prlimit --pid PID --as=...)"
				 : "nothing was done");
		return;
	case JA_WHY_NO_DONTFORK:
		snprintf(buf, len,
			 "the scratch mapping cannot be kept from fork children (madvise: %s); "
			 "nothing was done",
			 ja_err_text(r->err));
		return;
	case JA_WHY_SELFLOCK:
		snprintf(buf, len,
			 "thread %d waited on a lock it holds itself (the mutex at %#llx) inside the "
			 "injected call",
			 (int)r->tid, r->addr);
		return;
	case JA_WHY_LEFT:
		snprintf(buf, len, "its thread %d finishes the call and restores itself", (int)r->tid);
		return;
	case JA_WHY_CALL_SIGNAL:
		snprintf(buf, len, "the injected call got signal %d (%s) at %#llx", r->sig,
			 strsignal(r->sig), r->addr);
		return;
	case JA_WHY_SECCOMP_UNREADABLE:
		snprintf(buf, len, "thread %d; PTRACE_SECCOMP_GET_FILTER: %s", (int)r->tid,
			 strerror(r->err));
		return;
	case JA_WHY_SECCOMP_TOO_MANY:
		snprintf(buf, len, "thread %d has more than %llu seccomp filters", (int)r->tid, r->n);
		return;
	case JA_WHY_SECCOMP_KILLS:
		snprintf(buf, len, "%s on %s (filter action %#llx)",
			 r->n == SECCOMP_RET_KILL_THREAD ? "the borrowed thread" : "the process", d,
			 r->n);
		return;
	}
	snprintf(buf, len, "%s", d);
}

int ja_reason_own_fix(const struct ja_reason *r)
{
	return r->kind == JA_WHY_TIMED_WAITS;
}
