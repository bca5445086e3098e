/* SPDX-License-Identifier: BSD-2-Clause */
/* ptrace wrappers. PTRACE_SEIZE, never PTRACE_ATTACH: ATTACH sends SIGSTOP,
 * which makes epoll_wait() and friends return EINTR in the target when it is
 * continued (signal(7): "interruption of system calls ... by stop signals").
 * SEIZE + PTRACE_INTERRUPT stops a thread without any signal, so a blocked
 * syscall reports -ERESTART* to the kernel and is restarted on resume. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "pt.h"

static int ret_errno(long r)
{
	return r < 0 ? -errno : 0;
}

int pt_seize(pid_t tid)
{
	/* No PTRACE_O_EXITKILL, so that if jeattach dies the kernel detaches
	 * and the target lives on. TRACESYSGOOD marks syscall stops
	 * (SIGTRAP | 0x80) so they are never mistaken for a real SIGTRAP. */
	return ret_errno(ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)PTRACE_O_TRACESYSGOOD));
}

int pt_interrupt(pid_t tid)
{
	return ret_errno(ptrace(PTRACE_INTERRUPT, tid, 0, 0));
}

int pt_cont(pid_t tid, int sig)
{
	return ret_errno(ptrace(PTRACE_CONT, tid, 0, (void *)(long)sig));
}

int pt_singlestep(pid_t tid)
{
	return ret_errno(ptrace(PTRACE_SINGLESTEP, tid, 0, 0));
}

int pt_syscall(pid_t tid, int sig)
{
	return ret_errno(ptrace(PTRACE_SYSCALL, tid, 0, (void *)(long)sig));
}

int pt_get_syscall_info(pid_t tid, struct __ptrace_syscall_info *info, size_t len)
{
	return ptrace(PTRACE_GET_SYSCALL_INFO, tid, (void *)len, info) < 0 ? -errno : 0;
}

int pt_detach(pid_t tid, int sig)
{
	return ret_errno(ptrace(PTRACE_DETACH, tid, 0, (void *)(long)sig));
}

/* SIGCHLD through a signalfd: a ptrace stop of a tracee notifies the tracer
 * with SIGCHLD (CLD_TRAPPED), so pt_wait can sleep in ppoll until the stop
 * arrives or the deadline passes: no polling, no SIGALRM, and jeattach is
 * woken the moment the target stops, which matters on a loaded machine. */
static int chld_fd = -1;

int pt_init(void)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -errno;
	chld_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return chld_fd < 0 ? -errno : 0;
}

static void drain_chld(void)
{
	struct signalfd_siginfo si[16];
	while (read(chld_fd, si, sizeof(si)) > 0)
		;
}

int pt_wait(pid_t tid, core_usec_t deadline, int *status)
{
	for (;;) {
		/* Drain first, then look: a SIGCHLD arriving after the look
		 * leaves the signalfd readable, so ppoll cannot miss it. */
		if (chld_fd >= 0)
			drain_chld();
		pid_t r = waitpid(tid, status, __WALL | WNOHANG);
		if (r == tid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		core_usec_t left = deadline - core_now_us();
		if (left <= 0)
			return -ETIMEDOUT;
		struct timespec ts = { (time_t)(left / 1000000), (long)(left % 1000000) * 1000 };
		if (chld_fd < 0) { /* no pt_init (unit tests): short naps */
			struct timespec nap = { 0, 100000 };
			nanosleep(left < 100 ? &ts : &nap, NULL);
			continue;
		}
		struct pollfd pfd = { .fd = chld_fd, .events = POLLIN };
		if (ppoll(&pfd, 1, &ts, NULL) < 0 && errno != EINTR)
			return -errno;
	}
}

static int regset(int req, pid_t tid, int note, void *buf, size_t *len)
{
	struct iovec iov = { buf, *len };
	if (ptrace(req, tid, (void *)(long)note, &iov) < 0)
		return -errno;
	*len = iov.iov_len;
	return 0;
}

void pt_parse_blocked_call(const char *text, struct arch_blocked_call *b)
{
	/* "NR ARG1 ... ARG6 SP PC" in a call; "-1 SP PC" or "running" not
	 * (proc_pid_syscall). */
	unsigned long long a[8];
	long nr;
	memset(b, 0, sizeof(*b));
	if (sscanf(text, "%ld %llx %llx %llx %llx %llx %llx %llx %llx", &nr, &a[0], &a[1], &a[2],
		   &a[3], &a[4], &a[5], &a[6], &a[7]) != 9 || nr < 0)
		return;
	b->valid = 1;
	b->nr = nr;
	for (int i = 0; i < 6; i++)
		b->args[i] = a[i];
	b->sp = a[6];
	b->pc = a[7];
}

int pt_blocked_call(pid_t tid, struct arch_blocked_call *b)
{
	char path[64], text[256];
	memset(b, 0, sizeof(*b));
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -EIO;
	text[n] = 0;
	pt_parse_blocked_call(text, b);
	return 0;
}

int pt_get_gpregs(pid_t tid, arch_gpregs_t *r)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < arch_nregsets; i++) {
		const struct arch_regset *s = &arch_regsets[i];
		size_t len = s->size;
		int e = regset(PTRACE_GETREGSET, tid, s->note, (char *)r + s->offset, &len);
		if (e && s->optional && e != -ESRCH) {
			memset((char *)r + s->offset, 0, s->size);
			continue;
		}
		if (e)
			return e;
		if (len != s->size)
			return -EIO;
	}
#ifdef ARCH_ORIG_ARG0_FROM_PROC
	if (arch_in_syscall(r)) {
		/* The first argument as the kernel reports it: on arm64 the
		 * only view of orig_x0 (see arch_defs.h). */
		struct arch_blocked_call b;
		int e = pt_blocked_call(tid, &b);
		if (e)
			return e;
		if (!b.valid)
			return -EIO;
		r->orig_x0 = b.args[0];
	}
#endif
	return 0;
}

int pt_set_gpregs(pid_t tid, const arch_gpregs_t *r)
{
	for (int i = 0; i < arch_nregsets; i++) {
		const struct arch_regset *s = &arch_regsets[i];
		size_t len = s->size;
		int e = s->write && !s->optional ? regset(PTRACE_SETREGSET, tid, s->note,
					  (char *)r + s->offset, &len) : 0;
		if (e)
			return e;
	}
	return 0;
}

#ifdef ARCH_FPSTATE_NOTE_ALT
/* Two notes may hold the FP state (arm64: NT_ARM_SVE where the CPU has SVE,
 * NT_PRFPREG otherwise): the one read is kept in the buffer's first word,
 * and written back the same way. */
int pt_get_fpstate(pid_t tid, void *buf, size_t *len)
{
	if (*len < 8 + 16)
		return -EINVAL;
	/* ptrace_regset() answers EINVAL to a length that is not a whole
	 * number of the regset's elements (16 bytes for NT_ARM_SVE): that
	 * EINVAL must not pass for "no SVE here", or a thread's live SVE
	 * registers would be read, and put back, as their FPSIMD part only. */
	const size_t room = (*len - 8) & ~(size_t)15;
	size_t n = room;
	int note = ARCH_FPSTATE_NOTE;
	int e = regset(PTRACE_GETREGSET, tid, note, (char *)buf + 8, &n);
	if (e == -EINVAL || e == -ENODEV) {
		note = ARCH_FPSTATE_NOTE_ALT;
		n = room;
		e = regset(PTRACE_GETREGSET, tid, note, (char *)buf + 8, &n);
	}
	if (e)
		return e;
	memcpy(buf, &note, sizeof(note));
	*len = n + 8;
	return 0;
}

int pt_set_fpstate(pid_t tid, const void *buf, size_t len)
{
	int note;
	if (len < 8)
		return -EINVAL;
	memcpy(&note, buf, sizeof(note));
	len -= 8;
	return regset(PTRACE_SETREGSET, tid, note, (char *)buf + 8, &len);
}
#else
int pt_get_fpstate(pid_t tid, void *buf, size_t *len)
{
	return regset(PTRACE_GETREGSET, tid, ARCH_FPSTATE_NOTE, buf, len);
}

int pt_set_fpstate(pid_t tid, const void *buf, size_t len)
{
	return regset(PTRACE_SETREGSET, tid, ARCH_FPSTATE_NOTE, (void *)buf, &len);
}
#endif

/* PTRACE_GETSIGMASK/SETSIGMASK (Linux 3.11) take the kernel's 8-byte mask. */
int pt_get_sigmask(pid_t tid, uint64_t *mask)
{
	return ret_errno(ptrace(PTRACE_GETSIGMASK, tid, (void *)sizeof(*mask), mask));
}

int pt_set_sigmask(pid_t tid, uint64_t mask)
{
	return ret_errno(ptrace(PTRACE_SETSIGMASK, tid, (void *)sizeof(mask), &mask));
}

int pt_get_siginfo(pid_t tid, siginfo_t *si)
{
	return ret_errno(ptrace(PTRACE_GETSIGINFO, tid, 0, si));
}

int pt_seccomp_filter(pid_t tid, unsigned long index, void *buf, size_t max)
{
	/* The kernel writes the whole filter or nothing: ask its size first. */
	long n = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)index, NULL);
	if (n < 0)
		return -errno;
	if (!buf)
		return (int)n;
	if ((size_t)n > max)
		return -E2BIG;
	n = ptrace(PTRACE_SECCOMP_GET_FILTER, tid, (void *)index, buf);
	return n < 0 ? -errno : (int)n;
}

/* /proc/PID/mem as the fallback: process_vm_readv() may be denied by a
 * seccomp policy on jeattach's side or an LSM, /proc/PID/mem rarely is for a
 * tracer. Both honour the target's page protections for writes only through
 * FOLL_FORCE (mem), so scratch writes go to the stack, which is writable. */
static int mem_io(pid_t pid, uint64_t addr, void *buf, size_t len, int write)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n = write ? process_vm_writev(pid, &local, 1, &remote, 1, 0)
			  : process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n >= 0 && !write)
		return -EFAULT;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	int fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write ? pwrite(fd, buf, len, (off_t)addr) : pread(fd, buf, len, (off_t)addr);
	int e = n < 0 ? -errno : (n == (ssize_t)len ? 0 : -EFAULT);
	close(fd);
	return e;
}

int pt_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	return mem_io(pid, addr, buf, len, 0);
}

int pt_write(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
	return mem_io(pid, addr, (void *)buf, len, 1);
}

int pt_read_string(pid_t pid, uint64_t addr, char *buf, size_t cap)
{
	/* Read page by page: a string near the end of a mapping must not make
	 * the whole read fail. */
	size_t got = 0;
	while (got + 1 < cap) {
		uint64_t a = addr + got;
		size_t chunk = 4096 - (a & 4095);
		if (chunk > cap - 1 - got)
			chunk = cap - 1 - got;
		int e = pt_read(pid, a, buf + got, chunk);
		if (e)
			return e;
		void *nul = memchr(buf + got, 0, chunk);
		if (nul)
			return 0;
		got += chunk;
	}
	buf[cap - 1] = 0;
	return -ENAMETOOLONG;
}
