/* SPDX-License-Identifier: BSD-2-Clause */
/* An injected call that waits on a lock its own thread holds.
 *
 * The safe-point rules (rcall_safepoint.c) refuse a thread with an
 * allocator frame or a fork frame on its stack; a thread can still hold a
 * jemalloc lock with neither (code that calls jemalloc's fork handlers
 * itself, unwinding that stops early at code without call-frame
 * information). A mallctl injected there would wait for ever on that lock:
 * the thread's own, which nobody else can release.
 *
 * Such a wait is a futex wait on a glibc mutex whose owner is the waiting
 * thread: __lll_lock_wait (nptl/lowlevellock.c) waits with val 2 on
 * mutex->__data.__lock, and pthread_mutex_lock stored the owner's tid in
 * __owner when it took the mutex (nptl/pthread_mutex_lock.c); jemalloc's
 * malloc_mutex is such a mutex (PTHREAD_MUTEX_ADAPTIVE_NP on Linux). A
 * robust mutex keeps the owner's tid in the lock word itself. The layout of
 * struct __pthread_mutex_s is the same on x86_64 and aarch64 (__lock,
 * __count, __owner, __nusers, __kind: five ints). Recursive and
 * error-checking mutexes never wait on their owner (EDEADLK), nor do PI
 * mutexes (futex_lock_pi_atomic returns -EDEADLK).
 *
 * Seen at the wait's entry (a crash-safe call stops at each system call) or
 * at a tick (/proc/TID/syscall, for a call that returns through the trap),
 * the call is abandoned there: rcall returns -JA_ERR_SELFLOCK and the hold's
 * release puts the thread back as it was found. What the call changed
 * before it reached the lock stays: for a mallctl whose first lock it is,
 * jemalloc's mutex statistics (malloc_mutex_lock_slow counts the wait). */
#include "config.h"

#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include "core_read.h"
#include "errors.h"
#include "rcall_internal.h"

#define KIND_MASK 3   /* PTHREAD_MUTEX_KIND_MASK_NP */
#define KIND_ROBUST 16 /* PTHREAD_MUTEX_ROBUST_NORMAL_NP */
#define KIND_PI 32     /* PTHREAD_MUTEX_PRIO_INHERIT_NP */
#define TID_MASK 0x3fffffff /* FUTEX_TID_MASK */

int rcall_selflock_decide(long nr, const uint64_t args[6], const int32_t mutex[5], pid_t tid)
{
	if (nr != SYS_futex)
		return 0;
	int cmd = (int)args[1] & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
	if (cmd != FUTEX_WAIT && cmd != FUTEX_WAIT_BITSET)
		return 0;
	int32_t lock = mutex[0], owner = mutex[2], kind = mutex[4];
	if ((uint32_t)lock != (uint32_t)args[2] || (kind & KIND_PI))
		return 0; /* not the value waited for: the kernel would not wait */
	if (kind & KIND_ROBUST)
		return (lock & TID_MASK) == tid;
	int type = kind & KIND_MASK;
	return (type == 0 || type == 3) && owner == tid;
}

int rcall_selflock(struct target *t, pid_t tid, long nr, const uint64_t args[6])
{
	int32_t mutex[5];
	if (nr != SYS_futex || pt_read(tid, args[0], mutex, sizeof(mutex)))
		return 0;
	if (!rcall_selflock_decide(nr, args, mutex, tid))
		return 0;
	target_reason(t, (struct ja_reason){ .kind = JA_WHY_SELFLOCK, .tid = tid, .addr = args[0] });
	return 1;
}

int rcall_selflock_blocked(struct target *t, pid_t tid)
{
	char path[80], *text;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)t->io_pid, (int)tid);
	if (core_read_file(path, 4096, &text, NULL))
		return 0;
	struct arch_blocked_call b;
	pt_parse_blocked_call(text, &b);
	free(text);
	return b.valid && rcall_selflock(t, tid, b.nr, b.args);
}
